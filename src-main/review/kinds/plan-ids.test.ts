import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src-shared/errors.js';
import { emptyBudgetUsed } from '../../../src-shared/silas/work.js';
import { openHome } from '../../app/home.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import type { Runtime } from '../../app/types.js';
import { ControlSocketPlanApprover } from '../../control/socket-asker.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { SqliteWorkItemStore } from '../../silas/store/work-item-store.js';
import { planHash } from '../../silas/work/hashes.js';
import { parsePlan } from '../../silas/work/plan-parser.js';
import { useTempDirs } from '../../testing/temp.js';

// `plans.requestApproval` with a plan whose id already ran to done in this home
// (docs/silas/store-and-cli.md "Plan ids"): refused before a card is queued, in the person's words,
// because the executor would refuse the plan after the person signed it.
const tempDir = useTempDirs('silas-plan-ids-');
let runtime: Runtime | null = null;

afterEach(async () => {
  await runtime?.stop('test');
  runtime = null;
});

const item = parsePlan('---\nid: task-greeting\ntype: task\ntitle: Write the greeting\n---\nWrite hello.txt.\n');
const args = { item, planHash: planHash(item), source: '/plans/greeting.md', timeoutMs: 60_000 };

/** The greeting already ran to done in this home, recorded by another process on the same ledger (as `silas run` does). */
function alreadyDone(home: string, keyring: MemorySecretStore): void {
  const ledger = openHome(home, { create: false, keys: 'signer', secretStore: keyring });
  try {
    const store = new SqliteWorkItemStore({ db: ledger.db, audit: ledger.audit });
    store.save(item);
    store.updateStatus(item.id, 'running', emptyBudgetUsed());
    store.updateStatus(item.id, 'done', emptyBudgetUsed());
  } finally {
    ledger.close();
  }
}

async function start(): Promise<{ runtime: Runtime; home: string }> {
  const home = join(tempDir(), 'home');
  const keyring = new MemorySecretStore();
  runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: keyring, logger: silentLogger });
  await runtime.start();
  alreadyDone(home, keyring);
  return { runtime, home };
}

/** The answer, or `queued` if a card reached Review first. */
function answerOrQueued<T>(r: Runtime, answer: Promise<T>): Promise<{ answer: T } | 'queued'> {
  const queued = new Promise<'queued'>((resolve) => {
    const poll = setInterval(() => {
      if (r.decisions.pendingCount() > 0) {
        clearInterval(poll);
        resolve('queued');
      }
    }, 5);
    void answer.finally(() => clearInterval(poll));
  });
  return Promise.race([answer.then((value) => ({ answer: value })), queued]);
}

describe('plans.requestApproval with an id that already ran to done', () => {
  it('is refused through the router before anything is queued, naming the id and the fix', async () => {
    const { runtime: r } = await start();
    const first = await answerOrQueued(r, r.router.dispatch('plans.requestApproval', args, { transport: 'local-socket' }));
    expect(first).toEqual({
      answer: { ok: false, error: { code: ErrorCode.Conflict, message: 'item.id: task-greeting already ran to done in this home, and a finished work item never runs again; give the plan a new id and ask again' } },
    });
    expect(r.decisions.pendingCount()).toBe(0);
    const events = r.audit.tail(50).map((entry) => entry.event);
    expect(events).toContain('silas.plan_approval.refused_unrunnable');
    expect(events).not.toContain('silas.plan_approval.requested');
  });

  it('an asker over the local socket gets a "no" in words, not a broken connection', async () => {
    const { runtime: r, home } = await start();
    const approver = new ControlSocketPlanApprover(home);
    try {
      const first = await answerOrQueued(r, approver.request(args));
      expect(first).toEqual({ answer: { outcome: 'deny', reason: expect.stringContaining('task-greeting already ran to done in this home') } });
      expect(JSON.stringify(first)).not.toContain('E_WORK_ITEM_STORE');
      expect(JSON.stringify(first)).not.toContain('stopped answering');
    } finally {
      approver.close();
    }
  });

  it('a plan with a fresh id is still asked about', async () => {
    const { runtime: r } = await start();
    const fresh = parsePlan('---\nid: task-greeting-2\ntype: task\ntitle: Write the greeting\n---\nWrite hello.txt.\n');
    const answer = r.router.dispatch('plans.requestApproval', { ...args, item: fresh, planHash: planHash(fresh) }, { transport: 'local-socket' });
    await expect.poll(() => r.decisions.pendingCount()).toBe(1);
    const listed = (await r.router.dispatch('review.list', {}, { transport: 'websocket' })) as { ok: true; value: { cards: { id: string; details: { workItemId?: string } }[] } };
    expect(listed.value.cards[0]!.details.workItemId).toBe('task-greeting-2');
    await r.router.dispatch('review.decide', { id: listed.value.cards[0]!.id, choice: 'deny' }, { transport: 'websocket' });
    await expect(answer).resolves.toMatchObject({ ok: true, value: { outcome: 'deny' } });
  });
});
