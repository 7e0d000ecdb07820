import type { DriftAlert, VerificationResult } from '../../src-shared/aap/results.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import type { AuditItem } from '../../src-shared/audit/events.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { DriftMonitor, type DriftMonitorSnapshot } from '../aap/drift-monitor.js';
import { verifyTrace } from '../aap/verify.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AlignmentChainReader } from '../store/repositories/alignment-chain.js';
import type { AgentCounts, AlignmentRepository, AlignmentTraceRow } from '../store/repositories/alignment.js';
import { aapSigner, signAapDocument } from './aap-signatures.js';
import type { CardInForce, CardKeeper } from './card-keeper.js';
import { refusedCardViolation } from './refused-card.js';
import { traceFromEntry } from './trace-builders.js';
import { countsSealId, countsSealValue, recountAgent, sealTraceRow, traceRowHolds, type TraceSeals } from './trace-seals.js';

/*
 * Turns the ledger's agent decisions into verified AP-Traces as they are recorded, drift included
 * (docs/alignment.md "From a ledger entry to a verified trace"). It reads the chain from its own
 * cursor, one page per turn of the event loop, so proxies writing in other processes, a runtime
 * that was stopped, and a first start on a long history are all the same case: nothing is skipped
 * and nothing is done twice. Each page commits in one transaction: its `aap.trace` entries (the
 * traces themselves, signed when the card asks for it), `aap.violation` and `aap.drift_alert`
 * entries, the Alignment page's rows, the drift monitors' state and the cursor. Notifications go
 * out after the commit.
 */

export const RECORD_PAGE = 500;
/**
 * A page stops early once it has taken this long (the rest is read on the next turn): signing
 * and appending a trace costs a fraction of a millisecond, and no turn of the runtime's event loop
 * may take more than 50 ms (docs/architecture.md §1).
 */
const PAGE_BUDGET_MS = 20;

export interface AlignmentNotice {
  kind: 'violation' | 'drift';
  agentId: string;
  traceId: string;
  title: string;
  body: string;
}

export interface AlignmentRecorderDeps {
  repo: AlignmentRepository;
  /** The chain's own alignment entries: counts that do not hold are counted again from them. */
  chain: Pick<AlignmentChainReader, 'count'>;
  cards: CardKeeper;
  /**
   * The ledger key's seals over the page's rows (docs/architecture.md §2 "Sealed state"): a row
   * counts as "already recorded" only when its seal holds, so a row planted in the database
   * cannot make the recorder skip a decision.
   */
  seals: TraceSeals;
  audit: Pick<AuditLog, 'append' | 'appendBatch' | 'after'>;
  /** Runs `fn` in one BEGIN IMMEDIATE transaction (audit appends join it). */
  transact<T>(fn: () => T): T;
  signer: Pick<OwnerSigner, 'sign'>;
  /** The keyring's owner key, against which the saved cursor and drift states are checked. */
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  notify(notice: AlignmentNotice): void;
  now(): Date;
  /** Told after each committed page that recorded traces (the cockpit refreshes). */
  recorded?(agents: readonly string[]): void;
}

/** What one decision adds to the page's commit: its chain entries (the trace first) and its page row. */
interface Recorded {
  items: AuditItem[];
  row: Omit<AlignmentTraceRow, 'seq' | 'auditIndex' | 'seal'>;
  notices: AlignmentNotice[];
  /** A row of this trace is in the database but its seal fails: it is replaced by the real one. */
  replaces: boolean;
}

interface Monitor {
  cardId: string;
  monitor: DriftMonitor;
  dirty: boolean;
}

export class AlignmentRecorder {
  private cursor: number;
  private scheduled: NodeJS.Immediate | null = null;
  private stopped = false;
  private readonly monitors = new Map<string, Monitor>();

  constructor(private readonly deps: AlignmentRecorderDeps) {
    const saved = deps.repo.cursor();
    // A cursor the owner key did not sign may skip decisions: the chain is read again from the
    // start instead, and what was recorded already is not recorded twice.
    const signed = saved !== null && aapSigner('cursor', { index: saved.index }, saved.signature, deps.trustedKeys()) !== null;
    if (saved !== null && !signed) deps.audit.append('aap.state_refused', { state: 'cursor', reason: `the saved position ${saved.index} is not signed by the owner key (edited in the database?); the chain is read again` });
    this.cursor = signed ? saved.index : -1;
  }

  /** How far the recorder has read the chain. */
  get position(): number {
    return this.cursor;
  }

  /** Something was appended: the next page is read on a later turn (once, however many nudges). */
  nudge(): void {
    if (this.stopped || this.scheduled) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = null;
      if (this.recordPage() > 0) this.nudge();
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
  }

