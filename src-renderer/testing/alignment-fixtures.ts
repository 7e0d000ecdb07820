import type { Envelope } from '../../src-shared/contract/index.js';
import type { SeriesColumns } from '../store/alignment-series.js';
import type { AlignmentAgentView, AlignmentCardInForce, AlignmentFleet, AlignmentTrace, AlignmentViolation } from '../store/alignment-state.js';
import { FakeTransport } from './fake-transport.js';

export const FILES = 'mcp:files';
export const SILAS = 'silas';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

export function agentView(agentId: string, overrides: Partial<AlignmentAgentView> = {}): AlignmentAgentView {
  return {
    agentId,
    cardId: `ac-${agentId.replace(':', '-')}-1`,
    cardSource: 'derived',
    traces: 0,
    violations: 0,
    escalations: 0,
    alerts: 0,
    lastTs: null,
    ...overrides,
  };
}

export interface SeriesShape {
  agentId?: string;
  /** Seq of the first trace; traces are numbered on from it. */
  fromSeq?: number;
  count: number;
  /** Traces whose similarity to the baseline is null (the baseline forming). */
  baseline?: number;
  escalatedEvery?: number;
  alertsAt?: readonly number[];
  valueUsage?: Record<string, number>;
}

/** `count` traces one second apart, as `alignment.series` returns them. */
export function seriesOf({ agentId = FILES, fromSeq = 1, count, baseline = 0, escalatedEvery = 0, alertsAt = [], valueUsage = {} }: SeriesShape): SeriesColumns {
  const idx = Array.from({ length: count }, (_, i) => i);
  const seq = idx.map((i) => fromSeq + i);
  return {
    agentId,
    seq,
    time: seq.map((s) => T0 + s * 1000),
    similarity: idx.map(() => 0.5),
    driftSimilarity: seq.map((s) => (s - 1 < baseline ? null : 0.9)),
    escalated: idx.map((i) => (escalatedEvery > 0 && (fromSeq + i) % escalatedEvery === 0 ? 1 : 0)),
    verified: idx.map(() => 1),
    alert: seq.map((s) => (alertsAt.includes(s) ? 1 : 0)),
    traceIds: seq.map((s) => `tr-${s}`),
    actions: seq.map(() => 'read_file'),
    valueUsage,
    driftThreshold: 0.3,
  };
}

export function violation(traceId: string, overrides: Partial<AlignmentViolation> = {}): AlignmentViolation {
  return { traceId, ts: '2026-01-01T12:00:05.000Z', actionName: 'delete_file', violations: ['FORBIDDEN_ACTION'], ...overrides };
}

export const CARD = {
  aap_version: '0.1.1',
  card_id: 'ac-mcp-files-1',
  agent_id: FILES,
  values: { declared: ['transparency', 'privacy'] },
  autonomy_envelope: { bounded_actions: ['read_file'], forbidden_actions: ['delete_file'], escalation_triggers: [] },
};

export function cardView(overrides: Partial<AlignmentCardInForce> = {}): AlignmentCardInForce {
  return { agentId: FILES, card: CARD, source: 'derived', signature: 'owner', ...overrides };
}

export function traceView(traceId: string, overrides: Partial<AlignmentTrace> = {}): AlignmentTrace {
  return {
    trace: { trace_id: traceId, card_id: CARD.card_id, action: { type: 'bounded', name: 'delete_file' } },
    card: CARD,
    verification: { verified: false },
    checks: [
      { check: 'card_reference', passed: true, detail: 'passed' },
      { check: 'forbidden', passed: false, detail: 'delete_file is a forbidden action' },
      { check: 'behavioral_similarity', passed: true, detail: 'similarity 0.6123 to the card' },
    ],
    signature: 'owner',
    matchesChain: true,
    auditIndex: 42,
    sourceIndex: 41,
    ...overrides,
  };
}

export function fleetOf(overrides: Partial<AlignmentFleet> = {}): AlignmentFleet {
  return {
    agents: [FILES, 'mcp:shop', SILAS],
    matrix: [
      [1, 0.13, 0.8],
      [0.13, 1, 0.5],
      [0.8, 0.5, 1],
    ],
    fleetScore: 0.48,
    conflicts: [{ agentA: FILES, agentB: 'mcp:shop', values: ['privacy', 'upselling'] }],
    outliers: ['mcp:shop'],
    clusters: [[FILES, SILAS]],
    ...overrides,
  };
}

