import type { AuditEntry } from '../../src-shared/schemas/audit.js';

/** 64 lowercase hex characters; `salt` must be one hex digit. */
const hex = (n: number, salt: string) => salt.repeat(8) + n.toString(16).padStart(56, '0');

/** A well-formed entry for index `index`; `salt` changes the hash to simulate a different chain. */
export function auditEntry(index: number, overrides: Partial<AuditEntry> = {}, salt = 'a'): AuditEntry {
  return {
    index,
    id: `entry-${index}`,
    ts: new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + index * 1000).toISOString(),
    event: index % 2 === 0 ? 'aip.decision' : 'runtime.started',
    data: { tool: `tool_${index}`, decision: 'allow' },
    prevHash: hex(Math.max(0, index - 1), salt),
    hash: hex(index, salt),
    ...overrides,
  };
}

/** Entries `from`..`to` inclusive, newest first. */
export function auditRange(from: number, to: number, salt = 'a'): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (let index = to; index >= from; index -= 1) out.push(auditEntry(index, {}, salt));
  return out;
}
