import { createHash } from 'node:crypto';
import type { AuditAppender } from '../../../src-shared/audit/events.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { MemoryErrorCode } from '../../../src-shared/silas/memory.js';
import type { SealRefusal, StateSeals } from '../../keys/sealed-state.js';
import { MemoryBundleRepository, type MemoryCover } from '../../store/repositories/memory-bundle.js';
import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import { BUNDLE_KIND, BUNDLE_VERSION, MEMORY_SCHEMA_VERSION, headerLine, itemLine, MAX_BUNDLE_LINE_BYTES, trailerLine, type BundleHeader } from './bundle-format.js';
import { scanBundle } from './bundle-reader.js';
import { judgeImport, protectedRule, type ImportRefusal } from './import-rules.js';
import { memorySealer } from './memory-seals.js';

/*
 * §4.2.3 MemoryPortability over SQLite (§6.5; docs/silas/memory-portability.md). Files and lines
 * rather than bytes: a bundle can be larger than memory. Both directions are owner acts (the CLI
 * holds the keyring): rows are read through their seals and written sealed, and each export,
 * import and refused import is recorded in the ledger.
 */

export type ImportMode = 'merge' | 'replace';

export interface ExportOptions {
  /** One scope (the owner's is `owner`), or every scope when null or left out. */
  scope?: string | null;
  /** The `low_reingestion` lane too (§4.2.3 `include_raw`, default true). */
  includeRaw?: boolean;
  /** Only memories created or changed (`updated_at`) at or after this instant (§4.2.3 `since`). */
  since?: string | null;
  progress?: Progress;
}

export interface Progress {
  every: number;
  /** `done` of `total` memories exported, checked (an import's first read) or written (its second). */
  report(done: number, total: number, phase: 'exported' | 'checked' | 'written'): void;
}

export interface ExportSummary {
  count: number;
  sha256: string;
  bytes: number;
  header: BundleHeader;
}

export interface ImportOptions {
  progress?: Progress;
  /**
   * The SHA-256 the bundle's trailer must carry. The cockpit knows it from the bytes it received,
   * so a file swapped in the home after its own check cannot be imported in their place.
   */
  expectedSha256?: string;
}

export interface ImportSummary {
  mode: ImportMode;
  count: number;
  inserted: number;
  updated: number;
  unchanged: number;
  removed: number;
  sha256: string;
  header: BundleHeader;
}

/** §4.2.3 MemoryPortability, so another memory backend can stand behind the same commands (§6.5 item 5). */
export interface MemoryPortability {
  /**
   * Hands the bundle's lines to `write` (which puts them where they go, at its pace) and, once it
   * has resolved, records the export as made to `destination`.
   */
  exportBundle(options: ExportOptions, write: (lines: Iterable<string>) => Promise<void>, destination: string): Promise<ExportSummary>;
  /** Checks the whole bundle, then writes it in one transaction, or changes nothing and throws. */
  importBundle(file: string, mode: ImportMode, options?: ImportOptions): ImportSummary;
}

export interface SqliteMemoryPortabilityDeps {
  db: SqliteDatabase;
  /** The home's seals: the memory sealer is made from them, refusals are reported through them. */
  seals: Pick<StateSeals, 'seal' | 'verify' | 'report'>;
  audit: AuditAppender;
  now?: () => Date;
}

/** How many protected memories a refusal names; the rest are counted. */
const NAMED_REFUSALS = 20;

export class SqliteMemoryPortability implements MemoryPortability {
  private readonly repository: MemoryBundleRepository;
  private readonly deferred: { refusal: SealRefusal; value: unknown }[] = [];

  constructor(private readonly deps: SqliteMemoryPortabilityDeps) {
    const { seals } = deps;
    // Seal refusals are reported to the ledger once the read or the transaction is over: an
    // append on the connection while rows are being stepped through is refused by SQLite, and one
    // inside an import that rolls back would be lost.
    const sealer = memorySealer({
      seal: (authority, kind, id, value) => seals.seal(authority, kind, id, value),
      check: (authority, kind, id, value, seal) => {
        const result = seals.verify(authority, kind, id, value, seal);
        if (!result.ok) this.deferred.push({ refusal: result.refusal, value });
        return result;
      },
    });
    this.repository = new MemoryBundleRepository(deps.db, sealer);
  }

