import { describe, expect, it } from 'vitest';
import type { BatchActionItem, BatchProposal } from '../../../src-shared/silas/review.js';
import { useTempDirs } from '../../testing/temp.js';
import { batchHash } from '../work/hashes.js';
import { parsePlan } from '../work/plan-parser.js';
import type { BatchActionHandler, BatchOutcomeRecorder, BatchReviewAnswer } from './batch.js';
import { executorFixture } from './testing/executor.js';

const tempDir = useTempDirs('silas-batch-');

const goal = parsePlan('---\nid: goal-inbox\ntype: goal\ntitle: Inbox zero\nschedule: "0 9 * * *"\n---\nArchive newsletters.\n');

function mails(n: number): BatchActionItem[] {
  return Array.from({ length: n }, (_, i) => ({ item_id: `mail-${i + 1}`, title: `Newsletter ${i + 1}`, actor: 'news@example.com', occurred_at: '2026-03-01T08:00:00Z', reason: 'newsletter', confidence: 0.9 }));
}

function harness(decide: (proposal: BatchProposal, round: number) => BatchReviewAnswer | Promise<BatchReviewAnswer>) {
  const f = executorFixture(tempDir());
  const reviewed: BatchProposal[] = [];
  const applied: { items: string[]; batchHash: string; tokenHash: string }[] = [];
  const recorded: Parameters<BatchOutcomeRecorder['recordOutcome']>[0][] = [];
  const handler: BatchActionHandler = {
    apply: async (request) => {
      applied.push({ items: request.items.map((i) => i.item_id), batchHash: request.batchHash, tokenHash: request.token.plan_hash });
      return { ok: true };
    },
  };
  const run = (candidates: unknown[], batchSize?: number) =>
    f.executor.executeBatches({
      goal,
      action: 'archive',
      candidates,
      batchSize,
      handler,
      reviewer: { review: async (proposal) => (reviewed.push(proposal), decide(proposal, reviewed.length)) },
      recorder: { recordOutcome: (outcome) => recorded.push(outcome) },
    });
  return { f, reviewed, applied, recorded, run };
}

describe('WorkItemExecutor: reviewed batch execution (§5.2.4)', () => {
  it('chunks candidates by the configured size and runs each approved batch under a token bound to its exact items', async () => {
    const h = harness(() => ({ decision: { verdict: 'approve' } }));
    const outcomes = await h.run(mails(25), 10);
    expect(h.reviewed.map((p) => p.items.length)).toEqual([10, 10, 5]);
    expect(outcomes.map((o) => [o.verdict, o.executed_item_ids.length])).toEqual([['approve', 10], ['approve', 10], ['approve', 5]]);
    for (const [index, batch] of h.applied.entries()) {
      const expected = batchHash({ goal_id: 'goal-inbox', action: 'archive', item_ids: batch.items });
      expect(batch.batchHash).toBe(expected);
      expect(batch.tokenHash).toBe(expected);
      expect(outcomes[index]!.batch_hash).toBe(expected);
    }
    expect(h.f.events('silas.approval.consumed').map((e) => e.scope)).toEqual(['connection_act', 'connection_act', 'connection_act']);
    expect(h.recorded.map((r) => r.verdict)).toEqual(['approve', 'approve', 'approve']);
  });

  it('skips a declined batch, and treats a reviewer failure as a decline', async () => {
    const h = harness((_, round) => {
      if (round === 1) return { decision: { verdict: 'decline' } };
      throw new Error('socket closed');
    });
    const outcomes = await h.run(mails(4), 2);
    expect(outcomes.map((o) => o.verdict)).toEqual(['decline', 'decline']);
    expect(h.applied).toEqual([]);
    expect(h.f.events('silas.executor.batch_review_failed')).toHaveLength(1);
  });

  it('re-proposes an edited selection as a new batch that needs its own approval', async () => {
    const h = harness((proposal, round) =>
      round === 1 ? { decision: { verdict: 'edit_selection', selected_item_ids: ['mail-3', 'mail-1'] } } : { decision: { verdict: 'approve' } },
    );
    const outcomes = await h.run(mails(3));
    expect(h.reviewed).toHaveLength(2);
    expect(h.reviewed[1]!.items.map((i) => i.item_id)).toEqual(['mail-1', 'mail-3']);
    expect(h.applied).toEqual([expect.objectContaining({ items: ['mail-1', 'mail-3'] })]);
    expect(outcomes).toEqual([expect.objectContaining({ verdict: 'approve', executed_item_ids: ['mail-1', 'mail-3'] })]);
    expect(outcomes[0]!.batch_hash).not.toBe(batchHash({ goal_id: 'goal-inbox', action: 'archive', item_ids: ['mail-1', 'mail-2', 'mail-3'] }));
    expect(h.recorded.map((r) => [r.verdict, r.selected])).toEqual([['edit_selection', 2], ['approve', 2]]);
  });

  it('refuses an edit that keeps every item or names items outside the batch', async () => {
    const all = harness(() => ({ decision: { verdict: 'edit_selection', selected_item_ids: ['mail-1', 'mail-2'] } }));
    expect(await all.run(mails(2))).toEqual([expect.objectContaining({ verdict: 'invalid', error: expect.stringContaining('strict subset') })]);
    const stranger = harness(() => ({ decision: { verdict: 'edit_selection', selected_item_ids: ['mail-9'] } }));
    expect(await stranger.run(mails(2))).toEqual([expect.objectContaining({ verdict: 'invalid', error: expect.stringContaining('not in batch') })]);
    expect([...all.applied, ...stranger.applied]).toEqual([]);
  });

  it('refuses a reviewer token signed for a different batch and a replayed one', async () => {
    let first: BatchReviewAnswer['token'];
    const h = harness((proposal) => {
      const other = { kind: 'plan', id: 'goal-inbox', hash: batchHash({ goal_id: 'goal-inbox', action: 'archive', item_ids: ['mail-99'] }) };
      if (!first) {
        first = h.f.engine.issueToken({ kind: 'plan', id: 'goal-inbox', hash: batchHash({ goal_id: 'goal-inbox', action: 'archive', item_ids: proposal.items.map((i) => i.item_id) }) }, { verdict: 'approved' }, { scope: 'connection_act' });
        return { decision: { verdict: 'approve' }, token: first };
      }
      return { decision: { verdict: 'approve' }, token: proposal.items[0]!.item_id === 'mail-2' ? h.f.engine.issueToken(other, { verdict: 'approved' }, { scope: 'connection_act' }) : first };
    });
    // Batches of one: [mail-1], [mail-2] (answered with a token for mail-99), [mail-1] again (the first token replayed).
    const [one, two] = mails(2);
    const outcomes = await h.run([one, two, one], 1);
    expect(outcomes.map((o) => o.verdict)).toEqual(['approve', 'approve', 'approve']);
    expect(outcomes.map((o) => o.executed_item_ids)).toEqual([['mail-1'], [], []]);
    expect(outcomes[1]!.error).toContain('E_APPROVAL_PLAN_HASH');
    expect(outcomes[2]!.error).toContain('E_APPROVAL_REPLAY');
    expect(h.applied).toHaveLength(1);
  });

  it('validates candidates and the batch size before proposing anything', async () => {
    const h = harness(() => ({ decision: { verdict: 'approve' } }));
    await expect(h.run([{ item_id: 'x' }])).rejects.toThrow(/candidates\.0\.title/);
    await expect(h.run(mails(1), 0)).rejects.toThrow(/batchSize/);
    expect(h.reviewed).toEqual([]);
  });
});
