import { useCockpit } from '../../app/cockpit-context.js';

/** Long fingerprints are cut for the header; the full value stays in the tooltip and in copy. */
export function shortFingerprint(fingerprint: string, keep = 16): string {
  return fingerprint.length > keep + 1 ? `${fingerprint.slice(0, keep)}…` : fingerprint;
}

/** Which runtime this cockpit governs: mode, data home and the owner key that signs decisions. */
export function RuntimeSummary() {
  const info = useCockpit((s) => s.runtime.info);
  if (!info) {
    return (
      <dl className="runtime-summary runtime-summary--empty" aria-label="Runtime">
        <dt>Runtime</dt>
        <dd>—</dd>
      </dl>
    );
  }
  return (
    <dl className="runtime-summary" aria-label="Runtime">
      <div>
        <dt>Mode</dt>
        <dd>{info.mode}</dd>
      </div>
      <div>
        <dt>Home</dt>
        <dd title={info.home}>{info.home}</dd>
      </div>
      <div>
        <dt>Owner key</dt>
        <dd title={info.ownerFingerprint}>
          <code>{shortFingerprint(info.ownerFingerprint)}</code>
        </dd>
      </div>
      <div>
        <dt>Version</dt>
        <dd>{info.version}</dd>
      </div>
    </dl>
  );
}
