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
