import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { MemoryExportPage, MemoryExportPageArgs } from '../../../src-shared/schemas/memory.js';
import { MemoryExportPageArgs as MemoryExportPageArgsSchema } from '../../../src-shared/schemas/memory.js';
import { closeDatabase, type SqliteDatabase } from '../../store/transaction.js';
import { SqliteMemoryPortability, type ExportSummary, type SqliteMemoryPortabilityDeps } from './portability.js';
import { TransferSessions } from './transfer-sessions.js';

/*
 * The Memory page's "Export memory" (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md
 * "From the cockpit"): the same bundle `silas memory export` writes, every scope, handed out in
 * pages so that no call does unbounded work on the runtime's event loop (docs/architecture.md §1)
 * and no answer outgrows a WebSocket message. The export is `SqliteMemoryPortability.exportBundle`
 * itself, pulled one page at a time, so its header, seal checks, trailer and ledger entry are the
 * CLI's. It reads on a connection of its own: one snapshot for every page, whatever is written
 * meanwhile, without holding a transaction open on the runtime's connection.
 */

/** Characters of bundle per page: with JSON's escaping, well inside WS_MAX_MESSAGE_BYTES (1 MiB). */
export const EXPORT_PAGE_CHARS = 192 * 1024;
/** An export not continued for this long is dropped (its snapshot closed), and must start again. */
const EXPORT_IDLE_MS = 60_000;
/** Exports open at once: each holds a read snapshot, which keeps the WAL from being checkpointed past it. */
const MAX_EXPORTS = 2;
/** Where the ledger entry says the bundle went. */
const DESTINATION = 'the cockpit (download)';

export interface MemoryExportsDeps {
  /** A connection of its own for each export (`openMemoryReader` of the runtime's database). */
  openReader: () => SqliteDatabase;
  seals: SqliteMemoryPortabilityDeps['seals'];
  audit: SqliteMemoryPortabilityDeps['audit'];
  now: () => Date;
  idleMs?: number;
}

interface OpenExport {
  reader: SqliteDatabase;
  lines: Iterator<string>;
  /** Lets `exportBundle` go on once every line was pulled: it then records the export. */
  release: () => void;
  finished: Promise<ExportSummary>;
  count: number;
  /** Bundle text pulled but not yet sent. */
  pending: string;
  /** Characters sent so far: the cursor names it, so a page asked twice is refused, not skipped. */
  sent: number;
  ended: boolean;
}

export class MemoryExports {
  private readonly sessions: TransferSessions<OpenExport>;

  constructor(private readonly deps: MemoryExportsDeps) {
    this.sessions = new TransferSessions({
      what: 'export',
      max: MAX_EXPORTS,
      idleMs: deps.idleMs ?? EXPORT_IDLE_MS,
      now: () => deps.now().getTime(),
      close: (open) => this.abandon(open),
    });
  }

  async page(input: MemoryExportPageArgs): Promise<MemoryExportPage> {
    const args = MemoryExportPageArgsSchema.parse(input);
    const { id, open } = args.cursor === null ? await this.start(args.includeRaw) : this.continued(args.cursor);
    let text: string;
    try {
      text = this.fill(open);
    } catch (error) {
      this.sessions.end(id);
      throw error;
    }
    open.sent += text.length;
    if (!open.ended || open.pending !== '') return { text, next: `${id}.${open.sent}`, count: open.count, done: null };
    // Every line was pulled: exportBundle checks the trailer was reached and records the export.
    open.release();
    try {
      const summary = await open.finished;
      return { text, next: null, count: open.count, done: { count: summary.count, bytes: summary.bytes, sha256: summary.sha256 } };
    } finally {
      this.sessions.end(id);
    }
  }

  /** Drops every export in progress (the runtime stops). */
  close(): void {
    this.sessions.endAll();
  }

  private async start(includeRaw: boolean): Promise<{ id: string; open: OpenExport }> {
    const { seals, audit, now } = this.deps;
    const reader = this.deps.openReader();
    // Filled by exportBundle's call of the writer (a callback, so not narrowed by the compiler).
    const handed: { lines?: Iterator<string>; release?: () => void } = {};
    const portability = new SqliteMemoryPortability({ db: reader, seals, audit, now });
    const finished = portability.exportBundle(
      { scope: null, includeRaw },
      (bundle) => {
        handed.lines = bundle[Symbol.iterator]();
        return new Promise<void>((resolve) => (handed.release = resolve));
      },
      DESTINATION,
    );
    // exportBundle hands over its lines at once, or failed before (the snapshot could not be read).
    const { lines, release } = handed;
    if (lines === undefined || release === undefined) {
      try {
        await finished;
      } finally {
        closeDatabase(reader);
      }
      throw new SilasError(ErrorCode.Internal, 'the export did not start; try again');
    }
    const open: OpenExport = { reader, lines, release, finished, count: 0, pending: '', sent: 0, ended: false };
    let id: string;
    try {
      open.count = this.header(open);
      id = this.sessions.add(open);
    } catch (error) {
      this.abandon(open);
      throw error;
    }
    return { id, open };
  }

  private continued(cursor: string): { id: string; open: OpenExport } {
    const dot = cursor.lastIndexOf('.');
    const id = cursor.slice(0, dot);
    const sent = Number(cursor.slice(dot + 1));
    const open = this.sessions.take(id);
    if (dot < 1 || sent !== open.sent) {
      throw new SilasError(ErrorCode.Conflict, `cursor: this page was already read (the export is at character ${open.sent}); continue from the last page's next, or start the export again with cursor null`);
    }
    return { id, open };
  }

  /** Pulls the header line first, for its count. */
  private header(open: OpenExport): number {
    const first = open.lines.next();
    if (first.done) throw new SilasError(ErrorCode.Internal, 'the export ended before its header; try again');
    open.pending = `${first.value}\n`;
    return (JSON.parse(first.value) as { count: number }).count;
  }

  /** The next page of text: lines are pulled only until a page is full, so a page's work is bounded. */
  private fill(open: OpenExport): string {
    while (!open.ended && open.pending.length < EXPORT_PAGE_CHARS) {
      const next = open.lines.next();
      if (next.done) open.ended = true;
      else open.pending += `${next.value}\n`;
    }
    let cut = Math.min(EXPORT_PAGE_CHARS, open.pending.length);
    // Never between the two halves of a surrogate pair: each page is well-formed text.
    const last = open.pending.charCodeAt(cut - 1);
    if (cut < open.pending.length && last >= 0xd800 && last <= 0xdbff) cut -= 1;
    const text = open.pending.slice(0, cut);
    open.pending = open.pending.slice(cut);
    return text;
  }

  /** Stops the read where it is (no ledger entry: nothing was exported whole) and closes the connection. */
  private abandon(open: OpenExport): void {
    open.lines.return?.();
    open.release();
    void open.finished.catch(() => undefined).finally(() => closeDatabase(open.reader));
  }
}
