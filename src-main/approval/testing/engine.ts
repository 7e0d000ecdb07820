// Shared fixtures for the approval engine's tests and benchmark.
import { createHash } from 'node:crypto';
import { OwnerKeyVault, type OwnerSigner } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { createTestLedger, type TestLedger } from '../../testing/ledger.js';
import { ApprovalEngine, type ApprovalEngineDeps, type ApprovalSubject } from '../engine.js';
import { PlanApprovals } from '../../silas/work/plan-approvals.js';

export const T0 = new Date('2026-03-01T10:00:00.000Z');

export function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function otherSigner(account = 'owner-other'): OwnerSigner {
  return new OwnerKeyVault(new MemorySecretStore(), account).ensure().signer;
}

export interface EngineFixture {
  ledger: TestLedger;
  engine: ApprovalEngine;
  /** The same engine behind the Silas kernel's adapter, for tests that approve work items. */
  plans: PlanApprovals;
  clock: { now: Date };
  advance(ms: number): void;
  events(name: string): Record<string, unknown>[];
  count(table: string): number;
}

export function engineFixture(dir: string, extra: Partial<ApprovalEngineDeps> = {}): EngineFixture {
  const ledger = createTestLedger(dir);
  const clock = { now: T0 };
  const engine = new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer, now: () => clock.now, ...extra });
  return {
    ledger,
    engine,
    plans: new PlanApprovals(engine),
    clock,
    advance: (ms) => (clock.now = new Date(clock.now.getTime() + ms)),
    events: (name) =>
      (ledger.db.prepare('SELECT data FROM audit_entries WHERE event = ? ORDER BY idx').all(name) as { data: string }[]).map((r) => JSON.parse(r.data)),
    count: (table) => (ledger.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n,
  };
}

export const task = (id = 'task-1', planText = 'plan v1'): ApprovalSubject => ({ kind: 'plan', id, hash: hashOf(planText) });

export const POLICY = hashOf('spawn policy v1');

export const goal = (planText = 'goal v1', spawnPolicyHash: string | null = POLICY): ApprovalSubject => ({
  kind: 'plan',
  id: 'goal-1',
  hash: hashOf(planText),
  spawnPolicyHash,
});

export const spawned = (n: number, overrides: Partial<ApprovalSubject> = {}): ApprovalSubject => ({
  kind: 'plan',
  id: `goal-1-fix-${n}`,
  hash: hashOf(`fix task ${n}`),
  parent: 'goal-1',
  spawnPolicyHash: POLICY,
  ...overrides,
});