const ok = <T>(value: T): Envelope<T> => ({ ok: true, value });

/** A problem the fake validator reports for a draft, by its text. */
function problemsOf(text: string): { path: string; message: string; expected?: string }[] {
  try {
    const card = JSON.parse(text) as { card_id?: string };
    if (card.card_id === CARD.card_id) return [{ path: 'card_id', message: `"${CARD.card_id}" is the id of a card already kept; give the new card a new id`, expected: 'a card id not used before' }];
    return [];
  } catch {
    return [{ path: '', message: 'line 1, column 2: not valid JSON (ValueExpected)' }];
  }
}

/**
 * The alignment.* calls of a runtime, in memory: agents, each agent's series (answered after
 * `afterSeq`), violations, traces, cards, and a save that puts a valid card in force.
 */
export class AlignmentRuntime {
  agents: AlignmentAgentView[] = [agentView(FILES, { traces: 3, violations: 1 }), agentView(SILAS, { cardSource: 'edited', traces: 1 })];
  series = new Map<string, SeriesColumns>([[FILES, seriesOf({ count: 3, valueUsage: { privacy: 2, transparency: 1 } })]]);
  violations = new Map<string, AlignmentViolation[]>([[FILES, [violation('tr-3')]]]);
  cards = new Map<string, AlignmentCardInForce>([[FILES, cardView()]]);
  fleet: AlignmentFleet = fleetOf();
  saved: { agentId: string; text: string }[] = [];

  serve(transport: FakeTransport = new FakeTransport('connected')): FakeTransport {
    return transport
      .handle('alignment.agents', () => ok({ agents: this.agents, recorderPosition: 10 }))
      .handle('alignment.series', (args) => {
        const { agentId, afterSeq = 0, limit = 100_000, newest } = args as { agentId: string; afterSeq?: number; limit?: number; newest?: number };
        const all = this.series.get(agentId) ?? seriesOf({ agentId, count: 0 });
        // The newest N: start after the seq that precedes them, as the runtime does.
        const after = newest === undefined ? afterSeq : (all.seq[all.seq.length - newest - 1] ?? 0);
        return ok(slice(all, after, newest ?? limit));
      })
      .handle('alignment.violations', (args) => ok({ violations: this.violations.get((args as { agentId: string }).agentId) ?? [] }))
      .handle('alignment.trace', (args) => ok(traceView((args as { traceId: string }).traceId)))
      .handle('alignment.card', (args) => {
        const card = this.cards.get((args as { agentId: string }).agentId);
        return card ? ok(card) : { ok: false, error: { code: 'E_NOT_FOUND', message: 'no card' } };
      })
      .handle('alignment.validateCard', (args) => {
        const problems = problemsOf((args as { text: string }).text);
        return ok({ ok: problems.length === 0, problems });
      })
      .handle('alignment.saveCard', (args) => {
        const { agentId, text } = args as { agentId: string; text: string };
        const problems = problemsOf(text);
        if (problems.length > 0) return { ok: false, error: { code: 'E_INVALID_ARGS', message: `the card was not saved; the card in force stays. ${problems[0]!.path}: ${problems[0]!.message}` } };
        this.saved.push({ agentId, text });
        const card = JSON.parse(text) as { card_id: string };
        this.cards.set(agentId, cardView({ agentId, card, source: 'edited' }));
        return ok({ agentId, cardId: card.card_id });
      })
      .handle('alignment.fleet', () => ok(this.fleet));
  }
}

/** The traces of `series` after `afterSeq`, at most `limit`; value usage is kept whole only for a whole answer. */
function slice(series: SeriesColumns, afterSeq: number, limit: number): SeriesColumns {
  let from = series.seq.findIndex((s) => s > afterSeq);
  if (from < 0) from = series.seq.length;
  const to = Math.min(series.seq.length, from + limit);
  const cut = <T>(column: readonly T[]) => column.slice(from, to);
  return {
    ...series,
    seq: cut(series.seq),
    time: cut(series.time),
    similarity: cut(series.similarity),
    driftSimilarity: cut(series.driftSimilarity),
    escalated: cut(series.escalated),
    verified: cut(series.verified),
    alert: cut(series.alert),
    traceIds: cut(series.traceIds),
    actions: cut(series.actions),
    valueUsage: from === 0 && to === series.seq.length ? series.valueUsage : {},
  };
}