  async exportBundle(options: ExportOptions, write: (lines: Iterable<string>) => Promise<void>, destination: string): Promise<ExportSummary> {
    const cover: MemoryCover = { scope: options.scope ?? null, includeRaw: options.includeRaw ?? true, since: options.since ?? null };
    const snapshot = this.repository.snapshot(cover);
    const header: BundleHeader = {
      kind: BUNDLE_KIND,
      bundle_version: BUNDLE_VERSION,
      schema_version: MEMORY_SCHEMA_VERSION,
      exported_at: this.now().toISOString(),
      count: snapshot.count,
      include_raw: cover.includeRaw,
      scope: cover.scope,
      since: cover.since,
      embedding: 'omitted',
    };
    const hash = createHash('sha256');
    const summary: ExportSummary = { count: 0, sha256: '', bytes: 0, header };
    const lines = function* (): Generator<string> {
      try {
        const take = (line: string) => {
          hash.update(line, 'utf8');
          hash.update('\n');
          summary.bytes += Buffer.byteLength(line, 'utf8') + 1;
          return line;
        };
        yield take(headerLine(header));
        for (const item of snapshot.items()) {
          const line = itemLine(item);
          if (line.length > MAX_BUNDLE_LINE_BYTES / 4 && Buffer.byteLength(line, 'utf8') > MAX_BUNDLE_LINE_BYTES) {
            throw new SilasError(ErrorCode.InvalidArgs, `memory ${item.memory_id} is larger than a bundle line may be (${MAX_BUNDLE_LINE_BYTES} bytes); export without it (--scope, --since) and copy it by hand`);
          }
          yield take(line);
          summary.count += 1;
          if (options.progress && summary.count % options.progress.every === 0) options.progress.report(summary.count, header.count, 'exported');
        }
        summary.sha256 = hash.digest('hex');
        const trailer = trailerLine({ end: true, count: summary.count, sha256: summary.sha256 });
        summary.bytes += Buffer.byteLength(trailer, 'utf8') + 1;
        yield trailer;
      } finally {
        snapshot.close();
      }
    };
    try {
      await write(lines());
    } finally {
      snapshot.close();
      this.reportDeferred();
    }
    if (summary.sha256 === '') throw new SilasError(ErrorCode.Internal, 'the bundle was not written whole: its writer stopped before the trailer');
    this.deps.audit.append('silas.memory.exported', {
      count: summary.count,
      sha256: summary.sha256,
      bytes: summary.bytes,
      scope: cover.scope,
      include_raw: cover.includeRaw,
      since: cover.since,
      destination,
    });
    return summary;
  }

