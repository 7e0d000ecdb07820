import { jsonErrorAt } from '../../src-shared/json-position.js';
import { DEFAULT_SIMILARITY_THRESHOLD } from '../../src-shared/aap/constants.js';
import { ApTrace } from '../../src-shared/aap/trace.js';
import type { ValidationIssue } from '../../src-shared/aap/issues.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { CallResult } from '../../src-shared/contract/index.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import type { JsonValue } from '../../src-shared/schemas/json.js';
import { compileAlignmentCard } from '../aap/card.js';
import { checkFleetCoherence } from '../aap/fleet.js';
import { CHECKS, verifyTrace } from '../aap/verify.js';
import type { AlignmentChainReader } from '../store/repositories/alignment-chain.js';
import type { AlignmentRepository } from '../store/repositories/alignment.js';
import { aapSigner } from './aap-signatures.js';
import type { CardKeeper } from './card-keeper.js';
import { refusedReasonOf } from './refused-card.js';
import { countsSealId, countsSealValue, recountAgent, traceRowHolds, type TraceSeals } from './trace-seals.js';

/*
 * What the Alignment page asks of the runtime (docs/alignment.md "The Alignment page"): the governed
 * agents, each one's traces as chart columns, a trace with every check explained, the card editor
 * (validation as the person types, a signed save), and the fleet's value coherence.
 */

export interface AlignmentServiceDeps {
  repo: AlignmentRepository;
  /** The chain's own alignment entries: what the page shows is checked against them (a row can be edited, they cannot). */
  chain: Pick<AlignmentChainReader, 'range' | 'newest' | 'count'>;
  /** The ledger key's seals over the page's rows; a refusal is audited (state.seal_refused). */
  seals: TraceSeals;
  cards: CardKeeper;
  audit: { after(index: number, limit: number): AuditEntry[] };
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  recorderPosition(): number;
  now(): Date;
}

