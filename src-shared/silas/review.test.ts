import { describe, expect, it } from 'vitest';
import {
  AutonomyThresholdChange,
  AutonomyThresholdProposal,
  BatchActionDecision,
  BatchProposal,
  DecisionOption,
  SuggestionProposal,
  batchBindingFor,
} from './review.js';

const item = (item_id: string, confidence = 0.9) => ({
  item_id,
  title: `Newsletter ${item_id}`,
  actor: 'news@example.com',
  occurred_at: '2026-01-05T09:30:00+01:00',
  reason: 'unread newsletter older than 7 days',
  confidence,
});

const proposal = () =>
  BatchProposal.parse({
    batch_id: 'batch-1',
    goal_id: 'goal-inbox',
    action: 'archive',
    items: [item('m-3', 0.95), item('m-1', 0.8), item('m-2')],
    reason_summary: 'Three stale newsletters',
    confidence_min: 0.8,
    created_at: '2026-01-05T10:00:00.000Z',
  });

describe('BatchProposal', () => {
  it('accepts a well-formed proposal', () => {
    expect(proposal().items.map((i) => i.item_id)).toEqual(['m-3', 'm-1', 'm-2']);
  });

  it('refuses an empty batch, a repeated item, an overstated confidence_min and bad action keys', () => {
    const base = { ...proposal() };
    expect(BatchProposal.safeParse({ ...base, items: [] }).error?.issues[0]?.message).toBe('a batch needs at least one item');
    const repeated = BatchProposal.safeParse({ ...base, items: [item('m-1'), item('m-1')] });
    expect(repeated.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['items.1.item_id', 'item "m-1" appears twice; a batch names each item once']]);
    expect(BatchProposal.safeParse({ ...base, confidence_min: 0.9 }).error?.issues[0]?.message).toBe('confidence_min 0.9 exceeds the lowest item confidence 0.8');
    expect(BatchProposal.safeParse({ ...base, action: 'Archive All' }).success).toBe(false);
    expect(BatchProposal.safeParse({ ...base, items: [item('m-1', 1.5)] }).success).toBe(false);
    expect(BatchProposal.safeParse({ ...base, items: [item('has space')] }).success).toBe(false);
    expect(BatchProposal.safeParse({ ...base, extra: true }).success).toBe(false);
  });
});

describe('BatchActionDecision and the binding it authorises', () => {
  it('requires a non-empty, unique selection for edit_selection', () => {
    expect(BatchActionDecision.safeParse({ verdict: 'edit_selection' }).error?.issues[0]?.path).toEqual(['selected_item_ids']);
    expect(BatchActionDecision.safeParse({ verdict: 'edit_selection', selected_item_ids: ['m-1', 'm-1'] }).success).toBe(false);
  });

  it('drops a selection given with approve or decline, since it is ignored', () => {
    expect(BatchActionDecision.parse({ verdict: 'approve', selected_item_ids: ['m-1'] }).selected_item_ids).toEqual([]);
  });

  it('binds approve to every item in proposal order, and decline to nothing', () => {
    const p = proposal();
    expect(batchBindingFor(p, BatchActionDecision.parse({ verdict: 'approve' }))).toEqual({ goal_id: 'goal-inbox', action: 'archive', item_ids: ['m-3', 'm-1', 'm-2'] });
    expect(batchBindingFor(p, BatchActionDecision.parse({ verdict: 'decline' }))).toBeNull();
  });

  it('binds an edited selection in proposal order, whatever order it was ticked in', () => {
    const decision = BatchActionDecision.parse({ verdict: 'edit_selection', selected_item_ids: ['m-2', 'm-3'] });
    expect(batchBindingFor(proposal(), decision)?.item_ids).toEqual(['m-3', 'm-2']);
  });

  it('refuses a selection naming items outside the proposal', () => {
    const decision = BatchActionDecision.parse({ verdict: 'edit_selection', selected_item_ids: ['m-1', 'm-9'] });
    expect(() => batchBindingFor(proposal(), decision)).toThrow('selected_item_ids: not in batch batch-1: m-9');
  });
});

describe('decision, suggestion and autonomy models', () => {
  it('fixes the approval tier of a decision option to tap', () => {
    expect(DecisionOption.parse({ label: 'Yes', value: 'yes' }).approval_tier).toBe('tap');
    expect(DecisionOption.safeParse({ label: 'Yes', value: 'yes', approval_tier: 'biometric' }).success).toBe(false);
  });

  it('validates suggestion risk levels and sources', () => {
    const suggestion = {
      suggestion_id: 's-1',
      scope_id: 'owner',
      source: 'post_execution',
      intent: 'Archive the remaining newsletters',
      rationale: 'You archived similar ones yesterday',
      risk_level: 'low',
      cooldown_key: 'archive-newsletters',
      created_at: '2026-01-05T10:00:00.000Z',
    };
    expect(SuggestionProposal.parse(suggestion).proposed_work_item_id).toBeNull();
    expect(SuggestionProposal.safeParse({ ...suggestion, risk_level: 'none' }).success).toBe(false);
    expect(SuggestionProposal.safeParse({ ...suggestion, source: 'llm_whim' }).success).toBe(false);
  });

  it('refuses no-op and repeated autonomy changes and out-of-range rates', () => {
    const change = { key: 'standing.max_executions', current_value: '10', proposed_value: '20', direction: 'widen' };
    expect(AutonomyThresholdChange.safeParse({ ...change, proposed_value: '10' }).error?.issues[0]?.message).toBe('proposed_value equals current_value; a change must change something');
    expect(AutonomyThresholdChange.safeParse({ ...change, key: 'standing.anything' }).success).toBe(false);
    const proposalInput = {
      proposal_id: 'a-1',
      scope_id: 'owner',
      changes: [change],
      sample_size: 50,
      correction_rate: 0.02,
      evidence_window: 'last 50 batches / 14 days',
      rationale: 'Few corrections',
      risk_level: 'medium',
      created_at: '2026-01-05T10:00:00.000Z',
    };
    expect(AutonomyThresholdProposal.parse(proposalInput).goal_id).toBeNull();
    expect(AutonomyThresholdProposal.safeParse({ ...proposalInput, changes: [change, change] }).success).toBe(false);
    expect(AutonomyThresholdProposal.safeParse({ ...proposalInput, changes: [] }).success).toBe(false);
    expect(AutonomyThresholdProposal.safeParse({ ...proposalInput, correction_rate: 1.2 }).success).toBe(false);
    expect(AutonomyThresholdProposal.safeParse({ ...proposalInput, risk_level: 'low' }).success).toBe(false);
  });
});
