import type { SqliteDatabase } from '../../store/transaction.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import { ApprovalEngine } from '../../approval/engine.js';
import { PlanApprovals } from '../work/plan-approvals.js';
import { SqliteNonceStore } from '../../store/repositories/nonce-store.js';
import { ContentGateProvider } from '../gates/content-provider.js';
import { PredicateGateProvider } from '../gates/predicate-provider.js';
import type { GateCheckProvider } from '../gates/provider.js';
import { GateRunner } from '../gates/runner.js';
import { BubblewrapSandboxManager, SandboxedEphemeralExecutor, type SandboxManager } from '../../sandbox/index.js';
import { SqliteWorkItemStore } from '../store/work-item-store.js';
import { VerificationRunner } from '../verify/index.js';
import type { ExecutorDeps } from './deps.js';
import { WorkItemExecutor } from './executor.js';

export interface ExecutorOnLedgerOptions {
  /** The ledger's connection: approvals, the store and the audit chain commit together on it. */
  db: SqliteDatabase;
  /** Must write through `db` (the engine's and the store's transactions include their entries). */
  audit: Pick<AuditLog, 'append' | 'appendBatch'>;
  /** Needed to sign (terminal approvals, batch tokens); verification needs only `trustedKeys`. */
  signer?: OwnerSigner;
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  /** The one work directory of this run (the CLI's --workdir). */
  workDir: string;
  /** Extra gate providers (an LLM judge, a sandboxed script provider…); predicate and content are built in. */
  gateProviders?: readonly GateCheckProvider[];
  sandboxManager?: SandboxManager;
  now?: () => Date;
}

/**
 * The executor wired on a real ledger: approval engine, nonce store, work item store, gate runner,
 * bubblewrap sandbox and verification runner, everything auditing through `audit`. Used by
 * `silas run`; the runtime composes the same pieces with its own approvers and agents.
 *
 * No `script` gate provider is registered: it runs commands on the host with the work directory as
 * its scripts directory, which the agent can write. A plan with a script gate is therefore blocked
 * ("No provider: script") until a provider with a read-only scripts directory is passed in.
 */
export function createSandboxedExecutor(
  options: ExecutorOnLedgerOptions,
  rest: Pick<ExecutorDeps, 'agentFor'> & Partial<Omit<ExecutorDeps, 'agentFor'>>,
): { executor: WorkItemExecutor; engine: ApprovalEngine; approvals: PlanApprovals; store: SqliteWorkItemStore } {
  const engine = new ApprovalEngine({ db: options.db, audit: options.audit, signer: options.signer, trustedKeys: options.trustedKeys, now: options.now });
  const approvals = new PlanApprovals(engine);
  const store = new SqliteWorkItemStore({ db: options.db, audit: options.audit, now: options.now });
  const manager = options.sandboxManager ?? new BubblewrapSandboxManager({ baseDir: options.workDir });
  const providers = [new PredicateGateProvider({ fileRoots: [options.workDir] }), new ContentGateProvider(), ...(options.gateProviders ?? [])];
  const executor = new WorkItemExecutor({
    approvals,
    approvalKeys: options.trustedKeys,
    nonces: new SqliteNonceStore(options.db, options.now),
    store,
    gates: new GateRunner({ providers, audit: options.audit }),
    ephemeral: new SandboxedEphemeralExecutor({ manager }),
    verifierFor: (workDir) => new VerificationRunner({ sandboxManager: manager, workDir }),
    workDirFor: () => options.workDir,
    audit: options.audit,
    now: options.now,
    ...rest,
  });
  return { executor, engine, approvals, store };
}
