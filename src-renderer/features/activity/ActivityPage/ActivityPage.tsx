import { useCockpit, useCockpitActions } from '../../../app/cockpit-context.js';
import { selectNewSinceVerification } from '../../../store/chain-slice.js';
import { formatCount, formatLocalTime } from '../audit-format.js';
import { AuditList } from '../AuditList/AuditList.js';
import { ChainBadge } from '../ChainBadge/ChainBadge.js';

function ActivityStats() {
  const total = useCockpit((s) => s.audit.total);
  const loaded = useCockpit((s) => s.audit.entries.length);
  const newSince = useCockpit(selectNewSinceVerification);
  const verifiedAt = useCockpit((s) => s.chain.verifiedAt);
  return (
    <p className="activity-stats">
      {/* The runtime reads the total off the chain's head (dense indexes), not by counting rows. */}
      <span title="Entries in the hash chain: the newest entry's index + 1">
        {formatCount(total)} {total === 1 ? 'entry' : 'entries'}
      </span>
      {loaded < total ? <span>{formatCount(loaded)} loaded</span> : null}
      {newSince !== null ? <span className={newSince > 0 ? 'activity-stats__new' : undefined}>{formatCount(newSince)} new since verification</span> : null}
      {verifiedAt ? <span>verified {formatLocalTime(verifiedAt)}</span> : null}
    </p>
  );
}

/** The audit log, live: the one place to see everything any agent here has done. */
export function ActivityPage() {
  const entries = useCockpit((s) => s.audit.entries);
  const total = useCockpit((s) => s.audit.total);
  const status = useCockpit((s) => s.audit.status);
  const hasMore = useCockpit((s) => s.audit.hasMore);
  const loadingMore = useCockpit((s) => s.audit.loadingMore);
  const error = useCockpit((s) => s.audit.error);
  const { loadOlderAudit } = useCockpitActions();

  return (
    <section className="page page--activity" aria-labelledby="page-Activity">
      <header className="activity-header">
        <div>
          <h1 id="page-Activity">Activity</h1>
          <p className="page__lead">Every decision recorded in the hash-chained audit log, newest first, as it happens.</p>
        </div>
        <ChainBadge />
      </header>
      <ActivityStats />
      {error ? (
        <p role="alert" className="notice notice--error">
          Could not load the audit log: {error}
        </p>
      ) : null}
      {entries.length === 0 && status === 'loading' ? <p className="activity-empty">Loading the audit log…</p> : null}
      {entries.length === 0 && status === 'ready' ? <p className="activity-empty">No audit entries yet.</p> : null}
      <AuditList entries={entries} total={total} hasMore={hasMore} loadingMore={loadingMore} onNearEnd={loadOlderAudit} />
      {loadingMore ? <p className="activity-more">Loading older entries…</p> : null}
    </section>
  );
}
