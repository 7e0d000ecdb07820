import { createHash } from 'node:crypto';
import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/*
 * The slice registry of ILP knowledge distillation (migration 024; spec 004 §4.3; docs/ilp.md
 * "Knowledge distillation"): every version of every slice the self-evolution loop writes. Each
 * row is sealed with the ledger key over every column but `seq` (docs/architecture.md §2 "Sealed
 * state"), the text by its SHA-256, which is checked against the text itself when the row is read.
 * A row whose seal fails is read back with `trusted: false`; the engine never deploys it, never
 * restores it, and reports it.
 */

export type SliceVersionKind = 'created' | 'updated' | 'rollback' | 'removed';
export type SliceVersionStatus = 'proposed' | 'deployed' | 'declined' | 'superseded';

export interface SliceVersionSealer {
  seal(id: string, fields: readonly unknown[]): string;
  check(id: string, fields: readonly unknown[], seal: string | null): boolean;
}

export interface NewSliceVersion {
  id: string;
  slice_id: string;
  /** 1, 2, … per slice id, in the order versions were written. */
  version: number;
  /** The slice file's text; '' for a `removed` version. */
  text: string;
  kind: SliceVersionKind;
  status: SliceVersionStatus;
  /** The slice's concepts as the navigator matches them (`conceptKey`). */
  concepts: string[];
  /** The pattern it was distilled from, as JSON text. */
  pattern_json: string;
  confidence: number;
  constitutional_score: number;
  rationale: string;
  reasons: string[];
  created_at: string;
  decided_at: string | null;
}

export interface SliceVersion extends NewSliceVersion {
  sha256: string;
  /** The seal holds and the text is the one sealed. */
  trusted: boolean;
}

interface Row {
  seq: number;
  id: string;
  slice_id: string;
  version: number;
  text: string;
  sha256: string;
  kind: SliceVersionKind;
  status: SliceVersionStatus;
  concepts_json: string;
  pattern_json: string;
  confidence: number;
  constitutional_score: number;
  rationale: string;
  reasons_json: string;
  created_at: string;
  decided_at: string | null;
  seal: string | null;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every column but `seq` and the seal (the id is bound by the seal itself), the text by its SHA-256. */
function sealedFields(row: Omit<Row, 'seq' | 'seal' | 'id' | 'text'>): unknown[] {
  return [row.slice_id, row.version, row.sha256, row.kind, row.status, row.concepts_json, row.pattern_json, row.confidence, row.constitutional_score, row.rationale, row.reasons_json, row.created_at, row.decided_at];
}

/** Rows any one listing reads at most. */
const MAX_LISTED = 1_000;

export class IlpSliceVersionRepository {
  private readonly db: SqliteConnection;

  constructor(
    database: SqliteDatabase,
    private readonly sealer: SliceVersionSealer,
  ) {
    this.db = sqliteConnection(database);
  }

  /** Writes a version, sealed. The caller holds the transaction that decides its number and status. */
  insert(version: NewSliceVersion): SliceVersion {
    const row = { ...version, sha256: sha256(version.text), concepts_json: JSON.stringify(version.concepts), reasons_json: JSON.stringify(version.reasons) };
    const seal = this.sealer.seal(row.id, sealedFields(row));
    this.db
      .prepare(`INSERT INTO ilp_slice_versions (id, slice_id, version, text, sha256, kind, status, concepts_json, pattern_json, confidence, constitutional_score, rationale, reasons_json, created_at, decided_at, seal)
        VALUES (@id, @slice_id, @version, @text, @sha256, @kind, @status, @concepts_json, @pattern_json, @confidence, @constitutional_score, @rationale, @reasons_json, @created_at, @decided_at, @seal)`)
      .run({ ...row, seal });
    return { ...version, sha256: row.sha256, trusted: true };
  }

  /** The number the next version of `sliceId` gets: one past the highest stored, trusted or not. */
  nextVersion(sliceId: string): number {
    const row = this.db.prepare('SELECT max(version) AS v FROM ilp_slice_versions WHERE slice_id = ?').get(sliceId) as { v: number | null };
    return (row.v ?? 0) + 1;
  }

