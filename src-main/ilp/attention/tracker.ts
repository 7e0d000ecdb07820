import { pairTally } from './counting.js';
import { AttentionTraceInput, DecisionStep, QueryStart, invalid, parseOrThrow } from './trace-input.js';

/*
 * The attention tracker (spec 004 §4.1, §4.2 step 7, §6.3, §6.4, §13.6; docs/ilp.md "Attention
 * and episodic memory"): which concepts, from which slices, carried how much of each decision,
 * and the decision path, kept per query for the audit export. Pure code: no storage, no I/O. It
 * keeps at most `maxQueries` finished queries (oldest dropped) and `maxTracesPerQuery` traces per
 * query, so a long-running meta-agent cannot grow it without bound (§10.4).
 */

export type AttentionTrace = AttentionTraceInput;

/** One finished query: §6.3's decision path and §6.4's influences. */
export interface QueryAttention {
  query_id: string;
  query: string;
  /** Seconds since the epoch, as §13.6 writes it. */
  timestamp: number;
  decision_path: string[];
  traces: AttentionTrace[];
  /** Influences recorded: a concept that influenced twice counts twice (the reference's count). */
  total_concepts: number;
  /** The heaviest traces, at most five, heaviest first; equal weights keep the order recorded. */
  top_influencers: AttentionTrace[];
}

/** The §13.6 `TRACE /export` body (`application/vnd.ilp.attention+json`). */
export type AttentionExport = { export_timestamp: number } & QueryAttention;

interface WeightedCount {
  count: number;
  average_weight: number;
}

export interface AttentionStatistics {
  total_queries: number;
  total_traces: number;
  average_traces_per_query: number;
  /** Highest average weight first, then most used. */
  most_influential_concepts: ({ concept: string } & WeightedCount)[];
  /** Most used first, then highest average weight. */
  most_used_slices: ({ slice: string } & WeightedCount)[];
  /** Pairs of concepts both among the top influencers, at weight ≥ 0.7, of at least two queries. */
  high_confidence_patterns: { concepts: [string, string]; frequency: number }[];
}

export interface AttentionTrackerOptions {
  /** Finished queries kept (default 1,000); the oldest is dropped when one more finishes. */
  maxQueries?: number;
  /** Traces, and decision steps, one query may hold (default 1,000). */
  maxTracesPerQuery?: number;
  /** Milliseconds since the epoch. */
  now?: () => number;
}

const TOP_INFLUENCERS = 5;
/** §6.1's default confidence threshold, used as the weight a concept needs to count in a pattern. */
const HIGH_WEIGHT = 0.7;
const LISTED = 10;

interface OpenQuery {
  queryId: string;
  query: string;
  startedAt: number;
  traces: AttentionTrace[];
  decisionPath: string[];
}

export class AttentionTracker {
  private readonly finished = new Map<string, QueryAttention>();
  private open: OpenQuery | null = null;
  private readonly maxQueries: number;
  private readonly maxTraces: number;
  private readonly now: () => number;

  constructor(options: AttentionTrackerOptions = {}) {
    this.maxQueries = bound('maxQueries', options.maxQueries ?? 1000);
    this.maxTraces = bound('maxTracesPerQuery', options.maxTracesPerQuery ?? 1000);
    this.now = options.now ?? Date.now;
  }

  /** Opens the query whose traces follow. One query is open at a time; a Query-ID still kept is not reused. */
  startQuery(queryId: string, query: string): void {
    const start = parseOrThrow(QueryStart, { queryId, query });
    if (this.open) throw invalid(`query ${this.open.queryId} is still open: call endQuery() before starting ${start.queryId}`);
    if (this.finished.has(start.queryId)) throw invalid(`queryId ${start.queryId} was already used: give each query its own Query-ID (§13.6 exports by it)`);
    this.open = { queryId: start.queryId, query: start.query, startedAt: this.now(), traces: [], decisionPath: [] };
  }

  /** Records one influence on the open query's decision (§6.4). */
  addTrace(trace: AttentionTraceInput): void {
    const open = this.requireOpen('addTrace');
    const parsed = parseOrThrow(AttentionTraceInput, trace);
    if (open.traces.length >= this.maxTraces) throw invalid(`query ${open.queryId} already holds ${this.maxTraces} traces (maxTracesPerQuery, §10.4): record the influential ones, or raise the bound`);
    open.traces.push({ concept: parsed.concept, slice: parsed.slice, weight: parsed.weight, reasoning: parsed.reasoning });
  }

