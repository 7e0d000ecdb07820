import type { WorkItem } from '../../src-shared/silas/work.js';
import type { SecretStore } from '../keys/secret-store.js';
import type { PlanApprovals } from '../silas/work/plan-approvals.js';
import { RecordingAuditLog } from '../silas/executor/audit.js';
import { createSandboxedExecutor } from '../silas/executor/compose.js';
import type { WorkItemExecutor } from '../silas/executor/executor.js';
import type { ExecutorAgent } from '../silas/executor/types.js';
import type { SandboxManager } from '../sandbox/index.js';
import type { SqliteWorkItemStore } from '../silas/store/work-item-store.js';
import { openHome } from './home.js';

/** What `silas run` works with: one home's ledger and the sandboxed executor on its connection. */
export interface RunSession {
  /** Remembers the ids of this run's entries, for `--json` and the summary. */
  audit: RecordingAuditLog;
  executor: WorkItemExecutor;
  approvals: PlanApprovals;
  store: SqliteWorkItemStore;
  /** This run's entry ids that were committed: an entry of a rolled-back transaction names nothing. */
  committedIds(): string[];
  close(): void;
}

export interface RunSessionOptions {
  secretStore: SecretStore;
  /** The one work directory of this run. */
  workDir: string;
  /** The agent of one work item; it records what it does (its model calls) in the run's ledger. */
  agent: (item: WorkItem, audit: RecordingAuditLog) => ExecutorAgent;
  /** Tests swap in a sandbox whose bubblewrap is missing. */
  sandboxManager?: SandboxManager;
}

/**
 * Composition of `silas run` (docs/architecture.md §3: commands stay thin, app/ composes). Always
 * the keyring: the run is recorded in the ledger, and only the keyring's owner key may authorise
 * it. A tampered home (a foreign key among the owner keys) throws `LedgerTampered`, audited,
 * before anything runs.
 */
export function openRunSession(home: string, options: RunSessionOptions): RunSession {
  const ledger = openHome(home, { create: false, keys: 'signer', secretStore: options.secretStore });
  try {
    const audit = new RecordingAuditLog(ledger.audit);
    const trusted = ledger.trustedKeys();
    const { executor, approvals, store } = createSandboxedExecutor(
      { db: ledger.db, audit, signer: ledger.signer ?? undefined, trustedKeys: () => trusted, workDir: options.workDir, sandboxManager: options.sandboxManager },
      { agentFor: (item) => options.agent(item, audit) },
    );
    return { audit, executor, approvals, store, committedIds: () => ledger.committed(audit.ids()), close: () => ledger.close() };
  } catch (error) {
    ledger.close();
    throw error;
  }
}
