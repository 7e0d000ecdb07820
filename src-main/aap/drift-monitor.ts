import { DEFAULT_SUSTAINED_TURNS_THRESHOLD } from '../../src-shared/aap/constants.js';
import type { DriftAlert } from '../../src-shared/aap/results.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { addSums, addTrace, emptySums, inferDrift, type SignalSums } from './drift-direction.js';
import { DRIFT_RECOMMENDATION, resolveDriftOptions, type DriftCard, type DriftOptions } from './drift.js';
import { centroid, cosineSimilarity, extractTraceFeatures, vectorNorm, type FeatureVector } from './features.js';

/*
 * Drift detection as traces are recorded (docs/aap.md "Drift"): the same rules as drift.ts, but
 * each trace after the baseline costs O(its features) — one dot product with the fixed centroid and
 * a few running sums — never a pass over the history.
 *
 * The batch detector sizes its baseline from the whole history's length (§8.2: up to 10 traces
 * for 40 or more); a live monitor cannot know the final length, so it is told the size (default
 * 10). Fed the same traces in chronological order with the size the batch chose, it raises the
 * same alerts (drift-monitor.test.ts checks this on the vectors and on long random histories).
 * Traces are taken in arrival order; one older than its predecessor is scored where it arrives.
 */

export interface DriftMonitorOptions extends DriftOptions {
  /** Traces that form the baseline centroid. Default 10 (at least the sustained threshold). */
  baselineSize?: number;
}

export interface DriftObservation {
  /** The trace's position in the monitored sequence. */
  index: number;
  trace_id: string;
  /** Null while the trace is part of the baseline. */
  similarity: number | null;
  alert: DriftAlert | null;
}

/**
 * Everything a monitor knows, as plain JSON, so the runtime can persist it with the ledger and
 * resume after a restart without reading the history again.
 */
export interface DriftMonitorSnapshot {
  version: 1;
  threshold: number;
  sustained: number;
  baseline_size: number;
  count: number;
  /** The baseline traces' features until the baseline is complete, then null. */
  baseline_vectors: [string, number][][] | null;
  /** The centroid once fixed. */
  reference: [string, number][] | null;
  baseline: SignalSums;
  before_streak: SignalSums;
  streak: SignalSums;
  streak_ids: string[];
  streak_first_similarity: number;
  alerted: boolean;
}

export class DriftMonitor {
  private readonly threshold: number;
  private readonly sustained: number;
  private readonly baselineSize: number;
  private readonly declared: ReadonlySet<string>;
  private baselineVectors: FeatureVector[] = [];
  private reference: FeatureVector | null = null;
  private referenceNorm = 0;
  private baseline = emptySums();
  /** Sums over every trace before the current streak began. */
  private beforeStreak = emptySums();
  private streak: SignalSums = emptySums();
  private streakIds: string[] = [];
  private streakFirstSimilarity = 0;
  private alerted = false;
  private count = 0;

  constructor(
    private readonly card: DriftCard,
    options: DriftMonitorOptions = {},
  ) {
    const { threshold, sustained } = resolveDriftOptions(options);
    this.threshold = threshold;
    this.sustained = sustained;
    this.baselineSize = Math.max(options.baselineSize ?? 10, options.sustainedThreshold ?? DEFAULT_SUSTAINED_TURNS_THRESHOLD);
    this.declared = new Set(card.values.declared);
  }

  /** A monitor that continues where `snapshot` left off, for the same card. */
  static restore(card: DriftCard, snapshot: DriftMonitorSnapshot): DriftMonitor {
    if (snapshot.version !== 1) throw new Error(`unknown drift monitor snapshot version ${String(snapshot.version)}`);
    const monitor = new DriftMonitor(card, { similarityThreshold: snapshot.threshold, sustainedThreshold: snapshot.sustained, baselineSize: snapshot.baseline_size });
    monitor.count = snapshot.count;
    monitor.baselineVectors = (snapshot.baseline_vectors ?? []).map((entries) => new Map(entries));
    monitor.reference = snapshot.reference ? new Map(snapshot.reference) : null;
    monitor.referenceNorm = monitor.reference ? vectorNorm(monitor.reference) : 0;
    monitor.baseline = { ...snapshot.baseline };
    monitor.beforeStreak = { ...snapshot.before_streak };
    monitor.streak = { ...snapshot.streak };
    monitor.streakIds = [...snapshot.streak_ids];
    monitor.streakFirstSimilarity = snapshot.streak_first_similarity;
    monitor.alerted = snapshot.alerted;
    return monitor;
  }

  snapshot(): DriftMonitorSnapshot {
    return {
      version: 1,
      threshold: this.threshold,
      sustained: this.sustained,
      baseline_size: this.baselineSize,
      count: this.count,
      baseline_vectors: this.reference ? null : this.baselineVectors.map((vector) => [...vector]),
      reference: this.reference ? [...this.reference] : null,
      baseline: { ...this.baseline },
      before_streak: { ...this.beforeStreak },
      streak: { ...this.streak },
      streak_ids: [...this.streakIds],
      streak_first_similarity: this.streakFirstSimilarity,
      alerted: this.alerted,
    };
  }

  get tracesSeen(): number {
    return this.count;
  }

  get baselineReady(): boolean {
    return this.reference !== null;
  }

  observe(trace: ApTrace): DriftObservation {
    const index = this.count;
    this.count += 1;
    const features = extractTraceFeatures(trace);
    if (this.reference === null) {
      this.baselineVectors.push(features);
      addTrace(this.baseline, trace, this.declared);
      addTrace(this.beforeStreak, trace, this.declared);
      if (this.baselineVectors.length === this.baselineSize) this.fixReference();
      return { index, trace_id: trace.trace_id, similarity: null, alert: null };
    }
    const similarity = cosineSimilarity(features, this.reference, undefined, this.referenceNorm);
    if (similarity >= this.threshold) {
      this.endStreak();
      addTrace(this.beforeStreak, trace, this.declared);
      return { index, trace_id: trace.trace_id, similarity, alert: null };
    }
    if (this.streak.count === 0) this.streakFirstSimilarity = similarity;
    addTrace(this.streak, trace, this.declared);
    if (this.streakIds.length < this.sustained) this.streakIds.push(trace.trace_id);
    if (this.alerted || this.streak.count < this.sustained) return { index, trace_id: trace.trace_id, similarity, alert: null };
    this.alerted = true;
    return { index, trace_id: trace.trace_id, similarity, alert: this.alert(trace, similarity) };
  }

  private fixReference(): void {
    this.reference = centroid(this.baselineVectors);
    this.referenceNorm = vectorNorm(this.reference);
    this.baselineVectors = [];
  }

  private endStreak(): void {
    if (this.streak.count > 0) addSums(this.beforeStreak, this.streak);
    this.streak = emptySums();
    this.streakIds = [];
    this.alerted = false;
  }

  private alert(trace: ApTrace, similarity: number): DriftAlert {
    const sinceStart = emptySums();
    addSums(sinceStart, this.beforeStreak);
    addSums(sinceStart, this.streak);
    const { direction, indicators } = inferDrift(this.baseline, this.streak, sinceStart, { first: this.streakFirstSimilarity, current: similarity });
    return {
      alert_type: 'drift_detected',
      agent_id: trace.agent_id,
      card_id: this.card.card_id,
      detection_timestamp: trace.timestamp,
      analysis: { similarity_score: similarity, sustained_traces: this.streak.count, threshold: this.threshold, drift_direction: direction, specific_indicators: indicators },
      recommendation: DRIFT_RECOMMENDATION,
      trace_ids: [...this.streakIds],
    };
  }
}