/** Rows read per turn of the event loop: a 100,000-trace chart must not hold the runtime (docs/architecture.md §1). */
const SERIES_PAGE = 5_000;
/** A series' violations and alerts read from the chain at most: as many as a series has traces. */
const CHAIN_CHECK_LIMIT = 200_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AlignmentService {
  constructor(private readonly deps: AlignmentServiceDeps) {}

  agents(): CallResult<'alignment.agents'> {
    const counts = new Map(this.deps.repo.summaries().map((s) => [s.agentId, s]));
    const cards = new Map(this.deps.repo.activeCards().map((c) => [c.agentId, c]));
    const ids = [...new Set([...counts.keys(), ...cards.keys()])].sort();
    return {
      agents: ids.map((agentId) => {
        const stored = counts.get(agentId);
        // Counts that do not hold their seal (edited, or removed while the agent has a card) are
        // counted again from the chain, and the page says so; the refusal is audited.
        const holds = stored !== undefined && this.deps.seals.check('ledger', 'trace-index', countsSealId(agentId), countsSealValue(stored), stored.seal).ok;
        const s = holds ? stored : recountAgent(this.deps.repo, this.deps.chain, agentId);
        const tampered = !holds && (stored !== undefined || s.traces > 0);
        if (tampered && stored === undefined) this.deps.seals.report({ kind: 'trace-index', id: countsSealId(agentId), authority: 'ledger', reason: 'unsealed', detail: `the counts of ${agentId} were removed outside Silas; they are counted again from the chain` });
        const card = cards.get(agentId);
        // Parsed only when it can be the refused card: the agents list is read on every burst of traces.
        const refused = card?.cardJson.includes('"refused"') ? refusedReasonOf(safeJson(card.cardJson)) : null;
        return {
          ...(tampered ? { countsTampered: true } : {}),
          ...(refused !== null ? { cardRefused: refused } : {}),
          agentId,
          cardId: card?.cardId ?? null,
          cardSource: card?.source ?? null,
          traces: s?.traces ?? 0,
          violations: s?.violations ?? 0,
          escalations: s?.escalations ?? 0,
          alerts: s?.alerts ?? 0,
          lastTs: s?.lastTs ?? null,
        };
      }),
      recorderPosition: this.deps.recorderPosition(),
    };
  }

  /** The agent's traces after `afterSeq`, or (with `newest`) its newest N, oldest first, read a page per turn. */
  async series(agentId: string, afterSeq: number, limit: number, newest?: number): Promise<CallResult<'alignment.series'>> {
    if (newest !== undefined) {
      afterSeq = this.deps.repo.seqBeforeNewest(agentId, newest);
      limit = newest;
    }
    const out: CallResult<'alignment.series'> = {
      agentId,
      seq: [],
      time: [],
      similarity: [],
      driftSimilarity: [],
      escalated: [],
      verified: [],
      alert: [],
      traceIds: [],
      actions: [],
      valueUsage: {},
      driftThreshold: DEFAULT_SIMILARITY_THRESHOLD,
    };
    let after = afterSeq;
    // Value lists repeat (a policy decision applies one of a few): each distinct JSON parsed once.
    const valueLists = new Map<string, string[]>();
    while (out.seq.length < limit) {
      const rows = this.deps.repo.seriesRows(agentId, after, Math.min(SERIES_PAGE, limit - out.seq.length));
      for (const row of rows) {
        out.seq.push(row.seq);
        out.time.push(Date.parse(row.ts));
        out.similarity.push(row.similarity);
        out.driftSimilarity.push(row.drift_similarity);
        out.escalated.push(row.escalated);
        out.verified.push(row.verified);
        out.alert.push(row.drift_alert);
        out.traceIds.push(row.trace_id);
        out.actions.push(row.action_name);
        let values = valueLists.get(row.values_json);
        if (!values) valueLists.set(row.values_json, (values = JSON.parse(row.values_json) as string[]));
        for (const value of values) out.valueUsage[value] = (out.valueUsage[value] ?? 0) + 1;
      }
      if (rows.length < SERIES_PAGE) break;
      after = rows.at(-1)!.seq;
      await nextTurn();
    }
    const reachedEnd = out.seq.length < limit;
    this.checkSeriesAgainstChain(out, afterSeq, reachedEnd);
    return out;
  }

  /**
   * The series' violations and drift alerts as the chain records them: a row whose verdict or
   * alert was edited away shows the chain's, and is reported as tampered (audited). Only the
   * chain's `aap.violation` and `aap.drift_alert` entries in the series' range are read (a few per
   * thousand traces), so a 100,000-trace chart stays one pass over its columns.
   */
  private checkSeriesAgainstChain(out: CallResult<'alignment.series'>, afterSeq: number, reachedEnd: boolean): void {
    if (out.seq.length === 0 && afterSeq > 0) return;
    const first = out.traceIds.length > 0 ? this.deps.repo.recordedTrace(out.traceIds[0]!) : null;
    const last = out.traceIds.length > 0 ? this.deps.repo.recordedTrace(out.traceIds.at(-1)!) : null;
    const from = afterSeq === 0 || !first ? -1 : first.auditIndex - 1;
    const upTo = reachedEnd || !last ? Number.MAX_SAFE_INTEGER : last.auditIndex + 2;
    const violated = new Set(this.deps.chain.range('aap.violation', out.agentId, from, upTo, CHAIN_CHECK_LIMIT).map((e) => String(e.data.trace_id)));
    const alerted = new Set(
      this.deps.chain
        .range('aap.drift_alert', out.agentId, from, upTo, CHAIN_CHECK_LIMIT)
        .map((e) => (Array.isArray(e.data.trace_ids) ? String(e.data.trace_ids.at(-1)) : ''))
        .filter((id) => id !== ''),
    );
    if (violated.size === 0 && alerted.size === 0) return;
    const tampered: string[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < out.traceIds.length; i += 1) {
      const id = out.traceIds[i]!;
      const isViolated = violated.has(id);
      const isAlerted = alerted.has(id);
      if (!isViolated && !isAlerted) continue;
      seen.add(id);
      if ((isViolated && out.verified[i] === 1) || (isAlerted && out.alert[i] === 0)) tampered.push(id);
      if (isViolated) out.verified[i] = 0;
      if (isAlerted) out.alert[i] = 1;
    }
    // Violations the chain holds whose rows are gone from the range: tampering too.
    for (const id of new Set([...violated, ...alerted])) {
      if (seen.has(id)) continue;
      const row = this.deps.repo.recordedTrace(id);
      if (!row || (violated.has(id) && row.verified) || (alerted.has(id) && !row.driftAlert) || !traceRowHolds(this.deps.seals, row, false)) tampered.push(id);
    }
    if (tampered.length === 0) return;
    out.tampered = [...new Set(tampered)];
    for (const id of out.tampered) this.reportRow(out.agentId, id, 'its violation or drift alert');
  }

  /** The agent's newest violations as the chain records them (`aap.violation`), whatever the page's rows say. */
  violations(agentId: string, limit: number): CallResult<'alignment.violations'> {
    const entries = this.deps.chain.newest('aap.violation', agentId, limit);
    const rows = new Map(this.deps.repo.tracesByIds(entries.map((e) => String(e.data.trace_id))).map((row) => [row.traceId, row]));
    return {
      violations: entries.map((entry) => {
        const data = entry.data as { trace_id: string; violations?: Array<{ type?: unknown }> };
        const types = (data.violations ?? []).map((v) => String(v.type));
        const row = rows.get(data.trace_id);
        if (row && !row.verified && traceRowHolds(this.deps.seals, row, true)) return { traceId: row.traceId, ts: row.ts, actionName: row.actionName, violations: types };
        // The row was removed, flipped to verified, or fails its seal: the chain's own trace entry says what happened.
        this.reportRow(agentId, data.trace_id, 'its violation');
        const trace = this.deps.audit.after(entry.index - 2, 1)[0];
        const traced = trace?.event === 'aap.trace' && trace.data.trace_id === data.trace_id ? (trace.data.trace as { action?: { name?: unknown }; timestamp?: unknown }) : null;
        return {
          traceId: data.trace_id,
          ts: typeof traced?.timestamp === 'string' ? traced.timestamp : entry.ts,
          actionName: typeof traced?.action?.name === 'string' ? traced.action.name : '(unknown)',
          violations: types,
          tampered: true,
        };
      }),
    };
  }

  /** A page row that hides what the chain records: reported once (state.seal_refused), so the tampering is in the ledger. */
  private reportRow(agentId: string, traceId: string, what: string): void {
    this.deps.seals.report({ kind: 'trace-index', id: `trace:${traceId}`.slice(0, 512), authority: 'ledger', reason: 'mismatch', detail: `the Alignment page's row of ${agentId}'s trace ${traceId} does not show ${what} recorded in the chain: it was edited or removed outside Silas; the chain's record is shown` });
  }

  /** The trace as the chain holds it, checked again now against the card it names. */
  trace(traceId: string): CallResult<'alignment.trace'> {
    const row = this.deps.repo.traceById(traceId);
    if (!row) throw new SilasError(ErrorCode.NotFound, `no AP-Trace "${traceId.slice(0, 200)}"; pick one from the agent's chart or violations`);
    const entry = this.deps.audit.after(row.auditIndex - 1, 1)[0];
    const data = entry?.event === 'aap.trace' ? (entry.data as { trace_id?: unknown; trace?: unknown; signature?: string | null }) : null;
    if (!data || data.trace_id !== traceId) throw new SilasError(ErrorCode.Corrupt, `the chain entry ${row.auditIndex} does not hold trace ${traceId}; run "silas audit verify"`);
    const parsed = ApTrace.safeParse(data.trace);
    if (!parsed.success) throw new SilasError(ErrorCode.Corrupt, `the trace in chain entry ${row.auditIndex} is not a valid AP-Trace; run "silas audit verify"`);
    const cardRow = this.deps.repo.cardById(parsed.data.card_id);
    if (!cardRow) throw new SilasError(ErrorCode.NotFound, `the card ${parsed.data.card_id} this trace names is not kept`);
    const cardJson = JSON.parse(cardRow.cardJson) as unknown;
    // Checked against a card the database could have rewritten, the verdict would mean nothing.
    if (aapSigner('card', cardJson, cardRow.signature, this.deps.trustedKeys()) === null) {
      throw new SilasError(ErrorCode.Corrupt, `the card ${cardRow.cardId} this trace names is not signed by the owner key (edited in the database?); run "silas audit verify"`);
    }
    const compiled = compileAlignmentCard(cardJson);
    if (!compiled.ok) throw new SilasError(ErrorCode.Corrupt, `the card ${cardRow.cardId} no longer validates: ${compiled.errors[0]?.path}: ${compiled.errors[0]?.message}`);
    const verification = verifyTrace(parsed.data, compiled.compiled, { now: this.deps.now() });
    const signer = aapSigner('trace', parsed.data, data.signature ?? null, this.deps.trustedKeys());
    return {
      trace: parsed.data as JsonValue,
      card: compiled.compiled.card as JsonValue,
      verification: verification as unknown as JsonValue,
      checks: CHECKS.map((check) => checkView(check, verification)),
      signature: signer !== null ? 'owner' : data.signature ? 'invalid' : 'unsigned',
      matchesChain: row.verified === verification.verified && row.cardId === parsed.data.card_id,
      auditIndex: row.auditIndex,
      sourceIndex: row.sourceIndex,
    };
  }

  card(agentId: string): CallResult<'alignment.card'> {
    const { row } = this.deps.cards.cardFor(agentId);
    const card = JSON.parse(row.cardJson) as JsonValue;
    const signer = aapSigner('card', card, row.signature, this.deps.trustedKeys());
    return { agentId, card, source: row.source, signature: signer !== null ? 'owner' : row.signature ? 'invalid' : 'unsigned', refused: refusedReasonOf(card) };
  }

  /** The person's explicit "use the card derived from the signed policy" (cockpit credential only). */
  useDerivedCard(agentId: string): CallResult<'alignment.useDerivedCard'> {
    const derived = this.deps.cards.useDerived(agentId);
    return { agentId, cardId: derived.row.cardId };
  }

  validateCard(agentId: string, text: string): CallResult<'alignment.validateCard'> {
    const parsed = parseCardText(text);
    if (!parsed.ok) return { ok: false, problems: [parsed.problem] };
    const problems = this.deps.cards.problemsOf(agentId, parsed.value);
    return { ok: problems.length === 0, problems: problems.map(problemView) };
  }

  saveCard(agentId: string, text: string): CallResult<'alignment.saveCard'> {
    const parsed = parseCardText(text);
    if (!parsed.ok) throw new SilasError(ErrorCode.InvalidArgs, `the card was not saved; the card in force stays. ${parsed.problem.message}`);
    const saved = this.deps.cards.saveEdited(agentId, parsed.value);
    return { agentId, cardId: saved.row.cardId };
  }

  fleet(): CallResult<'alignment.fleet'> {
    const members = this.deps.repo.activeCards().map((row) => {
      const card = JSON.parse(row.cardJson) as { card_id: string; values: { declared: string[]; conflicts_with?: string[] | null } };
      return { agent_id: row.agentId, card };
    });
    // Coherence is between agents: with fewer than two there is no pair and nothing conflicts.
    if (members.length < 2) return { agents: members.map((m) => m.agent_id), matrix: members.map(() => [1]), fleetScore: 1, conflicts: [], outliers: [], clusters: members.map((m) => [m.agent_id]) };
    const fleet = checkFleetCoherence(members);
    return {
      agents: members.map((m) => m.agent_id),
      matrix: fleet.matrix,
      fleetScore: fleet.fleet_score,
      conflicts: fleet.pairs
        .filter((pair) => pair.result.value_alignment.conflicts.length > 0)
        .map((pair) => ({ agentA: pair.agent_a, agentB: pair.agent_b, values: [...new Set(pair.result.value_alignment.conflicts.flatMap((c) => [c.initiator_value, c.responder_value]))] })),
      outliers: fleet.outliers.map((o) => o.agent_id),
      clusters: fleet.clusters.map((c) => c.agent_ids),
    };
  }
}

