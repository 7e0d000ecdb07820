import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { BenchResults } from '../BenchResults/BenchResults.js';
import { ReplayForm } from '../ReplayForm/ReplayForm.js';
import { TryForm } from '../TryForm/TryForm.js';

const RUNNING = { try: 'Trying the call…', replay: 'Replaying recorded calls…', suite: 'Running the suite…' } as const;

/** The draft beside the policy in force: a call typed by hand, a server's recorded calls, the policy's suite. */
export function TestBench() {
  const headingId = useId();
  const suiteId = useId();
  const running = useCockpit((s) => s.policyEditor.bench.running);
  const result = useCockpit((s) => s.policyEditor.bench.result);
  const error = useCockpit((s) => s.policyEditor.bench.error);
  const { tryPolicyCall, replayPolicyCalls, runPolicySuite } = useCockpitActions();
  const busy = running !== null;

  return (
    <section className="test-bench" aria-labelledby={headingId}>
      <h2 id={headingId}>Test bench</h2>
      <p className="test-bench__lead">Calls decided by the draft in the editor and by the policy in force, side by side. Nothing is saved or sent to a server.</p>
      <TryForm busy={busy} onTry={tryPolicyCall} />
      <ReplayForm busy={busy} onReplay={replayPolicyCalls} />
      <div className="bench-form">
        <button type="button" className="button" disabled={busy} aria-describedby={suiteId} onClick={runPolicySuite}>
          Run suite
        </button>
        <span id={suiteId} className="bench-form__hint">
          The expectations kept beside the policy in NAME.suite.json
        </span>
      </div>
      <p role="status" className="test-bench__running">
        {running ? RUNNING[running] : ''}
      </p>
      {error ? (
        <p role="alert" className="notice notice--error">
          The test bench could not run: {error}
        </p>
      ) : null}
      {result ? <BenchResults result={result} /> : null}
    </section>
  );
}
