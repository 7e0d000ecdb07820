import type { AuditEventData, AuditEventName, AuditItem } from '../../../src-shared/audit/events.js';
import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { AIP_DECISION_EVENT, aipDecisionData } from '../../aip/audit-record.js';
import type { DlpEngine, DlpEvent } from '../../aip/dlp/engine.js';
import type { EvaluationInput, PolicyDecision } from '../../aip/evaluate/evaluator.js';
import type { AgentPolicy } from '../../aip/policy/types.js';

type Item = AuditItem;

/**
 * What the proxy adds to a decision besides its server and session: how an ASK ended, what
 * allowed the call, whether its arguments were redacted, and `downstream` for a decision on a
 * server's answer (an answer held for the person). Declared in the ledger catalogue
 * (src-shared/audit/events-runtime.ts) and read back through `readAipDecision`.
 */
export type DecisionExtra = Pick<AuditEventData<typeof AIP_DECISION_EVENT>, 'approval' | 'approval_nonce' | 'approval_key' | 'approval_rejected' | 'standing_id' | 'withdrawn' | 'dlp'> &
  Partial<Pick<AuditEventData<typeof AIP_DECISION_EVENT>, 'direction'>>;

/** A proxy event's own fields: `event` adds the server and the proxy session. */
type ProxyEventData<E extends AuditEventName> = Omit<AuditEventData<E>, 'server' | 'session_id'>;

/** One message's share of a batch: its entries, the effects they allow, and what to undo if they cannot be recorded. */
interface Unit {
  items: Item[];
  effects: (() => void)[];
  undo: (() => void)[];
}

/**
 * The proxy's side of the ledger: every decision in the AIP §8 shape (through
 * `aipDecisionData`, so arguments are DLP-redacted before they are written) plus the server
 * name and proxy session, and the proxy's own events. Appends are synchronous SQLite
 * transactions, so an entry is durable before the caller forwards or answers anything.
 *
 * Batching (`batch`): while one chunk of input is handled, entries are held and every effect
 * (a line to the server or the client, an approval request) is queued behind them. When the
 * chunk is done, all its entries are appended in one transaction and only then do the effects
 * run, in order — DESIGN invariant 3 holds per message, at one commit per chunk instead of one
 * per message. If that commit fails, each message's entries are retried on their own; a
 * message whose entries cannot be recorded has its effects dropped and its bookkeeping undone.
 */
export class ProxyAudit {
  private units: Unit[] | null = null;

  constructor(
    private readonly log: AuditLog,
    readonly server: string,
    readonly sessionId: string,
    /** The agent client that started this proxy (`--client`), when it said. */
    readonly client: string | null = null,
  ) {}

  decision(decision: PolicyDecision, input: EvaluationInput, policy: AgentPolicy | null, dlp: DlpEngine | null, extra: DecisionExtra = {}): void {
    this.add({ event: AIP_DECISION_EVENT, data: this.decisionData(decision, input, policy, dlp, extra) });
  }

  /** Appends at once, never held in a batch: for entries that must share a caller's transaction (a consumed approval nonce). */
  decisionNow(decision: PolicyDecision, input: EvaluationInput, policy: AgentPolicy | null, dlp: DlpEngine | null, extra: DecisionExtra = {}): void {
    this.log.append(AIP_DECISION_EVENT, this.decisionData(decision, input, policy, dlp, extra));
  }

  /** DLP findings: rule names and counts only, never the matched text. */
  dlp(direction: 'upstream' | 'downstream', source: string, events: readonly DlpEvent[], extra: Record<string, JsonValue | undefined> = {}): void {
    if (events.length === 0) return;
    this.event('aip.dlp', {
      direction,
      source,
      rules: events.map((e) => ({ rule: e.rule, count: e.count })),
      ...extra,
    });
  }

  event<E extends AuditEventName>(name: E, data: ProxyEventData<E>): void {
    this.add({ event: name, data: { server: this.server, session_id: this.sessionId, ...(this.client !== null ? { client: this.client } : {}), ...clean(data as Record<string, JsonValue | undefined>) } } as Item);
  }

  /**
   * Runs `chunk` with entries and effects held, then commits the entries in one transaction
   * and runs the effects. Nested calls join the outer batch.
   */
  batch(chunk: () => void, onDropped: (error: unknown) => void): void {
    if (this.units) return chunk();
    const units: Unit[] = [];
    this.units = units;
    try {
      chunk();
    } finally {
      this.units = null;
      this.settle(units, onDropped);
    }
  }

  /** Marks the start of one message inside a batch: its entries and effects stand or fall together. */
  message(): void {
    this.units?.push({ items: [], effects: [], undo: [] });
  }

  /** Runs `effect` once everything appended before it is committed (at once outside a batch). */
  afterCommit(effect: () => void): void {
    if (this.units) this.unit().effects.push(effect);
    else effect();
  }

  /** Undoes bookkeeping if the current message's entries cannot be recorded (nothing outside a batch: there the append already happened). */
  onDrop(undo: () => void): void {
    if (this.units) this.unit().undo.push(undo);
  }

  private decisionData(decision: PolicyDecision, input: EvaluationInput, policy: AgentPolicy | null, dlp: DlpEngine | null, extra: DecisionExtra) {
    const data = aipDecisionData(decision, input, { policy, dlp, direction: 'upstream', sessionId: this.sessionId, server: this.server, client: this.client });
    const fields = extra as Record<string, JsonValue | undefined>;
    for (const key in fields) {
      const value = fields[key];
      if (value !== undefined) data[key] = value;
    }
    return data;
  }

  private add(item: Item): void {
    if (this.units) this.unit().items.push(item);
    else this.log.appendBatch([item]);
  }

  private unit(): Unit {
    const units = this.units!;
    if (units.length === 0) units.push({ items: [], effects: [], undo: [] });
    return units[units.length - 1]!;
  }

  private settle(units: Unit[], onDropped: (error: unknown) => void): void {
    // One pass: a 64 KB chunk of small calls is hundreds of units, and concatenating per unit copied the growing list each time.
    const items: Item[] = [];
    for (const unit of units) for (const item of unit.items) items.push(item);
    let committed = true;
    if (items.length > 0) {
      try {
        this.log.appendBatch(items);
      } catch {
        committed = false;
      }
    }
    for (const unit of units) {
      if (!committed && unit.items.length > 0) {
        try {
          this.log.appendBatch(unit.items);
        } catch (error) {
          for (const undo of unit.undo) undo();
          onDropped(error);
          continue;
        }
      }
      for (const effect of unit.effects) {
        try {
          effect();
        } catch (error) {
          onDropped(error);
        }
      }
    }
  }
}

function clean(data: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const key in data) {
    const value = data[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