  importBundle(file: string, mode: ImportMode, options: ImportOptions = {}): ImportSummary {
    const { progress } = options;
    const checked = scanBundle(file, { progress: progress && { every: progress.every, report: (n, total) => progress.report(n, total, 'checked') } });
    if (options.expectedSha256 !== undefined && checked.sha256 !== options.expectedSha256) {
      throw new SilasError(ErrorCode.Conflict, `${file} is not the bundle that was sent (another program replaced it); send it again (nothing was imported)`);
    }
    const { header } = checked;
    if (mode === 'replace' && header.since !== null) {
      throw new SilasError(
        ErrorCode.InvalidArgs,
        `${file} holds only the memories changed since ${header.since}, so it cannot replace the others; import it with --mode merge, or export the whole store again without --since (nothing was imported)`,
      );
    }
    const cover: MemoryCover = { scope: header.scope, includeRaw: header.include_raw, since: null };
    const summary: ImportSummary = { mode, count: checked.count, inserted: 0, updated: 0, unchanged: 0, removed: 0, sha256: checked.sha256, header };
    const refusals: ImportRefusal[] = [];
    let refused = 0;
    try {
      inImmediateTransaction(this.deps.db, () => {
        this.repository.beginImport();
        let written = 0;
        const again = scanBundle(file, {
          item: (item, line) => {
            const earlier = this.repository.claim(item.memory_id, line);
            if (earlier !== null) throw new SilasError(ErrorCode.InvalidArgs, `${file}: line ${line}, field memory_id: ${item.memory_id} is already on line ${earlier}; a bundle holds each memory once (nothing was imported)`);
            const action = judgeImport(this.repository.find(item.memory_id), item, line);
            if (typeof action === 'object') {
              refused += 1;
              if (refusals.length < NAMED_REFUSALS) refusals.push(action);
              return;
            }
            if (action !== 'unchanged') this.repository.upsert(item);
            summary[action === 'insert' ? 'inserted' : action === 'update' ? 'updated' : 'unchanged'] += 1;
            written += 1;
            if (progress && written % progress.every === 0) progress.report(written, header.count, 'written');
          },
        });
        // The file is read twice; what was checked is what was written, or nothing is.
        if (again.sha256 !== checked.sha256) throw new SilasError(ErrorCode.Conflict, `${file} changed while it was being imported; import it again once nothing writes it (nothing was imported)`);
        if (mode === 'replace' && refusals.length < NAMED_REFUSALS) {
          for (const dropped of this.repository.protectedNotClaimed(cover, NAMED_REFUSALS - refusals.length)) {
            const trust = dropped.trust_level as 'constitutional' | 'verified';
            refused += 1;
            refusals.push({ memory_id: dropped.memory_id, trust_level: trust, rule: `${protectedRule(trust)}; the bundle does not hold it, so replace would remove it`, line: null });
          }
        }
        if (refused > 0) throw new ProtectedImport(file, mode, refusals, refused);
        if (mode === 'replace') summary.removed = this.repository.removeNotClaimed(cover);
        this.repository.endImport();
        // In the transaction: the memories and the entry that records them commit together.
        this.deps.audit.append('silas.memory.imported', {
          mode,
          count: summary.count,
          inserted: summary.inserted,
          updated: summary.updated,
          unchanged: summary.unchanged,
          removed: summary.removed,
          sha256: summary.sha256,
          scope: header.scope,
          include_raw: header.include_raw,
          exported_at: header.exported_at,
        });
      });
    } catch (error) {
      this.reportDeferred();
      if (error instanceof ProtectedImport) {
        this.deps.audit.append('silas.memory.import_refused', {
          mode,
          sha256: checked.sha256,
          refused: error.total,
          memory_ids: error.refusals.map((r) => r.memory_id),
          rules: [...new Set(error.refusals.map((r) => r.rule))],
        });
      }
      throw error;
    }
    this.reportDeferred();
    return summary;
  }

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private reportDeferred(): void {
    for (const { refusal, value } of this.deferred.splice(0)) this.deps.seals.report(refusal, value);
  }
}

/** An import refused by the trust rules: every protected memory it would change, up to NAMED_REFUSALS. */
class ProtectedImport extends SilasError {
  constructor(
    file: string,
    mode: ImportMode,
    readonly refusals: readonly ImportRefusal[],
    /** Every refusal counted (in replace, at least this many: the search for removed ones stops at NAMED_REFUSALS). */
    readonly total: number,
  ) {
    const named = refusals
      .slice(0, 5)
      .map((r) => `memory ${r.memory_id}${r.line === null ? '' : ` (line ${r.line})`} is ${r.trust_level}: ${r.rule}`)
      .join('; ');
    // Replace stops looking for the memories it would remove once NAMED_REFUSALS are named.
    const atLeast = mode === 'replace' && refusals.length >= NAMED_REFUSALS ? 'at least ' : '';
    const more = total > 5 ? `; and ${atLeast}${total - 5} more` : '';
    super(
      MemoryErrorCode.Protected,
      `import of ${file} (--mode ${mode}) refused, nothing was changed: ${named}${more}. Remove those lines from the bundle, or make them identical to the stored memories${mode === 'replace' ? ' (or import with --mode merge, which removes nothing)' : ''}`,
    );
    this.name = 'ProtectedImport';
  }
}