  /** Reads and records one page after the cursor (stopping early at PAGE_BUDGET_MS); returns how many entries it took. */
  recordPage(): number {
    const entries = this.deps.audit.after(this.cursor, RECORD_PAGE);
    if (entries.length === 0) return 0;
    const notices: AlignmentNotice[] = [];
    const agents = new Set<string>();
    const deadline = performance.now() + PAGE_BUDGET_MS;
    let taken = 0;
    this.deps.transact(() => {
      const recorded: Recorded[] = [];
      for (const entry of entries) {
        const one = this.record(entry);
        if (one) recorded.push(one);
        taken += 1;
        if (performance.now() > deadline) break;
      }
      // One batch for the page's chain entries; each row then names its trace's entry.
      const appended = this.deps.audit.appendBatch(recorded.flatMap((r) => r.items));
      const counts = new Map<string, AgentCounts>();
      let at = 0;
      for (const one of recorded) {
        const { row } = one;
        if (one.replaces) this.deps.repo.removeTrace(row.traceId);
        const sealed = { ...row, auditIndex: appended[at]!.index };
        this.deps.repo.insertTrace({ ...sealed, seal: sealTraceRow(this.deps.seals, sealed) });
        at += one.items.length;
        agents.add(row.agentId);
        notices.push(...one.notices);
        const c = counts.get(row.agentId) ?? { agentId: row.agentId, traces: 0, violations: 0, escalations: 0, alerts: 0, lastTs: null };
        counts.set(row.agentId, { ...c, traces: c.traces + 1, violations: c.violations + (row.verified ? 0 : 1), escalations: c.escalations + (row.escalated ? 1 : 0), alerts: c.alerts + (row.driftAlert ? 1 : 0), lastTs: row.ts > (c.lastTs ?? '') ? row.ts : c.lastTs });
      }
      for (const c of counts.values()) this.addCounts(c);
      for (const [agentId, state] of this.monitors) {
        if (!state.dirty) continue;
        const snapshot = JSON.stringify(state.monitor.snapshot());
        this.deps.repo.saveDriftState(agentId, state.cardId, snapshot, signAapDocument('drift', { agentId, cardId: state.cardId, snapshot }, this.deps.signer));
        state.dirty = false;
      }
      const index = entries[taken - 1]!.index;
      this.deps.repo.setCursor(index, signAapDocument('cursor', { index }, this.deps.signer));
    });
    this.cursor = entries[taken - 1]!.index;
    for (const notice of notices) this.deps.notify(notice);
    if (agents.size > 0) this.deps.recorded?.([...agents]);
    return taken;
  }

  private record(entry: AuditEntry): Recorded | null {
    if (entry.event === 'aip.policy_reloaded' || entry.event === 'policies.saved') this.policyChanged(entry);
    const source = traceFromEntry(entry);
    if (!source) return null;
    // Recorded already only when its row holds its seal; a planted row is reported (state.seal_refused) and replaced.
    const existing = this.deps.repo.recordedTrace(source.trace.trace_id);
    if (existing && traceRowHolds(this.deps.seals, existing, true)) return null;
    const card = this.deps.cards.cardFor(source.agentId, source.subject);
    const trace: ApTrace = { ...source.trace, card_id: card.row.cardId };
    const verified = verifyTrace(trace, card.compiled, { now: this.deps.now() });
    // A refused card leaves the agent failed closed: every action counts as a violation, of its own type.
    const refused = refusedCardViolation(card.compiled.card);
    const result: VerificationResult = refused ? { ...verified, verified: false, violations: [refused, ...verified.violations] } : verified;
    const drift = this.monitorFor(source.agentId, card).observe(trace);
    const signature = card.compiled.card.audit_commitment.tamper_evidence === 'signed' ? signAapDocument('trace', trace, this.deps.signer) : null;
    const violations = result.violations.map((v) => v.type);
    const items: AuditItem[] = [
      {
        event: 'aap.trace',
        data: {
          agent_id: source.agentId,
          trace_id: trace.trace_id,
          card_id: trace.card_id,
          source_index: entry.index,
          verified: result.verified,
          violations,
          similarity: result.similarity_score,
          drift_similarity: drift.similarity,
          trace: trace as never,
          signature,
        },
      },
    ];
    const notices: AlignmentNotice[] = [];
    if (!result.verified) notices.push(this.violation(source.agentId, trace, entry, result, items));
    if (drift.alert) notices.push(this.driftAlert(source.agentId, drift.alert, items));
    const row = {
      agentId: source.agentId,
      traceId: trace.trace_id,
      cardId: trace.card_id,
      ts: trace.timestamp,
      sourceIndex: entry.index,
      actionName: trace.action.name,
      actionType: trace.action.type,
      escalated: trace.escalation?.required === true,
      verified: result.verified,
      violations,
      similarity: result.similarity_score,
      driftSimilarity: drift.similarity,
      driftAlert: drift.alert !== null,
      values: trace.decision.values_applied,
    };
    return { items, row, notices, replaces: existing !== null };
  }

