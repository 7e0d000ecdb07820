import { describe, expect, it } from 'vitest';
import { checkCoherence, coherenceScore, type CoherenceParty } from './coherence.js';
import { checkFleetCoherence } from './fleet.js';

const party = (card_id: string, declared: string[], conflicts_with: string[] = []): CoherenceParty => ({ card_id, values: { declared, conflicts_with } });

describe('pairwise coherence (§6.4)', () => {
  const user = party('ac-user', ['principal_benefit', 'transparency', 'minimal_data', 'honesty'], ['deceptive_marketing', 'hidden_fees', 'upselling']);
  const vendor = party('ac-vendor', ['customer_satisfaction', 'transparency', 'upselling', 'conversion'], ['price_undercutting']);

  it('scores matched over required values, penalised by half the conflict share', () => {
    const result = checkCoherence(user, vendor);
    expect(result.score).toBeCloseTo((1 / 7) * (1 - 0.5 * (1 / 7)), 12);
    expect(result.value_alignment).toEqual({
      matched: ['transparency'],
      unmatched: ['principal_benefit', 'minimal_data', 'honesty', 'customer_satisfaction', 'upselling', 'conversion'],
      conflicts: [{ initiator_value: 'conflicts_with:upselling', responder_value: 'upselling', conflict_type: 'incompatible', description: "Responder's 'upselling' is in initiator's conflicts_with" }],
    });
    expect(result).toMatchObject({ compatible: false, proceed: false, conditions: [], proposed_resolution: { type: 'escalate_to_principals', reason: 'Value conflict requires human decision' } });
  });

  it('uses the task values as the required values when given', () => {
    const result = checkCoherence(user, vendor, { taskValues: ['transparency', 'honesty', 'transparency'] });
    expect(result.value_alignment.matched).toEqual(['transparency']);
    expect(result.value_alignment.unmatched).toEqual(['honesty']);
    expect(result.score).toBeCloseTo((1 / 2) * (1 - 0.5 * (1 / 2)), 12);
    const friendly = party('ac-friend', ['transparency', 'honesty']);
    expect(checkCoherence(user, friendly, { taskValues: ['transparency', 'honesty'] })).toMatchObject({ score: 1, compatible: true, proceed: true, proposed_resolution: null });
  });

  it('treats an empty task-value list as none given, and scores two empty cards 0, never dividing by zero', () => {
    expect(checkCoherence(user, vendor, { taskValues: [] }).score).toBe(checkCoherence(user, vendor).score);
    const empty = checkCoherence(party('a', []), party('b', []), { taskValues: [] });
    expect(empty.score).toBe(0);
    expect(Number.isNaN(empty.score)).toBe(false);
    expect(coherenceScore(0, 0, 3)).toBe(0);
  });

  it('keeps the score within [0, 1] however many conflicts there are', () => {
    expect(coherenceScore(1, 1, 5)).toBe(0);
    const result = checkCoherence(party('a', ['x', 'y'], ['p', 'q', 'r']), party('b', ['x', 'p', 'q', 'r'], ['y']), { taskValues: ['x'] });
    expect(result.value_alignment.conflicts).toHaveLength(4);
    expect(result.score).toBe(0);
  });

  it('does not proceed below MIN_COHERENCE_FOR_PROCEED even without conflicts', () => {
    const result = checkCoherence(party('a', ['x', 'y', 'z']), party('b', ['x', 'y', 'w']));
    expect(result.score).toBe(0.5);
    expect(result).toMatchObject({ compatible: false, proceed: false, proposed_resolution: { type: 'escalate_to_principals', reason: 'Coherence score 0.50 is below 0.70' } });
    expect(checkCoherence(party('a', ['x', 'y', 'z']), party('b', ['x', 'y', 'w']), { minCoherence: 0.5 }).compatible).toBe(true);
  });
});

describe('fleet coherence', () => {
  const fleet = [
    { agent_id: 'alpha', card: party('ac-a', ['honesty', 'transparency', 'privacy']) },
    { agent_id: 'beta', card: party('ac-b', ['honesty', 'transparency', 'privacy']) },
    { agent_id: 'gamma', card: party('ac-c', ['honesty', 'transparency', 'privacy', 'fairness']) },
    { agent_id: 'rogue', card: party('ac-r', ['engagement', 'honesty'], ['privacy']) },
  ];

  it('computes every pair into a symmetric matrix with the fleet mean, minimum and maximum', () => {
    const result = checkFleetCoherence(fleet);
    expect(result).toMatchObject({ agent_count: 4, pair_count: 6 });
    expect(result.matrix[0]![1]).toBe(1);
    expect(result.matrix[1]![0]).toBe(1);
    expect(result.matrix[2]![2]).toBe(1);
    expect(result.matrix[0]![2]).toBeCloseTo(0.75, 12);
    const scores = result.pairs.map((p) => p.result.score);
    expect(result.fleet_score).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / 6, 12);
    expect(result.min_pair_score).toBe(Math.min(...scores));
    expect(result.max_pair_score).toBe(1);
  });

  it('flags the agent far below the fleet as an outlier, with the values behind its conflicts', () => {
    const result = checkFleetCoherence(fleet);
    expect(result.outliers.map((o) => o.agent_id)).toEqual(['rogue']);
    expect(result.outliers[0]).toMatchObject({ primary_conflicts: ['privacy'] });
    expect(result.outliers[0]!.deviation).toBeGreaterThan(1);
    expect(result.agents.find((a) => a.agent_id === 'rogue')).toMatchObject({ is_outlier: true, compatible_count: 0, conflict_count: 3 });
  });

  it('clusters agents connected through compatible pairs, with the values they share', () => {
    const result = checkFleetCoherence(fleet);
    expect(result.clusters).toEqual([
      { cluster_id: 0, agent_ids: ['alpha', 'beta', 'gamma'], internal_coherence: expect.closeTo((1 + 0.75 + 0.75) / 3, 12), shared_values: ['honesty', 'transparency', 'privacy'] },
      { cluster_id: 1, agent_ids: ['rogue'], internal_coherence: 1, shared_values: ['engagement', 'honesty'] },
    ]);
  });

  it('needs two agents, and names no outlier among two', () => {
    expect(() => checkFleetCoherence([fleet[0]!])).toThrow(/at least two agents/);
    expect(checkFleetCoherence([fleet[0]!, fleet[3]!]).outliers).toEqual([]);
  });
});
