import { auditDataProblem, auditEvents, type AuditEventData, type AuditEventName } from '../../../../src-shared/audit/events.js';
import type { JsonObject } from '../../../../src-shared/schemas/json.js';
import { Gate, type GateInput } from '../../../../src-shared/silas/gates.js';
import type { GateAuditSink } from '../provider.js';
import { normaliseData } from '../../../audit/chain.js';

/** Test helpers: an in-memory audit sink and a gate builder with the spec defaults. */

export class MemoryAudit implements GateAuditSink {
  readonly events: { event: string; data: JsonObject }[] = [];
  /** Refuses data of the wrong shape like the real ledger, so tests on this sink catch it too. */
  append<E extends AuditEventName>(event: E, data: AuditEventData<E>): void {
    // As the ledger does: normalise to plain JSON first, then check the shape of what would be stored.
    const { value } = normaliseData(data);
    const problem = auditDataProblem(event, auditEvents[event], value);
    if (problem !== null) throw new Error(problem);
    this.events.push({ event, data: value });
  }
  named(event: string): JsonObject[] {
    return this.events.filter((e) => e.event === event).map((e) => e.data);
  }
}

export function gate(input: Partial<GateInput> & { name?: string } = {}): Gate {
  return Gate.parse({ name: 'g', on: 'on_tool_call', ...input });
}
