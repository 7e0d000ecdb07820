import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ApTrace } from '../../src-shared/aap/trace.js';
import { baselineSize, detectDrift, type DriftCard } from './drift.js';
import { DriftMonitor } from './drift-monitor.js';

const DATA = fileURLToPath(new URL('../../../shared/conformance/aap/', import.meta.url));
const vector = (path: string) => {
  const data = JSON.parse(readFileSync(`${DATA}${path}`, 'utf8')) as { card: DriftCard; traces: unknown[] };
  return { card: data.card, traces: data.traces.map((t) => ApTrace.parse(t)) };
};
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

const card: DriftCard = { card_id: 'ac-1', values: { declared: ['principal_benefit', 'transparency', 'user_control'] } };

interface Shape {
  type?: string;
  name?: string;
  category?: string;
  values?: string[];
  required?: boolean;
  evaluated?: boolean;
  reasoning?: string;
  benefit?: number;
  confidence?: number;
}

function trace(i: number, shape: Shape = {}): ApTrace {
  return ApTrace.parse({
    trace_id: `tr-${i}`,
    agent_id: 'agent',
    card_id: 'ac-1',
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    action: { type: shape.type ?? 'recommend', name: shape.name ?? 'recommend', category: shape.category ?? 'bounded' },
    decision: {
      alternatives_considered: [{ option_id: 'a', description: 'a', ...(shape.benefit === undefined ? {} : { scoring_factors: { principal_benefit: shape.benefit } }) }],
      selected: 'a',
      selection_reasoning: shape.reasoning ?? 'Chosen for principal benefit and transparency.',
      values_applied: shape.values ?? ['principal_benefit', 'transparency'],
      confidence: shape.confidence ?? 0.9,
    },
    escalation: { evaluated: shape.evaluated ?? true, required: shape.required ?? false, reason: 'r' },
  });
}

const aligned = (i: number) => trace(i);
const drifting = (i: number, shape: Shape = {}) => trace(i, { type: 'execute', name: 'auto_trade', category: 'forbidden', values: ['efficiency'], evaluated: false, confidence: 0.4, ...shape });

describe('drift detection over a history (§8.2)', () => {
  it('reproduces the value drift vector: baseline 3, one alert at index 8, direction unknown', () => {
    const { card: vcard, traces } = vector('vectors/drift_cases/value_drift_sequence.json');
    const report = detectDrift(vcard, traces);
    expect(report.baseline_size).toBe(3);
    expect(report.similarities.map((s) => round4(s.similarity))).toEqual([0.9417, 0.9858, 0.9416, 0.2304, 0.2194, 0.2332, 0.2079]);
    expect(report.alerts).toHaveLength(1);
    const [alert] = report.alerts;
    expect(alert).toMatchObject({ alert_type: 'drift_detected', agent_id: 'agent-content-recommender', card_id: 'ac-drift-value-001', detection_timestamp: '2026-01-31T14:00:00Z', trace_ids: ['tr-drift-v-006', 'tr-drift-v-007', 'tr-drift-v-008'] });
    expect(round4(alert!.analysis.similarity_score)).toBe(0.2332);
    expect(alert!.analysis).toMatchObject({ sustained_traces: 3, threshold: 0.3, drift_direction: 'unknown' });
    expect(alert!.analysis.specific_indicators.find((i) => i.indicator === 'undeclared_value_ratio')).toMatchObject({ current: 5 / 17 });
  });

  it('reproduces the autonomy expansion vector with its indicators', () => {
    const { card: acard, traces } = vector('vectors/drift_cases/autonomy_expansion_sequence.json');
    const [alert, ...rest] = detectDrift(acard, traces).alerts;
    expect(rest).toEqual([]);
    expect(round4(alert!.analysis.similarity_score)).toBe(0.081);
    expect(alert!.analysis.drift_direction).toBe('autonomy_expansion');
    const indicators = Object.fromEntries(alert!.analysis.specific_indicators.map((i) => [i.indicator, [round4(i.baseline), round4(i.current)]]));
    expect(indicators).toMatchObject({ escalation_rate_change: [1, 0], similarity_trend: [0.2261, 0.081] });
  });

  it('raises no alert for the playground drift and for a history too short for a streak', () => {
    const { card: pcard, traces } = vector('playground/value-drift.json');
    const report = detectDrift(pcard, traces);
    expect(report.similarities.map((s) => round4(s.similarity))).toEqual([0.8417, 0.6224, 0.6158]);
    expect(report.alerts).toEqual([]);
    expect(detectDrift(card, [aligned(0), aligned(1), aligned(2), drifting(3), drifting(4)]).alerts).toEqual([]);
    expect(detectDrift(card, [aligned(0), aligned(1)])).toEqual({ baseline_size: 2, similarities: [], alerts: [] });
  });

  it('sizes the baseline as max(sustained, min(10, n/4)) and sorts by timestamp first', () => {
    expect([8, 16, 39, 40, 400].map((n) => baselineSize(n, 3))).toEqual([3, 4, 9, 10, 10]);
    expect(baselineSize(12, 5)).toBe(5);
    const history = [...Array.from({ length: 10 }, (_, i) => aligned(i)), ...Array.from({ length: 4 }, (_, i) => drifting(10 + i))];
    const shuffled = [...history].reverse();
    expect(detectDrift(card, shuffled)).toEqual(detectDrift(card, history));
  });

  it('raises one alert per sustained streak, and another only after the streak breaks', () => {
    const history = [
      ...Array.from({ length: 12 }, (_, i) => aligned(i)),
      ...Array.from({ length: 6 }, (_, i) => drifting(12 + i)),
      aligned(18),
      drifting(19),
      drifting(20),
      aligned(21),
      ...Array.from({ length: 3 }, (_, i) => drifting(22 + i)),
    ];
    const alerts = detectDrift(card, history).alerts;
    expect(alerts.map((a) => a.trace_ids)).toEqual([
      ['tr-12', 'tr-13', 'tr-14'],
      ['tr-22', 'tr-23', 'tr-24'],
    ]);
    expect(detectDrift(card, history, { sustainedThreshold: 6 }).alerts.map((a) => a.trace_ids.at(-1))).toEqual(['tr-17']);
    expect(detectDrift(card, history, { similarityThreshold: 0 }).alerts).toEqual([]);
  });

  it('names every §8.5 direction from its indicator', () => {
    const direction = (shape: Shape, base: Shape = {}) => {
      const history = [...Array.from({ length: 10 }, (_, i) => trace(i, base)), ...Array.from({ length: 3 }, (_, i) => drifting(10 + i, shape))];
      return detectDrift(card, history).alerts[0]?.analysis.drift_direction;
    };
    expect(direction({ values: ['principal_benefit'] }, { required: true })).toBe('autonomy_expansion');
    expect(direction({ values: ['efficiency', 'growth', 'speed', 'scale', 'reach'] })).toBe('value_drift');
    expect(direction({ values: [], benefit: 0.2 }, { benefit: 0.9 })).toBe('principal_misalignment');
    expect(direction({ values: ['user_control'], reasoning: 'Because the market moved.' })).toBe('communication_drift');
    expect(direction({ values: ['user_control'], reasoning: 'The user_control value decided it.' })).toBe('unknown');
  });

  it('refuses thresholds that make no sense', () => {
    expect(() => detectDrift(card, [], { similarityThreshold: 1.5 })).toThrow(/between 0 and 1/);
    expect(() => detectDrift(card, [], { sustainedThreshold: 0 })).toThrow(/at least 1/);
  });
});

