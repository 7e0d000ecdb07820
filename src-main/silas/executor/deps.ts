import type { SandboxConfigInput } from '../../../src-shared/silas/execution.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { NonceStore } from '../../store/repositories/nonce-store.js';
import type { GateRunner } from '../gates/runner.js';
import type { PlanApprover } from './plan-approver.js';
import type { EphemeralExecutor } from '../../sandbox/ephemeral-executor.js';
import type { WorkItemStore } from '../store/work-item-store.js';
import type { ApprovalPort } from './gate-approval.js';
import type { ToolRegistry } from './tools.js';
import type { ExecutorAgent, ExecutorAuditSink, GateApprovalRequester, PlannerConsultant, Verifier } from './types.js';

/**
 * Constructor dependencies of the WorkItemExecutor (spec 002 §5.2: key manager and approval engine
 * → `approvals` + `approvalKeys`, nonce store, executor registry → `tools` + `ephemeral`, gate
 * runner, verification runner → `verifierFor`, planner, audit, channel → the approvers, work item
 * store). The skill resolver is not here yet: skills arrive with the skill loader.
 */
export interface ExecutorDeps {
  /** verify (consuming), check (non-consuming) and issueToken; the engine audits each. */
  approvals: ApprovalPort;
  /** Trusted owner public keys by fingerprint, for the non-consuming check of a goal's standing token. */
  approvalKeys: () => ReadonlyMap<string, Uint8Array>;
  /** Records one execution per approval and plan (domain `run`), so `check` cannot be replayed. */
  nonces: NonceStore;
  store: WorkItemStore;
  gates: Pick<GateRunner, 'compile' | 'checkGates'>;
  /** `gates.system` from config: evaluated before the work item's own gates. */
  systemGates?: readonly unknown[];
  /** Runs tool calls in the sandbox (SandboxedEphemeralExecutor). */
  ephemeral: EphemeralExecutor;
  tools?: ToolRegistry;
  /** A verification runner for a work directory: its own sandbox, work dir read-only (§4.10). */
  verifierFor: (workDir: string) => Verifier;
  /** The host directory a work item's tool calls and checks run in. */
  workDirFor: (item: WorkItem) => string;
  /** The agent that works on a task (the scripted agent now, LLM agents later). */
  agentFor: (item: WorkItem) => ExecutorAgent;
  /** Read-only paths and environment for tool calls; `network_access` is always false here. */
  sandbox?: Omit<SandboxConfigInput, 'work_dir' | 'network_access'>;
  planner?: PlannerConsultant;
  /** Interactive approval of a spawned fix task or project task without a valid approval. */
  planApprover?: PlanApprover;
  /** Answers `require_approval` gate results on tool calls and steps. */
  gateApprover?: GateApprovalRequester;
  audit: ExecutorAuditSink;
  now?: () => Date;
  /** Ids of spawned fix tasks and executions; tests make them deterministic. */
  newId?: () => string;
  limits?: Partial<ExecutorLimits>;
}

export interface ExecutorLimits {
  maxToolCallsPerAttempt: number;
  /** Upper bound of one tool call (the envelope default of §3.7); the remaining wall time lowers it. */
  toolTimeoutSeconds: number;
  maxOutputBytes: number;
  /** How long an interactive approval (fix task, project task) may wait. */
  approvalTimeoutMs: number;
}

export const DEFAULT_LIMITS: ExecutorLimits = {
  maxToolCallsPerAttempt: 200,
  toolTimeoutSeconds: 300,
  maxOutputBytes: 100_000,
  approvalTimeoutMs: 10 * 60_000,
};

/** The nonce-store domain of execution claims: one execution per (approval, plan hash). */
export const RUN_NONCE_DOMAIN = 'run';
