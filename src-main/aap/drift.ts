import { DEFAULT_SIMILARITY_THRESHOLD, DEFAULT_SUSTAINED_TURNS_THRESHOLD } from '../../src-shared/aap/constants.js';
import type { DriftAlert } from '../../src-shared/aap/results.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { addTrace, emptySums, inferDrift } from './drift-direction.js';
import { centroid, cosineSimilarity, extractTraceFeatures, vectorNorm } from './features.js';

/*
 * Drift detection over a history of traces, spec 003 §8.2 (v1.2.0), which the main text and the
 * conformance goldens follow — not Appendix B.2, which compares each trace with the card and
 * raises an alert for every trace once a streak is long enough:
 *
 *   1. sort by timestamp (stable for equal times);
 *   2. baseline N = max(sustained, min(10, ⌊n/4⌋)); its centroid is the reference;
 *   3. each later trace's cosine similarity to the centroid;
 *   4. a streak of `sustained` consecutive similarities below the threshold raises one alert, at
 *      the trace that completes it; the streak must break before another alert can be raised.
 *
 * A history no longer than its baseline has nothing to compare; one shorter than baseline plus
 * streak (B.2's early return) can show similarities but never an alert.
 *
 * The card is consulted only for its id and declared values (direction, §8.2 last paragraph).
 */

export interface DriftCard {
  card_id: string;
  values: { declared: readonly string[] };
}

export interface DriftOptions {
  similarityThreshold?: number;
  sustainedThreshold?: number;
}

interface TraceSimilarity {
  /** Position in chronological order. */
  index: number;
  trace_id: string;
  similarity: number;
}

export interface DriftReport {
  baseline_size: number;
  similarities: TraceSimilarity[];
  alerts: DriftAlert[];
}

export const DRIFT_RECOMMENDATION = 'Review recent decisions for alignment drift';

export function resolveDriftOptions(options: DriftOptions): { threshold: number; sustained: number } {
  const threshold = options.similarityThreshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  const sustained = options.sustainedThreshold ?? DEFAULT_SUSTAINED_TURNS_THRESHOLD;
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`similarity threshold must be between 0 and 1, got ${threshold}`);
  if (!Number.isInteger(sustained) || sustained < 1) throw new RangeError(`sustained threshold must be a whole number of at least 1, got ${sustained}`);
  return { threshold, sustained };
}

/** §8.2 step 3's baseline size for a history of `count` traces. */
export function baselineSize(count: number, sustained: number): number {
  return Math.max(sustained, Math.min(10, Math.floor(count / 4)));
}

function chronological(traces: readonly ApTrace[]): ApTrace[] {
  return traces
    .map((trace, order) => ({ trace, order, time: Date.parse(trace.timestamp) }))
    .sort((a, b) => a.time - b.time || a.order - b.order)
    .map((entry) => entry.trace);
}

export function detectDrift(card: DriftCard, traces: readonly ApTrace[], options: DriftOptions = {}): DriftReport {
  const { threshold, sustained } = resolveDriftOptions(options);
  const sorted = chronological(traces);
  const n = baselineSize(sorted.length, sustained);
  if (sorted.length <= n) return { baseline_size: sorted.length, similarities: [], alerts: [] };

  const declared = new Set(card.values.declared);
  const vectors = sorted.map(extractTraceFeatures);
  const reference = centroid(vectors.slice(0, n));
  const referenceNorm = vectorNorm(reference);
  const similarities = vectors.slice(n).map((vector, k) => ({ index: n + k, trace_id: sorted[n + k]!.trace_id, similarity: cosineSimilarity(vector, reference, undefined, referenceNorm) }));

  const baseline = emptySums();
  for (const trace of sorted.slice(0, n)) addTrace(baseline, trace, declared);

  const alerts: DriftAlert[] = [];
  let streakStart = -1;
  let alerted = false;
  for (const { index, similarity } of similarities) {
    if (similarity >= threshold) {
      streakStart = -1;
      alerted = false;
      continue;
    }
    if (streakStart < 0) streakStart = index;
    if (alerted || index - streakStart + 1 < sustained) continue;
    alerted = true;
    const streakTraces = sorted.slice(streakStart, index + 1);
    const streak = emptySums();
    for (const trace of streakTraces) addTrace(streak, trace, declared);
    const sinceStart = emptySums();
    for (const trace of sorted.slice(0, index + 1)) addTrace(sinceStart, trace, declared);
    const { direction, indicators } = inferDrift(baseline, streak, sinceStart, { first: similarities[streakStart - n]!.similarity, current: similarity });
    const current = sorted[index]!;
    alerts.push({
      alert_type: 'drift_detected',
      agent_id: current.agent_id,
      card_id: card.card_id,
      detection_timestamp: current.timestamp,
      analysis: { similarity_score: similarity, sustained_traces: streakTraces.length, threshold, drift_direction: direction, specific_indicators: indicators },
      recommendation: DRIFT_RECOMMENDATION,
      trace_ids: streakTraces.map((t) => t.trace_id),
    });
  }
  return { baseline_size: n, similarities, alerts };
}
