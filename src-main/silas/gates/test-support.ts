import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { Gate, type GateInput } from '../../../src-shared/silas/gates.js';
import type { GateAuditSink } from './provider.js';

/** Test helpers: an in-memory audit sink and a gate builder with the spec defaults. */

export class MemoryAudit implements GateAuditSink {
  readonly events: { event: string; data: JsonObject }[] = [];
  append(event: string, data: JsonObject = {}): void {
    this.events.push({ event, data: structuredClone(data) });
  }
  named(event: string): JsonObject[] {
    return this.events.filter((e) => e.event === event).map((e) => e.data);
  }
}

export function gate(input: Partial<GateInput> & { name?: string } = {}): Gate {
  return Gate.parse({ name: 'g', on: 'on_tool_call', ...input });
}
