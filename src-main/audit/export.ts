import { ErrorCode, SilasError } from '../../src-shared/errors.js';
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
/** Spec 001 §8.1: the decisions an AIP audit record may carry. */
const AIP_DECISIONS: ReadonlySet<unknown> = new Set(['ALLOW', 'BLOCK', 'ALLOW_MONITOR', 'RATE_LIMITED']);
const AIP_DECISION_EVENT = 'aip.decision';
const PROXY_STOPPED_EVENT = 'mcp.proxy_stopped';

/** The §8 record of an entry: required and optional fields only, in the spec's order. */
function aipRecord(entry: AuditEntry, timestamp: string, override: Record<string, unknown> = {}): string {
  const record: Record<string, unknown> = { timestamp };
  for (const field of AIP_FIELDS) {
    const value = field in override ? override[field] : entry.data[field];
    if (value !== undefined) record[field] = value;
  }
  return JSON.stringify(record);
}

/** Which call a decision belongs to: the proxy session and the JSON-RPC id (unique while in flight). */
function callKey(entry: AuditEntry): string | null {
  const { server, session_id: session, request_id: id } = entry.data;
  if (typeof session !== 'string' || id === undefined || id === null) return null;
  return JSON.stringify([server ?? null, session, id]);
}

/**
 * AIP decisions exactly in the spec 001 §8 shape, for tools that consume AIP audit logs.
 *
 * §8.1 knows no ASK: the ledger's ASK entry records that the person was asked, and the
 * decision is the entry written when they answered (ALLOW, or BLOCK with -32004/-32005). So an
 * ASK is held back and the answer exported in its place, at the time it was made. An ask whose
 * proxy stopped first became a BLOCK then (the client got an error, nothing was forwarded); one
 * still open when the export ends has not been allowed, so it is written last as a BLOCK at the
 * time it was asked (fail closed: "not approved" is never exported as anything but BLOCK).
 */
export class AipJsonlExport {
  /** Open asks by call, in ledger order. */
  private readonly open = new Map<string, AuditEntry>();

  /** The lines for one ledger entry (none, or the decisions it makes final). */
  lines(entry: AuditEntry): string[] {
    if (entry.event === PROXY_STOPPED_EVENT) return this.closeSession(entry);
    if (entry.event !== AIP_DECISION_EVENT) return [];
    const decision = entry.data.decision;
    if (decision === 'ASK') {
      this.open.set(callKey(entry) ?? `entry:${entry.id}`, entry);
      return [];
    }
    if (!AIP_DECISIONS.has(decision)) {
      throw new SilasError(
        ErrorCode.Internal,
        `audit entry #${entry.index} has decision ${JSON.stringify(decision)}, which spec 001 §8.1 does not list (ALLOW, BLOCK, ALLOW_MONITOR, RATE_LIMITED); export the whole ledger with --format jsonl instead`,
      );
    }
    const key = callKey(entry);
    if (key !== null) this.open.delete(key);
    return [aipRecord(entry, entry.ts)];
  }

  /** Asks nobody answered before the export ended. */
  end(): string[] {
    const lines = [...this.open.values()].map((ask) => unanswered(ask, ask.ts));
    this.open.clear();
    return lines;
  }

  private closeSession(stopped: AuditEntry): string[] {
    const lines: string[] = [];
    for (const [key, ask] of this.open) {
      if (ask.data.session_id !== stopped.data.session_id || ask.data.server !== stopped.data.server) continue;
      lines.push(unanswered(ask, stopped.ts));
      this.open.delete(key);
    }
    return lines;
  }
}

/** An ask without a recorded approval: refused, as resolveAsk does for a timeout or an unreachable approver. */
function unanswered(ask: AuditEntry, timestamp: string): string {
  return aipRecord(ask, timestamp, { decision: 'BLOCK', violation: true });
}
