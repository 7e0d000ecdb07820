import { isUpstreamToolCall, readAipDecision } from '../../../src-shared/audit/aip-decision.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { RecordedCall } from './trial.js';

/** Entries read per page while looking for a server's decisions, newest first. */
const PAGE = 1_000;
/** At most this many entries are read for one replay, whatever the ledger's size. */
const MAX_SCANNED_ENTRIES = 2_000_000;

/**
 * The last `last` tool calls a server's proxy decided (`aip.decision`, upstream `tools/call`),
 * oldest first, with their arguments as the ledger stores them (DLP-redacted where they were).
 * Pages are read by key, newest first, and the scan is bounded (docs/architecture.md §1).
 */
export function recordedCallsFrom(audit: Pick<AuditLog, 'list'>, server: string, last: number): RecordedScan {
  const scan = scanRecorded(audit, server, last);
  for (let step = scan.next(); ; step = scan.next()) if (step.done) return step.value;
}

/** The same scan for the runtime: the event loop gets a turn after every page (docs/architecture.md §1). */
export async function recordedCallsYielding(audit: Pick<AuditLog, 'list'>, server: string, last: number): Promise<RecordedScan> {
  const scan = scanRecorded(audit, server, last);
  for (let step = scan.next(); ; step = scan.next()) {
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export interface RecordedScan {
  calls: RecordedCall[];
  scanned: number;
}

/** Yields after each page read; returns what it found. */
function* scanRecorded(audit: Pick<AuditLog, 'list'>, server: string, last: number): Generator<void, RecordedScan> {
  const found: RecordedCall[] = [];
  let before: number | undefined;
  let scanned = 0;
  while (found.length < last && scanned < MAX_SCANNED_ENTRIES) {
    const page = audit.list(before, PAGE);
    if (page.entries.length === 0) break;
    for (const entry of page.entries) {
      scanned += 1;
      const record = readAipDecision(entry);
      if (!record || record.server !== server || !isUpstreamToolCall(record)) continue;
      const args = record.args !== null && typeof record.args === 'object' && !Array.isArray(record.args) ? (record.args as Record<string, unknown>) : {};
      found.push({ index: entry.index, ts: entry.ts, server, tool: record.tool, args, recorded: String(record.decision) });
      if (found.length >= last) break;
    }
    before = page.entries.at(-1)!.index;
    if (before === 0) break;
    yield;
  }
  return { calls: found.reverse(), scanned };
}
