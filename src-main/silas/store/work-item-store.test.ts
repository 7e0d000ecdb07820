import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { approvalCanonicalPayload } from '../../../src-shared/silas/approval.js';
import { WorkItemStatus, emptyBudgetUsed, type BudgetUsed, type WorkItem, type WorkItemType } from '../../../src-shared/silas/work.js';
import { SqliteAuditLog, type AuditLog } from '../../audit/audit-log.js';
import { AuditRepository } from '../../store/repositories/audit-repository.js';
import { openDatabase } from '../../store/database.js';
import { createTestLedger, type TestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { ApprovalEngine } from '../../approval/engine.js';
import { PlanApprovals } from '../work/plan-approvals.js';
import { planHash, spawnPolicyHash } from '../work/hashes.js';
import { parsePlan } from '../work/plan-parser.js';
import { MAX_VERIFICATION_HISTORY, SqliteWorkItemStore, transitionRefusal } from './work-item-store.js';
import { sqliteConnection } from '../../store/transaction.js';

const tempDir = useTempDirs('silas-work-store-');
const FIXTURES = join(import.meta.dirname, '../work/fixtures');
const T0 = new Date('2026-03-01T10:00:00.000Z');

function fixture(name: string): WorkItem {
  return parsePlan(readFileSync(join(FIXTURES, name), 'utf8'), { file: name, now: () => T0 });
}

function setup(audit?: Pick<AuditLog, 'appendBatch'>) {
  const ledger = createTestLedger(tempDir());
  const store = new SqliteWorkItemStore({ db: ledger.db, audit: audit ?? ledger.audit, now: () => T0 });
  const engine = new PlanApprovals(new ApprovalEngine({ db: ledger.db, audit: ledger.audit, signer: ledger.signer }));
  return { ledger, store, engine };
}

function events(ledger: TestLedger, name: string): Record<string, unknown>[] {
  return (ledger.db.prepare('SELECT data FROM audit_entries WHERE event = ? ORDER BY idx').all(name) as { data: string }[]).map((r) => JSON.parse(r.data));
}

function auditCount(ledger: TestLedger): number {
  return (ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_entries').get() as { n: number }).n;
}

function task(id = 'task-1', extra: Record<string, unknown> = {}): WorkItem {
  return parsePlan(`---\nid: ${id}\ntype: task\ntitle: A task\n---\nDo it.\n`, { now: () => T0, ...extra });
}

const used = (patch: Partial<BudgetUsed> = {}): BudgetUsed => ({ ...emptyBudgetUsed(), ...patch });

/** Edits the database file the way another program would. */
function tamper(ledger: TestLedger, sql: string): void {
  const db = new Database(ledger.file);
  db.exec(sql);
  db.close();
}

describe('SqliteWorkItemStore: save and load', () => {
  it('round-trips every §13 example plan unchanged, plan hash included, and audits each save', () => {
    const { ledger, store } = setup();
    const names = readdirSync(FIXTURES).filter((name) => name.endsWith('.md'));
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) {
      const item = fixture(name);
      expect(store.save(item)).toEqual(item);
      const loaded = store.get(item.id)!;
      expect(loaded).toEqual(item);
      expect(planHash(loaded)).toBe(planHash(item));
    }
    const saved = events(ledger, 'silas.work_item.saved');
    expect(saved).toHaveLength(names.length);
    expect(saved[0]).toMatchObject({ created: true, status: 'pending', approval_token_id: null });
    expect(ledger.audit.verifyChain().valid).toBe(true);
  });

  it('keeps the approval token as JSON with its base64 signature, and the loaded token still verifies', () => {
    const { ledger, store, engine } = setup();
    const item = fixture('spec-13-1-fix-bug.md');
    store.save(item);
    const issued = engine.issueToken(item, { verdict: 'approved' });
    const verified = engine.verify(issued, item);
    expect(verified.ok).toBe(true);
    if (!verified.ok) return;
    store.attachApprovalToken(item.id, verified.token);

    // The row holds the wire form: the signature as the base64 text, the mutable counters too.
    const raw = ledger.db.prepare('SELECT item_json FROM silas_work_items WHERE id = ?').get(item.id) as { item_json: string };
    const stored = JSON.parse(raw.item_json).approval_token;
    expect(stored.signature).toBe(issued.signature);
    expect(stored.signature).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(stored.executions_used).toBe(1);
    expect(stored.execution_nonces).toEqual(verified.token.execution_nonces);

    // Another connection (another process) loads it back; the signature checks over the canonical payload.
    const other = new SqliteWorkItemStore({ db: openDatabase(ledger.file, { create: false }).db, audit: ledger.reopen() });
    const loaded = other.get(item.id)!;
    expect(loaded.approval_token).toEqual(verified.token);
    const signature = Buffer.from(loaded.approval_token!.signature, 'base64');
    expect(ledger.signer.verify(Buffer.from(approvalCanonicalPayload(loaded.approval_token!), 'utf8'), signature)).toBe(true);
    expect(engine.check(loaded.approval_token, loaded)).toEqual({ ok: true, reason: 'Valid' });
    expect(events(ledger, 'silas.work_item.approval_attached')).toEqual([
      expect.objectContaining({ work_item_id: item.id, token_id: issued.token_id, scope: 'full_plan', executions_used: 1 }),
    ]);
  });

  it('accepts a goal standing token on the task it spawned, and refuses a token addressed elsewhere', () => {
    const { store, engine } = setup();
    const goal = fixture('spec-13-4-health-monitor.md');
    store.save(goal);
    const standing = engine.issueToken(goal, { verdict: 'approved' }, { scope: 'standing', maxExecutions: 5 });
    expect(standing.conditions.spawn_policy_hash).toBe(spawnPolicyHash(goal));
    store.attachApprovalToken(goal.id, standing);
    const fix = task('goal-health-monitor-fix-1', { parent: { id: goal.id, skills: [] } });
    store.save(fix);
    expect(store.attachApprovalToken(fix.id, standing).approval_token?.token_id).toBe(standing.token_id);

    const other = task('task-other');
    store.save(other);
    expect(() => store.attachApprovalToken(other.id, standing)).toThrow(/approval_token.work_item_id: the token approves goal-health-monitor, not task-other/);
    const forOther = engine.issueToken(task('task-elsewhere'), { verdict: 'approved' });
    expect(() => store.attachApprovalToken(other.id, forOther)).toThrow(expect.objectContaining({ code: 'E_WORK_ITEM_INVALID' }));
  });

  it('refuses to save an edited plan while it carries the old approval, and audits a plan change once detached', () => {
    const { ledger, store, engine } = setup();
    const item = task();
    store.save(item);
    const approved = store.attachApprovalToken(item.id, engine.issueToken(item, { verdict: 'approved' }));
    const edited = { ...approved, body: 'Do something else.' };
    expect(() => store.save(edited)).toThrow(/approval_token.plan_hash: .*an edited plan needs a new approval/);
    expect(store.get(item.id)!.body).toBe('Do it.');

    store.save({ ...edited, approval_token: null });
    expect(events(ledger, 'silas.work_item.plan_changed')).toEqual([{ work_item_id: item.id, previous_plan_hash: planHash(item), plan_hash: planHash({ ...item, body: 'Do something else.' }) }]);
  });

  it('refuses invalid items naming the field, and new items that do not start pending', () => {
    const { store } = setup();
    expect(() => store.save({ ...task(), budget: { max_tokens: 0 } } as unknown as WorkItem)).toThrow(/cannot save work item: budget.max_tokens: expected a positive integer/);
    expect(() => store.save({ ...task(), status: 'done' })).toThrow(expect.objectContaining({ code: 'E_WORK_ITEM_TRANSITION', message: expect.stringContaining('starts as pending') }));
    expect(store.get('task-1')).toBeNull();
    expect(store.get('../etc/passwd')).toBeNull();
  });

  it('lists by status, by parent and by follow-up, oldest first', () => {
    const ledger = createTestLedger(tempDir());
    let clock = T0.getTime();
    const store = new SqliteWorkItemStore({ db: ledger.db, audit: ledger.audit });
    const at = () => new Date((clock += 1000)).toISOString();
    const project = { ...fixture('spec-13-5-deploy-project.md'), created_at: at() };
    store.save(project);
    for (const id of ['task-run-tests', 'task-build-image']) store.save({ ...task(id, { parent: { id: project.id, skills: [] } }), created_at: at() });
    store.save({ ...task('task-loose'), created_at: at() });
    store.save({ ...task('task-deeper'), follow_up_of: 'task-loose', created_at: at() });
    store.updateStatus('task-build-image', 'running', used(), { attempts: 1 });

    expect(store.listByParent(project.id).map((i) => i.id)).toEqual(['task-run-tests', 'task-build-image']);
    expect(store.listByStatus('pending').map((i) => i.id)).toEqual([project.id, 'task-run-tests', 'task-loose', 'task-deeper']);
    expect(store.listByStatus('running').map((i) => i.id)).toEqual(['task-build-image']);
    expect(store.listFollowUps('task-loose').map((i) => i.id)).toEqual(['task-deeper']);
    expect(store.listByParent('nobody')).toEqual([]);
    expect(() => store.listByStatus('finished' as WorkItemStatus)).toThrow(/status: expected one of: pending, running/);
  });
});

describe('SqliteWorkItemStore: status, budget and results', () => {
  it('updates status and budget atomically with one audit entry, appending verification runs', () => {
    const { ledger, store } = setup();
    store.save(task());
    const before = auditCount(ledger);
    const run = [{ name: 'tests_pass', passed: false, reason: 'Exit code 1, expected 0', output: 'secret-ish output', exit_code: 1 }];
    const item = store.updateStatus('task-1', 'running', used({ tokens: 120, attempts: 1 }), { attempts: 1, verificationResults: run, reason: 'attempt 1' });
    expect(item).toMatchObject({ status: 'running', attempts: 1, budget_used: used({ tokens: 120, attempts: 1 }), verification_results: run });
    expect(store.get('task-1')).toEqual(item);
    expect(auditCount(ledger)).toBe(before + 1);
    const [entry] = events(ledger, 'silas.work_item.status_changed');
    expect(entry).toEqual({
      work_item_id: 'task-1',
      from: 'pending',
      to: 'running',
      attempts: 1,
      budget_used: used({ tokens: 120, attempts: 1 }),
      reason: 'attempt 1',
      verification: [{ name: 'tests_pass', passed: false }],
    });
    expect(JSON.stringify(entry)).not.toContain('secret-ish');
  });

  it('records the WorkItemResult with the final status and returns it on read', () => {
    const { ledger, store } = setup();
    store.save(task());
    store.updateStatus('task-1', 'running', used({ attempts: 1 }), { attempts: 1 });
    const result = {
      work_item_id: 'task-1',
      status: 'done' as const,
      summary: 'Fixed.',
      last_error: null,
      verification_results: [{ name: 'tests_pass', passed: true }],
      budget_used: used({ attempts: 1, tokens: 900 }),
      artifacts: { patch: 'diff --git' },
      next_steps: [],
    };
    const item = store.recordResult(result, result.verification_results);
    expect(item.status).toBe('done');
    expect(item.verification_results).toEqual([{ name: 'tests_pass', passed: true }]);
    expect(store.getResult('task-1')).toEqual(result);
    expect(events(ledger, 'silas.work_item.result_recorded')).toEqual([
      { work_item_id: 'task-1', status: 'done', summary: 'Fixed.', last_error: null, verification: [{ name: 'tests_pass', passed: true }], artifacts: ['patch'] },
    ]);
    expect(() => store.recordResult({ ...result, work_item_id: 'task-2' })).toThrow(/no work item task-2/);
    expect(() => store.updateStatus('task-1', 'done', used({ attempts: 1, tokens: 900 }), { result: { ...result, status: 'failed' } })).toThrow(/result.status is failed/);
  });

  it('decides transitions by type: done is final, healthy is for goals, a failed task is re-queued, a failed goal runs its next cycle', () => {
    const allowed = (type: WorkItemType, from: WorkItemStatus, to: WorkItemStatus) => transitionRefusal(type, from, to) === null;
    expect(allowed('task', 'pending', 'running')).toBe(true);
    expect(allowed('task', 'running', 'running')).toBe(true);
    expect(allowed('task', 'running', 'done')).toBe(true);
    expect(allowed('task', 'pending', 'blocked')).toBe(true);
    expect(allowed('task', 'blocked', 'running')).toBe(true);
    expect(allowed('task', 'stuck', 'pending')).toBe(true);
    expect(allowed('task', 'failed', 'pending')).toBe(true);
    expect(allowed('goal', 'healthy', 'running')).toBe(true);
    expect(allowed('goal', 'failed', 'running')).toBe(true);
    expect(allowed('goal', 'pending', 'healthy')).toBe(true);

    expect(transitionRefusal('task', 'done', 'running')).toBe('a task cannot go from done to running');
    expect(transitionRefusal('task', 'done', 'done')).toBe('task is already done; done is final');
    expect(transitionRefusal('task', 'pending', 'done')).toBe('a task cannot go from pending to done');
    expect(transitionRefusal('task', 'running', 'healthy')).toBe('only goals become healthy; a task finishes as done');
    expect(transitionRefusal('goal', 'running', 'done')).toMatch(/a goal never becomes done/);
    expect(transitionRefusal('task', 'failed', 'running')).toMatch(/re-queue it as pending/);
    expect(transitionRefusal('project', 'stuck', 'running')).toBe('a project cannot go from stuck to running');
    for (const status of WorkItemStatus.options) expect(allowed('task', 'done', status)).toBe(false);
  });

  it('refuses nonsense changes and leaves the row and the ledger untouched', () => {
    const { ledger, store } = setup();
    store.save(task());
    store.updateStatus('task-1', 'running', used({ tokens: 500, attempts: 1 }), { attempts: 1, verificationResults: [{ name: 'a', passed: false }] });
    const row = () => ledger.db.prepare('SELECT * FROM silas_work_items').get();
    const snapshot = row();
    const count = auditCount(ledger);
    const refusals: Array<[() => unknown, RegExp]> = [
      [() => store.updateStatus('task-1', 'healthy', used({ tokens: 500, attempts: 1 })), /only goals become healthy/],
      [() => store.updateStatus('task-1', 'running', used({ tokens: 100, attempts: 1 })), /budget_used.tokens cannot go down \(500 → 100\)/],
      [() => store.updateStatus('task-1', 'running', used({ tokens: 500, attempts: 1 }), { attempts: 0 }), /attempts cannot go down/],
      [() => store.save({ ...store.get('task-1')!, verification_results: [] }), /verification_results is a history/],
      [() => store.save({ ...store.get('task-1')!, status: 'pending' }), /cannot go from running to pending/],
      [() => store.save({ ...store.get('task-1')!, type: 'project' }), /type of task-1 cannot change/],
      [() => store.updateStatus('task-1', 'bogus' as WorkItemStatus, used()), /status: expected one of/],
      [() => store.updateStatus('task-1', 'running', { ...used(), tokens: -1 }), /budget_used.tokens/],
      [() => store.updateStatus('task-9', 'running', used()), /no work item task-9/],
    ];
    for (const [attempt, message] of refusals) expect(attempt).toThrow(message);
    expect(row()).toEqual(snapshot);
    expect(auditCount(ledger)).toBe(count);

    store.updateStatus('task-1', 'done', used({ tokens: 600, attempts: 1 }));
    expect(() => store.updateStatus('task-1', 'running', used({ tokens: 600, attempts: 1 }))).toThrow(expect.objectContaining({ code: 'E_WORK_ITEM_TRANSITION' }));
  });

  it('writes nothing when the audit entry cannot be written (the row and its entry commit together)', () => {
    const ledger = createTestLedger(tempDir());
    let broken = false;
    const audit: Pick<AuditLog, 'appendBatch'> = {
      appendBatch: (items) => {
        if (broken) throw new Error('disk full');
        return ledger.audit.appendBatch(items);
      },
    };
    const store = new SqliteWorkItemStore({ db: ledger.db, audit });
    store.save(task());
    broken = true;
    expect(() => store.updateStatus('task-1', 'running', used({ attempts: 1 }), { attempts: 1 })).toThrow('disk full');
    expect(() => store.save(task('task-2'))).toThrow('disk full');
    broken = false;
    expect(store.get('task-1')!.status).toBe('pending');
    expect(store.get('task-2')).toBeNull();
  });

  it('keeps the most recent verification results when the history grows past its cap', () => {
    const { ledger, store } = setup();
    store.save(task());
    const runs = Array.from({ length: MAX_VERIFICATION_HISTORY + 20 }, (_, i) => ({ name: `check-${i}`, passed: true }));
    const item = store.updateStatus('task-1', 'running', used(), { verificationResults: runs });
    expect(item.verification_results).toHaveLength(MAX_VERIFICATION_HISTORY);
    expect(item.verification_results[0]).toEqual({ name: 'check-20', passed: true });
    expect(store.get('task-1')).toEqual(item);
    // The ledger summary covers the appended run (first 100 names).
    expect(events(ledger, 'silas.work_item.status_changed')[0]!.verification).toHaveLength(100);
  });
});

describe('SqliteWorkItemStore: rows edited outside Silas', () => {
  function approvedItem() {
    const s = setup();
    const item = fixture('spec-13-1-fix-bug.md');
    s.store.save(item);
    const verified = s.engine.verify(s.engine.issueToken(item, { verdict: 'approved' }), item);
    if (!verified.ok) throw new Error(verified.reason);
    s.store.attachApprovalToken(item.id, verified.token);
    return { ...s, item };
  }

  const cases: Array<[string, string, RegExp]> = [
    ['an invalid budget', `json_set(item_json, '$.budget.max_tokens', -5)`, /budget.max_tokens: expected a positive integer/],
    ['a mangled signature', `json_set(item_json, '$.approval_token.signature', 'not base64!')`, /approval_token.signature: must be the standard base64/],
    ['an unknown field', `json_set(item_json, '$.sudo', json('true'))`, /\(item\): Unrecognized key: "sudo"/],
    ['a changed status only in the document', `json_set(item_json, '$.status', 'done')`, /status: the row says "pending" but the stored item says "done"/],
    ['an edited briefing (valid, but the plan hash no longer matches)', `json_set(item_json, '$.body', 'rm -rf /')`, /plan_hash: the plan was changed in the database/],
    ['a removed verification check', `json_set(item_json, '$.verify', json('[]'))`, /plan_hash: the plan was changed in the database/],
  ];

  for (const [what, expression, message] of cases) {
    it(`refuses ${what} on read, naming the field, and audits the refusal`, () => {
      const { ledger, store, item } = approvedItem();
      tamper(ledger, `UPDATE silas_work_items SET item_json = ${expression} WHERE id = '${item.id}'`);
      expect(() => store.get(item.id)).toThrow(expect.objectContaining({ code: 'E_WORK_ITEM_CORRUPT', message: expect.stringMatching(message) }));
      expect(() => store.listByStatus('pending')).toThrow(message);
      expect(() => store.updateStatus(item.id, 'running', used(), { attempts: 1 })).toThrow(message);
      const refusals = events(ledger, 'silas.work_item.corrupt');
      expect(refusals).toHaveLength(3);
      expect(refusals[0]).toMatchObject({ work_item_id: item.id });
      expect(ledger.audit.verifyChain().valid).toBe(true);
    });
  }

  it('refuses a changed status column that disagrees with the document', () => {
    const { ledger, store, item } = approvedItem();
    tamper(ledger, `UPDATE silas_work_items SET status = 'done' WHERE id = '${item.id}'`);
    expect(() => store.get(item.id)).toThrow(/status: the row says "done" but the stored item says "pending"/);
  });

  it('passes a well-formed but forged signature to the approval engine, which refuses it', () => {
    const { ledger, store, engine, item } = approvedItem();
    const forged = Buffer.alloc(64, 7).toString('base64');
    tamper(ledger, `UPDATE silas_work_items SET item_json = json_set(item_json, '$.approval_token.signature', '${forged}') WHERE id = '${item.id}'`);
    const loaded = store.get(item.id)!;
    expect(loaded.approval_token!.signature).toBe(forged);
    expect(engine.check(loaded.approval_token, loaded)).toMatchObject({ ok: false, code: 'E_APPROVAL_SIGNATURE' });
  });

  it('refuses an audit log on another connection instead of writing without it (fails closed, nothing written)', () => {
    const ledger = createTestLedger(tempDir());
    const otherConnection = openDatabase(ledger.file, { create: false }).db;
    sqliteConnection(otherConnection).pragma('busy_timeout = 50');
    const foreign = new SqliteAuditLog({ repository: new AuditRepository(otherConnection), keys: ledger.keys });
    const store = new SqliteWorkItemStore({ db: ledger.db, audit: foreign });
    // The second connection waits for the first's write lock; SQLite gives up with SQLITE_BUSY.
    expect(() => store.save(task())).toThrow(/locked|busy/i);
    expect(store.get('task-1')).toBeNull();
    sqliteConnection(otherConnection).close();
  });
});
