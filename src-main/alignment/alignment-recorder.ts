import type { DriftAlert, VerificationResult } from '../../src-shared/aap/results.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import type { AuditAppender } from '../../src-shared/audit/events.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { DriftMonitor, type DriftMonitorSnapshot } from '../aap/drift-monitor.js';
import { verifyTrace } from '../aap/verify.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { AlignmentRepository } from '../store/repositories/alignment.js';
import { signAapDocument } from './aap-signatures.js';
import type { CardInForce, CardKeeper } from './card-keeper.js';
import { traceFromEntry } from './trace-builders.js';

/*
 * Turns the ledger's agent decisions into verified AP-Traces as they are recorded (issue 15
 * items 5–7, docs/alignment.md). It reads the chain from its own cursor, one page per turn of the
 * event loop, so proxies writing in other processes, a runtime that was stopped, and a first start
 * on a long history are all the same case: nothing is skipped and nothing is done twice. Each page
 * commits in one transaction: its `aap.trace` entries (the traces themselves, signed when the card
 * asks for it), `aap.violation` and `aap.drift_alert` entries, the Alignment page's rows, the drift
 * monitors' state and the cursor. Notifications go out after the commit.
 */

export const RECORD_PAGE = 500;
/**
 * A page stops early once it has taken this long (the rest is read on the next turn): signing
 * and appending a trace costs a fraction of a millisecond, and no turn of the runtime's event loop
 * may take more than 50 ms (docs/architecture.md §1).
 */
export const PAGE_BUDGET_MS = 20;

export interface AlignmentNotice {
  kind: 'violation' | 'drift';
  agentId: string;
  traceId: string;
  title: string;
  body: string;
}

export interface AlignmentRecorderDeps {
  repo: AlignmentRepository;
  cards: CardKeeper;
  audit: AuditAppender & { after(index: number, limit: number): AuditEntry[] };
  /** Runs `fn` in one BEGIN IMMEDIATE transaction (audit appends join it). */
  transact<T>(fn: () => T): T;
  signer: Pick<OwnerSigner, 'sign'>;
  notify(notice: AlignmentNotice): void;
  now(): Date;
  /** Told after each committed page that recorded traces (the cockpit refreshes). */
  recorded?(agents: readonly string[]): void;
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
    this.cursor = deps.repo.cursor() ?? -1;
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
      for (const entry of entries) {
        const notice = this.record(entry, agents);
        if (notice) notices.push(...notice);
        taken += 1;
        if (performance.now() > deadline) break;
      }
      for (const [agentId, state] of this.monitors) {
        if (!state.dirty) continue;
        this.deps.repo.saveDriftState(agentId, state.cardId, JSON.stringify(state.monitor.snapshot()));
        state.dirty = false;
      }
      this.deps.repo.setCursor(entries[taken - 1]!.index);
    });
    this.cursor = entries[taken - 1]!.index;
    for (const notice of notices) this.deps.notify(notice);
    if (agents.size > 0) this.deps.recorded?.([...agents]);
    return taken;
  }

  private record(entry: AuditEntry, agents: Set<string>): AlignmentNotice[] | null {
    if (entry.event === 'aip.policy_reloaded' || entry.event === 'policies.saved') this.policyChanged(entry);
    const source = traceFromEntry(entry);
    if (!source) return null;
    const card = this.deps.cards.cardFor(source.agentId);
    const trace: ApTrace = { ...source.trace, card_id: card.row.cardId };
    const result = verifyTrace(trace, card.compiled, { now: this.deps.now() });
    const drift = this.monitorFor(source.agentId, card).observe(trace);
    const signature = card.compiled.card.audit_commitment.tamper_evidence === 'signed' ? signAapDocument('trace', trace, this.deps.signer) : null;
    const violations = result.violations.map((v) => v.type);
    const stored = this.deps.audit.append('aap.trace', {
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
    }) as AuditEntry;
    this.deps.repo.insertTrace({
      agentId: source.agentId,
      traceId: trace.trace_id,
      cardId: trace.card_id,
      ts: trace.timestamp,
      sourceIndex: entry.index,
      auditIndex: stored.index,
      actionName: trace.action.name,
      actionType: trace.action.type,
      escalated: trace.escalation?.required === true,
      verified: result.verified,
      violations,
      similarity: result.similarity_score,
      driftSimilarity: drift.similarity,
      driftAlert: drift.alert !== null,
      values: trace.decision.values_applied,
    });
    agents.add(source.agentId);
    const notices: AlignmentNotice[] = [];
    if (!result.verified) notices.push(this.violation(source.agentId, trace, entry, result));
    if (drift.alert) notices.push(this.driftAlert(source.agentId, drift.alert));
    return notices;
  }

  private violation(agentId: string, trace: ApTrace, entry: AuditEntry, result: VerificationResult): AlignmentNotice {
    const violations = result.violations.map((v) => ({ type: v.type, severity: v.severity, description: v.description }));
    this.deps.audit.append('aap.violation', { agent_id: agentId, trace_id: trace.trace_id, card_id: trace.card_id, source_index: entry.index, violations });
    return {
      kind: 'violation',
      agentId,
      traceId: trace.trace_id,
      title: `${agentId} broke its Alignment Card`,
      body: `${trace.action.name}: ${violations.map((v) => v.description).join('; ')}`.slice(0, 300),
    };
  }

  private driftAlert(agentId: string, alert: DriftAlert): AlignmentNotice {
    const { similarity_score: similarity, sustained_traces: sustained, drift_direction: direction } = alert.analysis;
    this.deps.audit.append('aap.drift_alert', { agent_id: agentId, card_id: alert.card_id, similarity, sustained, direction, trace_ids: alert.trace_ids, alert: alert as never });
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
      let monitor: DriftMonitor;
      try {
        monitor = saved && saved.cardId === card.row.cardId ? DriftMonitor.restore(driftCard, JSON.parse(saved.snapshot) as DriftMonitorSnapshot) : new DriftMonitor(driftCard);
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
    const { server, path } = entry.data as { server?: unknown; path?: unknown };
    if (entry.event === 'aip.policy_reloaded' && typeof server === 'string') this.deps.cards.policyChanged(server);
    if (entry.event === 'policies.saved' && typeof path === 'string') this.deps.cards.policyFileChanged(path);
  }
}
