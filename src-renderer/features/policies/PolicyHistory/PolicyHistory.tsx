import { useId } from 'react';
import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import type { PolicyVersion } from '../../../store/policy-editor-state.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { LineDiffView } from '../LineDiffView/LineDiffView.js';
import { shortFingerprint } from '../policies-format.js';
import { diffName, historyActionLabel, restoreName } from '../policy-editor-format.js';

const CORRUPT_REASON = 'Changed outside Silas — not trusted: its stored text or its record no longer matches what Silas saved and sealed, so it cannot be restored or compared';
const RESTORE_CONSEQUENCE = 'Writes this version back, signed now, as a new version';

interface VersionItemProps {
  version: PolicyVersion;
  busy: boolean;
  restoring: boolean;
  diffOpen: boolean;
  onDiff(): void;
  onRestore(): void;
}

function VersionItem({ version, busy, restoring, diffOpen, onDiff, onRestore }: VersionItemProps) {
  const reasonId = useId();
  return (
    <li className={`policy-version${version.corrupt ? ' policy-version--corrupt' : ''}`} aria-label={`Version ${version.seq}`}>
      <span className="policy-version__seq">Version {version.seq}</span>
      <span className="policy-version__action">{historyActionLabel(version.action)}</span>
      <time dateTime={version.savedAt}>{formatLocalTime(version.savedAt)}</time>
      <code className="hash" title={version.signer}>
        {shortFingerprint(version.signer)}
      </code>
      {version.corrupt ? <span className="policy-badge policy-badge--bad">changed outside Silas — not trusted</span> : null}
      <span className="policy-version__actions">
        <button type="button" className="button button--quiet" aria-label={diffName(version.seq)} aria-pressed={diffOpen} disabled={version.corrupt} onClick={onDiff}>
          Diff
        </button>
        <button type="button" className="button" aria-label={restoreName(version.seq)} aria-describedby={reasonId} disabled={busy || version.corrupt} onClick={onRestore}>
          Restore
        </button>
        {/* Read out with the button; shown only when it says why the button is disabled. */}
        <span id={reasonId} className="policy-version__reason" hidden={!version.corrupt}>
          {version.corrupt ? CORRUPT_REASON : RESTORE_CONSEQUENCE}
        </span>
        {restoring ? <span className="policy-version__sending">Restoring…</span> : null}
      </span>
    </li>
  );
}

/** The open policy's saved versions, newest first: each can be diffed against the editor's text or another version, or restored. */
export function PolicyHistory() {
  const headingId = useId();
  const versions = useCockpit((s) => s.policyEditor.history.versions);
  const status = useCockpit((s) => s.policyEditor.history.status);
  const error = useCockpit((s) => s.policyEditor.history.error);
  const restoring = useCockpit((s) => s.policyEditor.history.restoring);
  const diff = useCockpit((s) => s.policyEditor.history.diff);
  const diffLoading = useCockpit((s) => s.policyEditor.history.diffLoading);
  const draft = useCockpit((s) => s.policyEditor.open?.draft ?? '');
  const against = useCockpit((s) => s.policyEditor.history.against);
  const againstLoading = useCockpit((s) => s.policyEditor.history.againstLoading);
  const { showPolicyDiff, hidePolicyDiff, restorePolicyVersion, compareDiffWith } = useCockpitActions();
  const compareId = useId();

  return (
    <section className="policy-history" aria-labelledby={headingId}>
      <h2 id={headingId}>History</h2>
      {error ? (
        <p role="alert" className="notice notice--error">
          {error}
        </p>
      ) : null}
      {versions.length === 0 ? (
        <p className="policy-history__empty">{status === 'ready' ? 'No saved version yet: saving, adopting or restoring keeps one.' : 'Loading the history…'}</p>
      ) : (
        <ol className="policy-history__list" aria-labelledby={headingId}>
          {versions.map((version) => {
            const diffOpen = diff?.id === version.id || diffLoading === version.id;
            return (
              <VersionItem
                key={version.id}
                version={version}
                busy={restoring !== null}
                restoring={restoring === version.id}
                diffOpen={diffOpen}
                onDiff={() => (diffOpen ? hidePolicyDiff() : showPolicyDiff(version.id))}
                onRestore={() => restorePolicyVersion(version.id)}
              />
            );
          })}
        </ol>
      )}
      {diff ? (
        <div className="policy-history__diff">
          <label htmlFor={compareId} className="policy-history__compare">
            Compare version {diff.seq} with{' '}
            <select
              id={compareId}
              value={againstLoading ?? against?.id ?? ''}
              onChange={(event) => compareDiffWith(event.target.value === '' ? null : Number(event.target.value))}
            >
              <option value="">the editor&apos;s draft</option>
              {versions
                .filter((version) => version.id !== diff.id)
                .map((version) => (
                  <option key={version.id} value={version.id}>
                    Version {version.seq}
                  </option>
                ))}
            </select>
          </label>
          {againstLoading !== null ? <p className="policy-history__sending">Loading the version…</p> : null}
          {against ? (
            <LineDiffView title={`Version ${diff.seq} (−) against version ${against.seq} (+)`} before={diff.text} after={against.text} />
          ) : (
            <LineDiffView title={`Version ${diff.seq} (−) against the editor (+)`} before={diff.text} after={draft} />
          )}
          <button type="button" className="button button--quiet" onClick={hidePolicyDiff}>
            Hide the diff
          </button>
        </div>
      ) : null}
    </section>
  );
}
