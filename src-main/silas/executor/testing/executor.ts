// Shared fixtures for the executor tests: a real SQLite ledger, approval engine, work item store,
// gate runner, bubblewrap sandbox and verification runner, wired as the runtime wires them.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalToken } from '../../../../src-shared/silas/approval.js';
import type { WorkItem } from '../../../../src-shared/silas/work.js';
import { trustedKeys } from '../../../keys/owner-key.js';
import { createTestLedger, type TestLedger } from '../../../testing/ledger.js';
import { ApprovalEngine } from '../../../approval/engine.js';
import { PlanApprovals } from '../../work/plan-approvals.js';
import { SqliteNonceStore } from '../../../store/repositories/nonce-store.js';
import { PredicateGateProvider } from '../../gates/predicate-provider.js';
import { GateRunner } from '../../gates/runner.js';
import { BubblewrapSandboxManager, SandboxedEphemeralExecutor } from '../../../sandbox/index.js';
import { SqliteWorkItemStore } from '../../store/work-item-store.js';
import { VerificationRunner } from '../../verify/index.js';
import { parsePlan } from '../../work/plan-parser.js';
import type { ExecutorDeps } from '../deps.js';
import { WorkItemExecutor } from '../executor.js';
import { ScriptedExecutorAgent, type Script, type ScriptedAgentOptions } from '../scripted-agent.js';
import type { ExecutorAgent } from '../types.js';

const APPROVED = { verdict: 'approved' } as const;

export interface ExecutorFixture {
  ledger: TestLedger;
  engine: PlanApprovals;
  store: SqliteWorkItemStore;
  executor: WorkItemExecutor;
  workDir: string;
  /** The agent every work item gets; tests replace it. */
  agent: ExecutorAgent;
  script(script: Script, options?: ScriptedAgentOptions): void;
  /** Shifts the approval engine's clock (expiry tests). */
  clock: { offsetMs: number };
  /** Issues and verifies (consumes) a single-use approval; returns the item with the token. */
  approve(item: WorkItem): WorkItem;
  issue(item: WorkItem): ApprovalToken;
  events(name: string): Record<string, unknown>[];
  eventNames(prefix?: string): string[];
  count(table: string, where?: string, ...params: unknown[]): number;
}

export function executorFixture(dir: string, overrides: Partial<ExecutorDeps> = {}): ExecutorFixture {
  const ledger = createTestLedger(dir);
  const clock = { offsetMs: 0 };
  const now = () => new Date(Date.now() + clock.offsetMs);
  const engine = new PlanApprovals(new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer, now }));
  const store = new SqliteWorkItemStore({ db: ledger.db, audit: ledger.audit });
  const workDir = join(dir, 'work');
  mkdirSync(workDir, { recursive: true });
  const manager = new BubblewrapSandboxManager({ baseDir: dir });
  const fixture = {
    ledger,
    engine,
    store,
    workDir,
    clock,
    agent: new ScriptedExecutorAgent([]) as ExecutorAgent,
  } as ExecutorFixture;
  const deps: ExecutorDeps = {
    approvals: engine,
    approvalKeys: () => trustedKeys(ledger.signer),
    nonces: new SqliteNonceStore(ledger.db),
    store,
    gates: new GateRunner({ providers: [new PredicateGateProvider({ fileRoots: [workDir] })], audit: ledger.audit }),
    ephemeral: new SandboxedEphemeralExecutor({ manager }),
    verifierFor: (workDirectory) => new VerificationRunner({ sandboxManager: manager, workDir: workDirectory }),
    workDirFor: () => workDir,
    agentFor: () => fixture.agent,
    audit: ledger.audit,
    now,
    limits: { toolTimeoutSeconds: 30 },
    ...overrides,
  };
  fixture.executor = new WorkItemExecutor(deps);
  fixture.script = (script, options) => {
    fixture.agent = new ScriptedExecutorAgent(script, options);
  };
  fixture.issue = (item) => engine.issueToken(item, APPROVED);
  fixture.approve = (item) => {
    const authorized = fixture.executor.authorize(item, fixture.issue(item));
    if (!authorized.ok) throw new Error(`approve ${item.id}: ${authorized.code}: ${authorized.reason}`);
    return authorized.item;
  };
  fixture.events = (name) =>
    (ledger.db.prepare('SELECT data FROM audit_entries WHERE event = ? ORDER BY idx').all(name) as { data: string }[]).map((r) => JSON.parse(r.data));
  fixture.eventNames = (prefix = '') =>
    (ledger.db.prepare('SELECT event FROM audit_entries ORDER BY idx').all() as { event: string }[]).map((r) => r.event).filter((e) => e.startsWith(prefix));
  fixture.count = (table, where = '1 = 1', ...params) => (ledger.db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...params) as { n: number }).n;
  return fixture;
}

/** A task plan whose front matter lines are `extra` (YAML, already indented). */
export function taskPlan(id: string, extra = '', body = 'Write the greeting file.'): WorkItem {
  return parsePlan(`---\nid: ${id}\ntype: task\ntitle: Task ${id}\n${extra}---\n${body}\n`, { file: `${id}.md` });
}

export const GREETING_CHECK = `verify:
  - name: greeting
    run: cat hello.txt
    expect: { equals: "hello" }
`;

export const sh = (script: string) => ({ tool: 'shell_exec', args: { command: ['sh', '-c', script] } });
export const py = (code: string) => ({ tool: 'python_exec', args: { code } });
