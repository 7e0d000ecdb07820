import type { AuditEntry } from '../../src-shared/schemas/audit.js';

/**
 * One JSON object per line in the AIP §8 shape: `timestamp` and `event` first, the decision's
 * own fields, then the chain fields that let a third party re-verify the export.
 */
export function toJsonLine(entry: AuditEntry): string {
  return JSON.stringify({
    ...entry.data,
    timestamp: entry.ts,
    event: entry.event,
    audit_index: entry.index,
    audit_id: entry.id,
    prev_hash: entry.prevHash,
    hash: entry.hash,
  });
}

export const CSV_HEADER = 'index,id,timestamp,event,prev_hash,hash,data';

export function toCsvRow(entry: AuditEntry): string {
  return [String(entry.index), entry.id, entry.ts, entry.event, entry.prevHash, entry.hash, JSON.stringify(entry.data)].map(csvCell).join(',');
}

/**
 * RFC 4180 quoting, plus a leading apostrophe on cells a spreadsheet would run as a formula:
 * audit data is attacker-influenced, and an export must not become an exploit.
 */
export function csvCell(value: string): string {
  const defused = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(defused) ? `"${defused.replace(/"/g, '""')}"` : defused;
}

const AIP_FIELDS = ['direction', 'method', 'tool', 'args', 'decision', 'policy_mode', 'violation', 'failed_arg', 'failed_rule', 'session_id', 'token_id', 'policy_hash'] as const;

/**
 * An AIP decision exactly in the spec 001 §8 shape (required and optional fields only, in the
 * spec's order), for tools that consume AIP audit logs; null for entries that are not AIP decisions.
 */
export function toAipJsonLine(entry: AuditEntry): string | null {
  if (entry.event !== 'aip.decision') return null;
  const record: Record<string, unknown> = { timestamp: entry.ts };
  for (const field of AIP_FIELDS) if (entry.data[field] !== undefined) record[field] = entry.data[field];
  return JSON.stringify(record);
}
