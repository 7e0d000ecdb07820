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
import type { AlignmentRepository } from '../store/repositories/alignment.js';
import { aapSigner } from './aap-signatures.js';
import type { CardKeeper } from './card-keeper.js';

/*
 * What the Alignment page asks of the runtime (issue 15 item 8, docs/alignment.md): the governed
 * agents, each one's traces as chart columns, a trace with every check explained, the card editor
 * (validation as the person types, a signed save), and the fleet's value coherence.
 */

export interface AlignmentServiceDeps {
  repo: AlignmentRepository;
  cards: CardKeeper;
  audit: { after(index: number, limit: number): AuditEntry[] };
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  recorderPosition(): number;
  now(): Date;
}

/** Rows read per turn of the event loop: a 100,000-trace chart must not hold the runtime (docs/architecture.md §1). */
const SERIES_PAGE = 5_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class AlignmentService {
  constructor(private readonly deps: AlignmentServiceDeps) {}

  agents(): CallResult<'alignment.agents'> {
    const counts = new Map(this.deps.repo.summaries().map((s) => [s.agentId, s]));
    const cards = new Map(this.deps.repo.activeCards().map((c) => [c.agentId, c]));
    const ids = [...new Set([...counts.keys(), ...cards.keys()])].sort();
    return {
      agents: ids.map((agentId) => {
        const s = counts.get(agentId);
        const card = cards.get(agentId);
        return {
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
    return out;
  }

  violations(agentId: string, limit: number): CallResult<'alignment.violations'> {
    return { violations: this.deps.repo.violations(agentId, limit).map((row) => ({ traceId: row.traceId, ts: row.ts, actionName: row.actionName, violations: row.violations })) };
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
    return { agentId, card, source: row.source, signature: signer !== null ? 'owner' : row.signature ? 'invalid' : 'unsigned' };
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

/** The card's JSON text, or where it stops being JSON (line and column). */
function parseCardText(text: string): { ok: true; value: unknown } | { ok: false; problem: { path: string; message: string } } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, problem: { path: '', message: jsonErrorAt(text) } };
  }
}
