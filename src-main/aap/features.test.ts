import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AlignmentCard } from '../../src-shared/aap/card.js';
import { ApTrace } from '../../src-shared/aap/trace.js';
import { centroid, cosineSimilarity, extractCardFeatures, extractTraceFeatures, indexCardFeatures, similarityToCard } from './features.js';

const DATA = fileURLToPath(new URL('../../../shared/conformance/aap/', import.meta.url));
const load = (path: string) => JSON.parse(readFileSync(`${DATA}${path}`, 'utf8')) as { card: unknown; trace: unknown };

/** The README's "union" column: cosine of trace and card features, 4 dp. */
const GOLDENS: [string, number][] = [
  ['vectors/valid_traces/compliant_recommendation.json', 0.3642],
  ['vectors/valid_traces/approved_escalation.json', 0.1885],
  ['vectors/invalid_traces/forbidden_action.json', 0.121],
  ['vectors/invalid_traces/missed_escalation.json', 0.1133],
  ['vectors/invalid_traces/undeclared_value.json', 0.1138],
  ['playground/compliant-trace.json', 0.2657],
  ['playground/forbidden-action.json', 0.1088],
];

describe('verification similarity (§7.4, §8.3 features)', () => {
  it.each(GOLDENS)('%s scores %s', (path, golden) => {
    const { card, trace } = load(path);
    const score = cosineSimilarity(extractTraceFeatures(ApTrace.parse(trace)), extractCardFeatures(AlignmentCard.parse(card)));
    expect(Math.round(score * 1e4) / 1e4).toBe(golden);
  });

  it('extracts the documented keys and weights', () => {
    const { card, trace } = load('vectors/valid_traces/approved_escalation.json');
    expect(Object.fromEntries(extractTraceFeatures(ApTrace.parse(trace)))).toEqual({
      'action:execute': 1,
      'action_name:purchase': 1,
      'category:escalation_trigger': 1,
      'value:principal_benefit': 1,
      'value:user_control': 1,
      'escalation:evaluated': 1,
      'escalation:required': 1,
      confidence: 0.95,
    });
    const features = Object.fromEntries(extractCardFeatures(AlignmentCard.parse(card)));
    expect(features).toMatchObject({ 'category:human': 1, 'audit:queryable': 1, 'forbidden:auto_purchase': 1, 'escalation:escalate': 1, 'escalation:deny': 0.5 });
    expect(features['condition:amount > 100']).toBeCloseTo(Math.SQRT1_2, 12);
  });

  it('computes the same score without building vectors, on the vectors and on random traces', () => {
    for (const [path] of GOLDENS) {
      const { card, trace } = load(path);
      const parsedCard = AlignmentCard.parse(card);
      const parsedTrace = ApTrace.parse(trace);
      expect(similarityToCard(parsedTrace, indexCardFeatures(parsedCard)).score).toBeCloseTo(cosineSimilarity(extractTraceFeatures(parsedTrace), extractCardFeatures(parsedCard)), 12);
    }
    const base = AlignmentCard.parse(load('vectors/valid_traces/approved_escalation.json').card);
    const index = indexCardFeatures(base);
    const pool = ['principal_benefit', 'transparency', 'user_control', 'efficiency'];
    for (let i = 0; i < 200; i += 1) {
      const trace = ApTrace.parse({
        trace_id: `t${i}`,
        agent_id: 'a',
        card_id: 'c',
        timestamp: '2026-01-31T00:00:00Z',
        action: { type: ['recommend', 'execute', 'deny'][i % 3], name: ['search', 'purchase', 'x'][i % 3], category: ['bounded', 'forbidden'][i % 2] },
        decision: { alternatives_considered: [{ option_id: 'a', description: 'a' }], selected: 'a', selection_reasoning: '', values_applied: [pool[i % 4], pool[(i * 7) % 4], pool[i % 4]], confidence: i % 5 === 0 ? null : (i % 10) / 10 },
        ...(i % 4 === 0 ? {} : { escalation: { evaluated: i % 2 === 0, required: i % 3 === 0, reason: 'r' } }),
      });
      const fast = similarityToCard(trace, index);
      const slow = extractTraceFeatures(trace);
      expect(fast.score).toBeCloseTo(cosineSimilarity(slow, extractCardFeatures(base)), 12);
      expect(fast.shared).toEqual([...slow.keys()].filter((k) => extractCardFeatures(base).has(k)).sort());
    }
  });

  it('is 0 for an empty vector, and averages vectors into a centroid', () => {
    expect(cosineSimilarity(new Map(), new Map([['a', 1]]))).toBe(0);
    expect(Object.fromEntries(centroid([new Map([['a', 1]]), new Map([['a', 1], ['b', 1]])]))).toEqual({ a: 1, b: 0.5 });
  });
});