  /**
   * Adds a page's figures to an agent's counts when the stored counts hold their seal; otherwise
   * (edited, or missing) the counts are taken again from the rows and the chain, then sealed.
   */
  private addCounts(page: AgentCounts): void {
    const stored = this.deps.repo.countsOf(page.agentId);
    const holds = stored !== null && this.deps.seals.check('ledger', 'trace-index', countsSealId(page.agentId), countsSealValue(stored), stored.seal).ok;
    const next: AgentCounts = holds
      ? {
          agentId: page.agentId,
          traces: stored.traces + page.traces,
          violations: stored.violations + page.violations,
          escalations: stored.escalations + page.escalations,
          alerts: stored.alerts + page.alerts,
          lastTs: page.lastTs !== null && page.lastTs > (stored.lastTs ?? '') ? page.lastTs : stored.lastTs,
        }
      : recountAgent(this.deps.repo, this.deps.chain, page.agentId);
    this.deps.repo.setCounts(next, this.deps.seals.seal('ledger', 'trace-index', countsSealId(next.agentId), countsSealValue(next)));
  }

  private violation(agentId: string, trace: ApTrace, entry: AuditEntry, result: VerificationResult, items: AuditItem[]): AlignmentNotice {
    const violations = result.violations.map((v) => ({ type: v.type, severity: v.severity, description: v.description }));
    items.push({ event: 'aap.violation', data: { agent_id: agentId, trace_id: trace.trace_id, card_id: trace.card_id, source_index: entry.index, violations } });
    return {
      kind: 'violation',
      agentId,
      traceId: trace.trace_id,
      title: `${agentId} broke its Alignment Card`,
      body: `${trace.action.name}: ${violations.map((v) => v.description).join('; ')}`.slice(0, 300),
    };
  }

  private driftAlert(agentId: string, alert: DriftAlert, items: AuditItem[]): AlignmentNotice {
    const { similarity_score: similarity, sustained_traces: sustained, drift_direction: direction } = alert.analysis;
    items.push({ event: 'aap.drift_alert', data: { agent_id: agentId, card_id: alert.card_id, similarity, sustained, direction, trace_ids: alert.trace_ids, alert: alert as never } });
    return {
      kind: 'drift',
      agentId,
      traceId: alert.trace_ids.at(-1) ?? '',
      title: `${agentId} is drifting from its baseline`,
      body: `${sustained} decisions in a row at similarity ${similarity.toFixed(2)} (${direction.replaceAll('_', ' ')}). ${alert.recommendation}`,
    };
  }

  /** The agent's drift monitor for its card in force: restored from its saved state, or new when the card changed. */
  private monitorFor(agentId: string, card: CardInForce): DriftMonitor {
    const known = this.monitors.get(agentId);
    let state = known && known.cardId === card.row.cardId ? known : null;
    if (!state) {
      const saved = this.deps.repo.driftState(agentId);
      const driftCard = card.compiled.card;
      const signed = saved !== null && aapSigner('drift', { agentId, cardId: saved.cardId, snapshot: saved.snapshot }, saved.signature, this.deps.trustedKeys()) !== null;
      // A baseline the owner key did not sign could hide drift (marked alerted, moved centroid): it starts anew.
      if (saved !== null && !signed) this.deps.audit.append('aap.state_refused', { state: `drift:${agentId}`, reason: 'the saved drift baseline is not signed by the owner key (edited in the database?); a new baseline is formed' });
      let monitor: DriftMonitor;
      try {
        monitor = signed && saved.cardId === card.row.cardId ? DriftMonitor.restore(driftCard, JSON.parse(saved.snapshot) as DriftMonitorSnapshot) : new DriftMonitor(driftCard);
      } catch {
        // A saved state this version cannot read starts a new baseline rather than stopping the recorder.
        monitor = new DriftMonitor(driftCard);
      }
      state = { cardId: card.row.cardId, monitor, dirty: false };
      this.monitors.set(agentId, state);
    }
    state.dirty = true;
    return state.monitor;
  }

  private policyChanged(entry: AuditEntry): void {
    const { server, client, path } = entry.data as { server?: unknown; client?: unknown; path?: unknown };
    if (entry.event === 'aip.policy_reloaded' && typeof server === 'string') this.deps.cards.policyChanged(server, typeof client === 'string' ? client : null);
    if (entry.event === 'policies.saved' && typeof path === 'string') this.deps.cards.policyFileChanged(path);
  }
}