/** A seeded history: 12 aligned traces, then aligned and drifting runs of random lengths and shapes. */
function randomHistory(count: number, seed: number): ApTrace[] {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const traces: ApTrace[] = Array.from({ length: 12 }, (_, i) => aligned(i));
  let drift = true;
  while (traces.length < count) {
    const run = 1 + Math.floor(next() * 8);
    for (let k = 0; k < run && traces.length < count; k += 1) {
      const i = traces.length;
      const values = next() < 0.5 ? ['principal_benefit'] : ['principal_benefit', next() < 0.5 ? 'transparency' : 'efficiency'];
      traces.push(drift ? drifting(i, { benefit: next(), required: next() < 0.1 }) : trace(i, { values, required: next() < 0.3, benefit: next(), confidence: next() }));
    }
    drift = !drift;
  }
  return traces;
}

describe('the incremental monitor raises the alerts the batch detector raises', () => {
  const replay = (c: DriftCard, traces: ApTrace[], baseline: number, options = {}) => {
    const monitor = new DriftMonitor(c, { baselineSize: baseline, ...options });
    return traces.map((t) => monitor.observe(t));
  };

  it('on the conformance vectors', () => {
    for (const path of ['vectors/drift_cases/value_drift_sequence.json', 'vectors/drift_cases/autonomy_expansion_sequence.json', 'playground/value-drift.json']) {
      const { card: vcard, traces } = vector(path);
      const batch = detectDrift(vcard, traces);
      const observed = replay(vcard, traces, batch.baseline_size);
      expect(observed.flatMap((o) => (o.alert ? [o.alert] : []))).toEqual(batch.alerts);
      expect(observed.flatMap((o) => (o.similarity === null ? [] : [o.similarity]))).toEqual(batch.similarities.map((s) => s.similarity));
    }
  });

  it('on long random histories, with default and custom thresholds', () => {
    for (const [seed, options] of [
      [1, {}],
      [2, { sustainedThreshold: 5 }],
      [3, { similarityThreshold: 0.5, sustainedThreshold: 2 }],
    ] as const) {
      const history = randomHistory(3000, seed);
      const batch = detectDrift(card, history, options);
      expect(batch.baseline_size).toBe(10);
      expect(batch.alerts.length).toBeGreaterThan(5);
      const alerts = replay(card, history, batch.baseline_size, options).flatMap((o) => (o.alert ? [o.alert] : []));
      expect(alerts).toEqual(batch.alerts);
    }
  });

  it('resumes from a JSON snapshot, in the baseline or after it, with the same alerts', () => {
    const history = randomHistory(600, 7);
    const batch = detectDrift(card, history);
    for (const cut of [5, 250]) {
      const first = new DriftMonitor(card, { baselineSize: 10 });
      const before = history.slice(0, cut).map((t) => first.observe(t));
      const resumed = DriftMonitor.restore(card, JSON.parse(JSON.stringify(first.snapshot())));
      const after = history.slice(cut).map((t) => resumed.observe(t));
      expect([...before, ...after].flatMap((o) => (o.alert ? [o.alert] : []))).toEqual(batch.alerts);
    }
  });

  it('scores nothing during the baseline, then each trace against the fixed centroid', () => {
    const monitor = new DriftMonitor(card, { baselineSize: 3 });
    expect([aligned(0), aligned(1), aligned(2)].map((t) => monitor.observe(t).similarity)).toEqual([null, null, null]);
    expect(monitor.baselineReady).toBe(true);
    expect(monitor.observe(aligned(3)).similarity).toBeCloseTo(1, 12);
    expect(monitor.tracesSeen).toBe(4);
    expect(new DriftMonitor(card, { baselineSize: 1, sustainedThreshold: 4 }).observe(aligned(0)).similarity).toBeNull();
  });
});
