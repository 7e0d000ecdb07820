import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { modelFieldOf, modelProblems, savedText, testText } from '../stream-format.js';
import { ModelForm } from './ModelForm.js';

const FAILED = { save: 'Could not save the model', test: 'Could not test the connection', check: 'Could not read the model status' } as const;

/**
 * First run (§1.5), from the cockpit: what is missing, one form for a model, then a test call.
 * It stays open after a save so the connection can be tested, and closes on Done once Silas
 * can talk; while no model is ready it stands where the composer would be.
 */
export function ModelSetup() {
  const models = useCockpit((s) => s.stream.models);
  const setup = useCockpit((s) => s.stream.setup);
  const headingId = useId();
  const missingId = useId();
  const { configureModels, testModels, checkModels, closeModelSetup } = useCockpitActions();
  // The form starts from the configured model, so it waits for the status.
  if (!models) return null;
  const problems = modelProblems(models);
  const configured = models.roles.some((r) => r.role === 'proxy' && r.configured);
  const saveProblem = setup.problem?.action === 'save' ? { field: modelFieldOf(setup.problem.message), message: setup.problem.message } : null;
  const otherProblem = setup.problem && setup.problem.action !== 'save' ? setup.problem : null;

  return (
    <div className="model-setup">
      <h2 id={headingId} className="model-setup__heading">
        Set up a model
      </h2>
      <p className="model-setup__lead">
        Silas needs a language model to talk. A local server needs no key; OpenRouter and Anthropic need an API key, which goes straight to your
        system keyring and is never written to a file.
      </p>
      {problems.length > 0 ? (
        <div className="model-setup__missing">
          <h3 id={missingId}>What is missing</h3>
          <ul aria-labelledby={missingId}>
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <ModelForm models={models} saving={setup.busy === 'saving'} disabled={setup.busy !== null} problem={saveProblem} onSave={configureModels} labelledBy={headingId} />
      {setup.saved ? <p className="model-setup__saved">{savedText(models)}</p> : null}
      <div className="model-setup__test">
        <button type="button" className="button" disabled={setup.busy !== null || !configured} onClick={testModels}>
          Test connection
        </button>
        <button type="button" className="button button--quiet" disabled={setup.busy !== null} onClick={checkModels}>
          Check again
        </button>
        {models.ready ? (
          <button type="button" className="button" onClick={closeModelSetup}>
            Done
          </button>
        ) : null}
      </div>
      <p role="status" aria-label="Model test" className={`model-setup__result${setup.test && !setup.test.ok ? ' model-setup__result--bad' : ''}`}>
        {setup.busy === 'testing' ? 'Testing the connection…' : setup.test ? testText(setup.test) : ''}
      </p>
      {otherProblem ? (
        <p role="alert" className="notice notice--error">
          {FAILED[otherProblem.action]}: {otherProblem.message}
        </p>
      ) : null}
    </div>
  );
}
