import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { AIP_DECISION_EVENT, aipDecisionData } from '../../aip/audit-record.js';
import type { DlpEngine, DlpEvent } from '../../aip/dlp/engine.js';
import type { EvaluationInput, PolicyDecision } from '../../aip/evaluate/evaluator.js';
import type { AgentPolicy } from '../../aip/policy/types.js';

/**
 * The proxy's side of the ledger: every decision in the AIP §8 shape (through
 * `aipDecisionData`, so arguments are DLP-redacted before they are written) plus the server
 * name and proxy session, and the proxy's own events. Appends are synchronous SQLite
 * transactions, so an entry is durable before the caller forwards or answers anything.
 */
export class ProxyAudit {
  constructor(
    private readonly log: AuditLog,
    readonly server: string,
    readonly sessionId: string,
  ) {}

  decision(decision: PolicyDecision, input: EvaluationInput, policy: AgentPolicy | null, dlp: DlpEngine | null, extra: Record<string, JsonValue | undefined> = {}): void {
    const data = aipDecisionData(decision, input, { policy, dlp, direction: 'upstream', sessionId: this.sessionId });
    this.log.append(AIP_DECISION_EVENT, { ...data, server: this.server, ...clean(extra) });
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

  event(name: string, data: Record<string, JsonValue | undefined>): void {
    this.log.append(name, { server: this.server, session_id: this.sessionId, ...clean(data) });
  }
}

function clean(data: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(data)) if (value !== undefined) out[key] = value;
  return out;
}