  byId(id: string): SliceVersion | null {
    const row = this.db.prepare('SELECT * FROM ilp_slice_versions WHERE id = ?').get(id) as Row | undefined;
    return row ? this.toVersion(row) : null;
  }

  /** A slice's versions, newest first. */
  history(sliceId: string, limit = MAX_LISTED): SliceVersion[] {
    return this.many('SELECT * FROM ilp_slice_versions WHERE slice_id = ? ORDER BY version DESC LIMIT ?', sliceId, bounded(limit));
  }

  /** The slice ids with any stored version, the most recently written first. */
  sliceIds(limit = MAX_LISTED): string[] {
    const rows = this.db.prepare('SELECT slice_id FROM ilp_slice_versions GROUP BY slice_id ORDER BY max(created_at) DESC, slice_id LIMIT ?').all(bounded(limit)) as { slice_id: string }[];
    return rows.map((r) => r.slice_id);
  }

  /** Versions in `status`, by slice id then version. */
  withStatus(status: SliceVersionStatus, limit = MAX_LISTED): SliceVersion[] {
    return this.many('SELECT * FROM ilp_slice_versions WHERE status = ? ORDER BY slice_id, version LIMIT ?', status, bounded(limit));
  }

  /** The versions of one slice in `status` (one deployed at most, unless the index was dropped), newest first. */
  ofSliceWithStatus(sliceId: string, status: SliceVersionStatus): SliceVersion[] {
    return this.many('SELECT * FROM ilp_slice_versions WHERE slice_id = ? AND status = ? ORDER BY version DESC LIMIT ?', sliceId, status, MAX_LISTED);
  }

  /**
   * Moves a trusted version to `status` and seals it again. A version whose seal fails is refused:
   * sealing it anew would launder what a database writer put there.
   */
  setStatus(id: string, status: SliceVersionStatus, decidedAt: string | null, reasons?: readonly string[]): SliceVersion {
    const stored = this.db.prepare('SELECT * FROM ilp_slice_versions WHERE id = ?').get(id) as Row | undefined;
    if (!stored || !this.toVersion(stored).trusted) throw new Error(`slice version ${id} is not a trusted version; it is not changed`);
    const next: Row = { ...stored, status, decided_at: decidedAt, reasons_json: reasons ? JSON.stringify(reasons) : stored.reasons_json };
    const seal = this.sealer.seal(id, sealedFields(next));
    this.db.prepare('UPDATE ilp_slice_versions SET status = ?, decided_at = ?, reasons_json = ?, seal = ? WHERE id = ?').run(status, decidedAt, next.reasons_json, seal, id);
    return this.toVersion({ ...next, seal });
  }

  /**
   * Takes a deployed version that is not trusted out of the way (status `superseded`) without
   * sealing it: it stays untrusted, and the one-deployed index no longer blocks a trusted version.
   */
  demoteUntrusted(id: string): void {
    this.db.prepare("UPDATE ilp_slice_versions SET status = 'superseded' WHERE id = ?").run(id);
  }

  private many(sql: string, ...params: unknown[]): SliceVersion[] {
    return (this.db.prepare(sql).all(...params) as Row[]).map((row) => this.toVersion(row));
  }

  private toVersion(row: Row): SliceVersion {
    // The seal is checked first, whatever the text, so every failed seal is reported by the sealer.
    const sealed = this.sealer.check(row.id, sealedFields(row), row.seal ?? null);
    const trusted = sealed && sha256(row.text) === row.sha256;
    return {
      id: row.id,
      slice_id: row.slice_id,
      version: row.version,
      text: row.text,
      sha256: row.sha256,
      kind: row.kind,
      status: row.status,
      concepts: jsonList(row.concepts_json),
      pattern_json: row.pattern_json,
      confidence: row.confidence,
      constitutional_score: row.constitutional_score,
      rationale: row.rationale,
      reasons: jsonList(row.reasons_json),
      created_at: row.created_at,
      decided_at: row.decided_at,
      trusted,
    };
  }
}

const bounded = (limit: number) => Math.max(0, Math.min(MAX_LISTED, Math.floor(limit)));

/** A JSON list of texts as stored; anything else reads as empty (such a row fails its seal anyway). */
function jsonList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