  /** Records one step of the open query's decision path (§6.3). */
  addDecisionPoint(step: string): void {
    const open = this.requireOpen('addDecisionPoint');
    const parsed = parseOrThrow(DecisionStep, step);
    if (open.decisionPath.length >= this.maxTraces) throw invalid(`query ${open.queryId} already holds ${this.maxTraces} decision steps (maxTracesPerQuery, §10.4): record the decisive ones, or raise the bound`);
    open.decisionPath.push(parsed);
  }

  /** Closes the open query and returns its attention; it is kept for statistics and export. */
  endQuery(): QueryAttention {
    const open = this.requireOpen('endQuery');
    this.open = null;
    const attention: QueryAttention = {
      query_id: open.queryId,
      query: open.query,
      timestamp: Math.floor(open.startedAt / 1000),
      decision_path: open.decisionPath,
      traces: open.traces,
      total_concepts: open.traces.length,
      // Array.prototype.sort is stable: equal weights keep the order they were recorded in.
      top_influencers: [...open.traces].sort((a, b) => b.weight - a.weight).slice(0, TOP_INFLUENCERS),
    };
    if (this.finished.size >= this.maxQueries) this.finished.delete(this.finished.keys().next().value!);
    this.finished.set(attention.query_id, attention);
    return copy(attention);
  }

  /** A finished query still kept, or null. */
  query(queryId: string): QueryAttention | null {
    const found = this.finished.get(queryId);
    return found ? copy(found) : null;
  }

  /** The §13.6 `TRACE /export` body for a finished query still kept, or null (the caller answers 404). */
  exportForAudit(queryId: string): AttentionExport | null {
    const found = this.query(queryId);
    return found ? { export_timestamp: Math.floor(this.now() / 1000), ...found } : null;
  }

  /** Across the finished queries kept. */
  statistics(): AttentionStatistics {
    const queries = [...this.finished.values()];
    const concepts = new Map<string, { count: number; sum: number }>();
    const slices = new Map<string, { count: number; sum: number }>();
    let traces = 0;
    for (const query of queries) {
      for (const trace of query.traces) {
        traces += 1;
        add(concepts, trace.concept, trace.weight);
        add(slices, trace.slice, trace.weight);
      }
    }
    const weighted = (map: Map<string, { count: number; sum: number }>) => [...map].map(([name, { count, sum }]) => ({ name, count, average_weight: sum / count }));
    const groups = queries.map((query) => query.top_influencers.filter((trace) => trace.weight >= HIGH_WEIGHT).map((trace) => trace.concept));
    return {
      total_queries: queries.length,
      total_traces: traces,
      average_traces_per_query: queries.length === 0 ? 0 : traces / queries.length,
      most_influential_concepts: weighted(concepts)
        .sort((a, b) => b.average_weight - a.average_weight || b.count - a.count)
        .slice(0, LISTED)
        .map(({ name, count, average_weight }) => ({ concept: name, count, average_weight })),
      most_used_slices: weighted(slices)
        .sort((a, b) => b.count - a.count || b.average_weight - a.average_weight)
        .slice(0, LISTED)
        .map(({ name, count, average_weight }) => ({ slice: name, count, average_weight })),
      high_confidence_patterns: pairTally(groups)
        .filter((entry) => entry.count >= 2)
        .slice(0, LISTED)
        .map((entry) => ({ concepts: entry.pair, frequency: entry.count })),
    };
  }

  private requireOpen(call: string): OpenQuery {
    if (!this.open) throw invalid(`no query is open: call startQuery(queryId, query) before ${call}()`);
    return this.open;
  }
}

function add(map: Map<string, { count: number; sum: number }>, name: string, weight: number): void {
  const entry = map.get(name) ?? { count: 0, sum: 0 };
  entry.count += 1;
  entry.sum += weight;
  map.set(name, entry);
}

function bound(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw invalid(`${name} must be a whole number of at least 1, got ${String(value)}`);
  return value;
}

/** Callers get copies: what the tracker keeps for the audit export is not changed through them. */
function copy(attention: QueryAttention): QueryAttention {
  return structuredClone(attention);
}
