import { describe, expect, it } from 'vitest';
import { AttentionTracker } from './tracker.js';

/*
 * The attention tracker (spec 004 §6.3, §6.4, §13.6; docs/ilp.md "Attention and episodic
 * memory"): traces per query, the top influencers, statistics, the TRACE /export body and the
 * bounds. The reference's observed cases run in src-main/ilp/conformance/attention-cases.ts.
 */

const T = 1_730_803_200_000;
const trace = (concept: string, weight: number, slice = `agent/${concept}`) => ({ concept, slice, weight, reasoning: `${slice} contributed ${concept}` });

function tracker(options: ConstructorParameters<typeof AttentionTracker>[0] = {}) {
  let now = T;
  return { t: new AttentionTracker({ now: () => now, ...options }), advance: (ms: number) => (now += ms) };
}

describe('AttentionTracker', () => {
  it('ends a query with its traces, decision path and top five influencers, stable on equal weights', () => {
    const { t } = tracker();
    t.startQuery('query_1730803200_abc123', 'How can I stabilize my spending?');
    t.addDecisionPoint('Query decomposed into domains: finance, biology');
    for (const [concept, weight] of [['a', 0.5], ['b', 0.91], ['c', 0.84], ['d', 0.91], ['e', 0.3], ['f', 0.95], ['g', 0.84]] as const) t.addTrace(trace(concept, weight));
    const attention = t.endQuery();
    expect(attention).toMatchObject({ query_id: 'query_1730803200_abc123', timestamp: 1_730_803_200, decision_path: ['Query decomposed into domains: finance, biology'], total_concepts: 7 });
    expect(attention.top_influencers.map((x) => x.concept)).toEqual(['f', 'b', 'd', 'c', 'g']);
    expect(t.query('query_1730803200_abc123')).toEqual(attention);
  });

  it('refuses traces outside a query and weights outside [0, 1], naming the field and the fix', () => {
    const { t } = tracker();
    expect(() => t.addTrace(trace('x', 0.5))).toThrow('no query is open: call startQuery(queryId, query) before addTrace()');
    expect(() => t.endQuery()).toThrow(/before endQuery/);
    t.startQuery('q1', 'question');
    expect(() => t.addTrace(trace('x', -0.01))).toThrow('weight -0.01 is not between 0 and 1 (§6.4): give the concept\'s influence as a number from 0 to 1');
    expect(() => t.addTrace(trace('x', 1.01))).toThrow(/weight 1.01 is not between 0 and 1/);
    expect(() => t.addTrace(trace('x', Number.NaN))).toThrow(/^weight must be a number from 0 to 1/);
    expect(() => t.addTrace({ ...trace('x', 0.5), concept: '' })).toThrow(/concept is empty/);
    expect(() => t.addTrace({ ...trace('x', 0.5), extra: true } as never)).toThrow(/unknown field extra/);
    for (const weight of [0, 0.5, 1]) t.addTrace(trace('ok', weight));
    expect(() => t.startQuery('q2', 'another')).toThrow(/query q1 is still open/);
    expect(t.endQuery().traces).toHaveLength(3);
    expect(() => t.startQuery('q1', 'again')).toThrow(/queryId q1 was already used/);
    expect(() => t.startQuery('has space', 'q')).toThrow(/queryId holds spaces/);
  });

  it('keeps at most maxQueries finished queries, oldest dropped, and bounds traces per query', () => {
    const { t } = tracker({ maxQueries: 2, maxTracesPerQuery: 2 });
    for (const id of ['q1', 'q2', 'q3']) {
      t.startQuery(id, id);
      t.addTrace(trace('c', 0.8));
      t.endQuery();
    }
    expect([t.query('q1'), t.query('q2')?.query_id, t.query('q3')?.query_id]).toEqual([null, 'q2', 'q3']);
    expect(t.statistics().total_queries).toBe(2);
    t.startQuery('q4', 'q4');
    t.addTrace(trace('c', 0.8));
    t.addTrace(trace('c', 0.8));
    expect(() => t.addTrace(trace('c', 0.8))).toThrow(/already holds 2 traces \(maxTracesPerQuery/);
    expect(() => new AttentionTracker({ maxQueries: 0 })).toThrow(/maxQueries must be a whole number of at least 1/);
  });

  it('statistics: concepts by average weight, slices by use, pairs of heavy top influencers in two queries or more', () => {
    const { t } = tracker();
    const run = (id: string, traces: ReturnType<typeof trace>[]) => {
      t.startQuery(id, id);
      for (const x of traces) t.addTrace(x);
      t.endQuery();
    };
    run('q1', [trace('homeostasis', 0.9, 'biology'), trace('feedback_loop', 0.85, 'systems'), trace('noise', 0.2, 'biology')]);
    run('q2', [trace('homeostasis', 0.8, 'biology'), trace('feedback_loop', 0.75, 'systems')]);
    run('q3', [trace('homeostasis', 0.95, 'biology'), trace('feedback_loop', 0.6, 'systems')]);
    const stats = t.statistics();
    expect(stats).toMatchObject({ total_queries: 3, total_traces: 7, average_traces_per_query: 7 / 3 });
    expect(stats.most_influential_concepts.map((c) => [c.concept, c.count])).toEqual([['homeostasis', 3], ['feedback_loop', 3], ['noise', 1]]);
    expect(stats.most_used_slices.map((s) => [s.slice, s.count])).toEqual([['biology', 4], ['systems', 3]]);
    expect(stats.high_confidence_patterns).toEqual([{ concepts: ['feedback_loop', 'homeostasis'], frequency: 2 }]);
    expect(new AttentionTracker().statistics()).toMatchObject({ total_queries: 0, average_traces_per_query: 0, high_confidence_patterns: [] });
  });

  it('exports one finished query as §13.6 writes it, and copies: the kept record cannot be edited through a result', () => {
    const { t, advance } = tracker();
    t.startQuery('query_1730803200_abc123', 'How can I stabilize my spending?');
    t.addTrace(trace('homeostasis', 0.91));
    const ended = t.endQuery();
    ended.traces[0]!.weight = 0;
    advance(300_000);
    const body = t.exportForAudit('query_1730803200_abc123')!;
    expect(Object.keys(body)).toEqual(['export_timestamp', 'query_id', 'query', 'timestamp', 'decision_path', 'traces', 'total_concepts', 'top_influencers']);
    expect(body).toMatchObject({ export_timestamp: 1_730_803_500, timestamp: 1_730_803_200, traces: [{ weight: 0.91 }], top_influencers: [{ concept: 'homeostasis' }] });
    expect(Object.keys(body.traces[0]!)).toEqual(['concept', 'slice', 'weight', 'reasoning']);
    expect(t.exportForAudit('unknown')).toBeNull();
  });
});