function checkView(check: (typeof CHECKS)[number], result: ReturnType<typeof verifyTrace>): { check: string; passed: boolean; detail: string } {
  const FIELDS: Record<string, readonly string[]> = {
    card_reference: ['card_mismatch'],
    card_expiry: ['card_expired'],
    autonomy: ['unbounded_action'],
    forbidden: ['forbidden_action'],
    escalation: ['missed_escalation'],
    values: ['undeclared_value'],
    behavioral_similarity: [],
  };
  if (check === 'behavioral_similarity') {
    const low = result.warnings.some((w) => w.type === 'low_behavioral_similarity');
    return { check, passed: !low, detail: `similarity ${result.similarity_score.toFixed(4)} to the card${low ? ' (below 0.5: reported as a warning)' : ''}` };
  }
  const found = result.violations.filter((v) => FIELDS[check]!.includes(v.type));
  if (check === 'escalation') {
    const triggers = result.verification_metadata.triggers;
    const matched = triggers.filter((t) => t.matched).map((t) => `${t.condition} → ${t.satisfied ? 'satisfied' : 'not satisfied'}`);
    return { check, passed: found.length === 0, detail: found.length > 0 ? found.map((v) => v.description).join('; ') : matched.length > 0 ? matched.join('; ') : `${triggers.length} trigger(s) checked, none matched` };
  }
  return { check, passed: found.length === 0, detail: found.length > 0 ? found.map((v) => v.description).join('; ') : 'passed' };
}

function problemView(problem: ValidationIssue): { path: string; message: string; expected?: string } {
  return { path: problem.path, message: problem.message, ...(problem.expected !== undefined ? { expected: problem.expected } : {}) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The card's JSON text, or where it stops being JSON (line and column). */
function parseCardText(text: string): { ok: true; value: unknown } | { ok: false; problem: { path: string; message: string } } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, problem: { path: '', message: jsonErrorAt(text) } };
  }
}
