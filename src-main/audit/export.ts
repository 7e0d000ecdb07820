import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { readAipDecision, type AipDecisionRecord } from '../../src-shared/audit/aip-decision.js';

/**
 * One JSON object per line in the AIP §8 shape: `timestamp` and `event` first, the decision's
 * own fields, then the chain fields that let a third party re-verify the export.
 */
export function toJsonLine(entry: AuditEntry): string {
  const chain = { timestamp: entry.ts, event: entry.event, audit_index: entry.index, audit_id: entry.id, prev_hash: entry.prevHash, hash: entry.hash };
  // Object.assign gives the same keys in the same order as `{ ...data, ...chain }` at a quarter
  // of the cost on parsed rows (it dominated a 1M-entry export), except for an own `__proto__`
  // key, which it would turn into a prototype instead of exporting: data is attacker-influenced.
  if (Object.hasOwn(entry.data, '__proto__')) return JSON.stringify({ ...entry.data, ...chain });
  return JSON.stringify(Object.assign({}, entry.data, chain));
}

export const CSV_HEADER = 'index,id,timestamp,event,prev_hash,hash,data';

export function toCsvRow(entry: AuditEntry): string {
  return [String(entry.index), entry.id, entry.ts, entry.event, entry.prevHash, entry.hash, JSON.stringify(entry.data)].map(csvCell).join(',');
}

/**
 * RFC 4180 quoting, plus a leading apostrophe on cells a spreadsheet would run as a formula:
 * audit data is attacker-influenced, and an export must not become an exploit.
 */
function csvCell(value: string): string {
  const defused = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(defused) ? `"${defused.replace(/"/g, '""')}"` : defused;
}

const AIP_FIELDS = ['direction', 'method', 'tool', 'args', 'decision', 'policy_mode', 'violation', 'failed_arg', 'failed_rule', 'session_id', 'token_id', 'policy_hash'] as const;
/** Spec 001 §8.1: the decisions an AIP audit record may carry. */
const AIP_DECISIONS: ReadonlySet<unknown> = new Set(['ALLOW', 'BLOCK', 'ALLOW_MONITOR', 'RATE_LIMITED']);
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
function callKey({ server, sessionId, requestId }: AipDecisionRecord): string | null {
  if (sessionId === null || requestId === null) return null;
  return JSON.stringify([server, sessionId, requestId]);
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
  /** Open asks by call, in ledger order, with the proxy session and server they belong to. */
  private readonly open = new Map<string, { entry: AuditEntry; record: AipDecisionRecord }>();

  /** The lines for one ledger entry (none, or the decisions it makes final). */
  lines(entry: AuditEntry): string[] {
    if (entry.event === PROXY_STOPPED_EVENT) return this.closeSession(entry);
    const record = readAipDecision(entry);
    if (!record) return [];
    const decision = record.decision;
    if (decision === 'ASK') {
      this.open.set(callKey(record) ?? `entry:${entry.id}`, { entry, record });
      return [];
    }
    if (!AIP_DECISIONS.has(decision)) {
      throw new SilasError(
        ErrorCode.Internal,
        `audit entry #${entry.index} has decision ${JSON.stringify(decision)}, which spec 001 §8.1 does not list (ALLOW, BLOCK, ALLOW_MONITOR, RATE_LIMITED); export the whole ledger with --format jsonl instead`,
      );
    }
    const key = callKey(record);
    if (key !== null) this.open.delete(key);
    return [aipRecord(entry, entry.ts)];
  }

  /** Asks nobody answered before the export ended. */
  end(): string[] {
    const lines = [...this.open.values()].map(({ entry }) => unanswered(entry, entry.ts));
    this.open.clear();
    return lines;
  }

  private closeSession(stopped: AuditEntry): string[] {
    const lines: string[] = [];
    for (const [key, { entry, record }] of this.open) {
      if (record.sessionId !== stopped.data.session_id || record.server !== stopped.data.server) continue;
      lines.push(unanswered(entry, stopped.ts));
      this.open.delete(key);
    }
    return lines;
  }
}

/** An ask without a recorded approval: refused, as resolveAsk does for a timeout or an unreachable approver. */
function unanswered(ask: AuditEntry, timestamp: string): string {
  return aipRecord(ask, timestamp, { decision: 'BLOCK', violation: true });
}

export type ExportFormat = 'jsonl' | 'aip-jsonl' | 'csv';

/** The export's lines in order, produced one entry at a time as the writer asks for them. */
export function* exportLines(entries: Iterable<AuditEntry>, format: ExportFormat): Generator<string> {
  if (format === 'csv') {
    yield CSV_HEADER;
    for (const entry of entries) yield toCsvRow(entry);
    return;
  }
  if (format === 'jsonl') {
    for (const entry of entries) yield toJsonLine(entry);
    return;
  }
  const aip = new AipJsonlExport();
  for (const entry of entries) yield* aip.lines(entry);
  yield* aip.end();
}

/** Lines gathered into one write: big enough that a write is not per line, small next to the pipe's own buffer. */
const CHUNK_CHARS = 64 * 1024;

/** The reader of the output went away before the export ended (`| head`, a closed socket). */
export class ExportOutputClosed extends SilasError {
  constructor(
    readonly linesWritten: number,
    cause: NodeJS.ErrnoException,
  ) {
    super(
      ErrorCode.Unavailable,
      `the reader closed the output (${cause.code ?? cause.message}) after ${linesWritten} line(s); the export is incomplete. Write to a file with > FILE, or let the reader read to the end`,
    );
  }
}

/**
 * Writes `lines` (newline-terminated) to `out`, waiting for 'drain' whenever the stream's buffer
 * is full, so memory stays flat however slowly the reader reads. Resolves once the last chunk is
 * handed to the OS; rejects with `ExportOutputClosed` when the reader goes away (EPIPE).
 */
export async function writeLines(lines: Iterable<string>, out: NodeJS.WritableStream): Promise<number> {
  let failure: NodeJS.ErrnoException | null = null;
  let wake: (() => void) | null = null;
  const onError = (error: NodeJS.ErrnoException) => {
    failure ??= error;
    wake?.();
  };
  const onDrain = () => wake?.();
  out.on('error', onError);
  out.on('drain', onDrain);
  // Written lines are counted when handed over, so "after N lines" may include some still buffered.
  let written = 0;
  try {
    let chunk = '';
    let inChunk = 0;
    const flush = async (): Promise<void> => {
      const full = !out.write(chunk);
      written += inChunk;
      chunk = '';
      inChunk = 0;
      if (full && failure === null) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      if (failure) throw new ExportOutputClosed(written, failure);
    };
    for (const line of lines) {
      chunk += `${line}\n`;
      inChunk += 1;
      if (chunk.length >= CHUNK_CHARS) await flush();
    }
    if (chunk.length > 0) await flush();
    await new Promise<void>((resolve) => {
      wake = resolve;
      out.write('', () => resolve());
    });
    if (failure) throw new ExportOutputClosed(written, failure);
    return written;
  } finally {
    out.off('drain', onDrain);
    // A stream that failed may report again (the exit's final flush): keep swallowing it here,
    // the caller already has the error.
    if (failure === null) out.off('error', onError);
  }
}
