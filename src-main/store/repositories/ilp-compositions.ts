import { createHash } from 'node:crypto';
import type { IlpCompositionSummary, IlpCompositionView, IlpHopView, IlpInfluencer } from '../../../src-shared/schemas/ilp.js';
import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/*
 * Stored ILP compositions (migration 023; docs/ilp.md "Records"): one row per composition, its
 * hops and influencers as JSON. Each row carries a ledger-key seal over every column but `seq`
 * (docs/architecture.md §2 "Sealed state"); a row whose seal fails is read back with
 * `trusted: false`, which the inspector shows and which export and replay refuse.
 */

export interface CompositionSealer {
  seal(id: string, fields: readonly unknown[]): string;
  check(id: string, fields: readonly unknown[], seal: string | null): boolean;
}

/** What a stored composition holds beyond its summary. */
export interface CompositionDetail {
  hop_list: IlpHopView[];
  influencers: IlpInfluencer[];
  decision_path: string[];
}

export interface NewComposition {
  id: string;
  query: string;
  status: number;
  constitutional_status: IlpCompositionSummary['constitutional_status'];
  started_at: string;
  cost_usd: number;
  hops: number;
  max_depth: number;
  replay_of: string | null;
  answer: string | null;
  detail: CompositionDetail;
}

type Row = Omit<NewComposition, 'detail'> & { seq: number; detail_json: string; seal: string | null };

const SUMMARY_COLUMNS = 'seq, id, query, status, constitutional_status, started_at, cost_usd, hops, max_depth, replay_of, answer, detail_json, seal';

/** Every column but `seq` and the seal; the hops (the large part) by their SHA-256, which is as binding and far cheaper to seal. */
function sealedFields(row: Omit<Row, 'seq' | 'seal'>): unknown[] {
  return [row.id, row.query, row.status, row.constitutional_status, row.started_at, row.cost_usd, row.hops, row.max_depth, row.replay_of, row.answer, createHash('sha256').update(row.detail_json, 'utf8').digest('hex')];
}

export class IlpCompositionRepository {
  private readonly db: SqliteConnection;

  constructor(
    database: SqliteDatabase,
    private readonly sealer: CompositionSealer,
  ) {
    this.db = sqliteConnection(database);
  }

  insert(composition: NewComposition): void {
    const { detail, ...rest } = composition;
    const row = { ...rest, detail_json: JSON.stringify(detail) };
    const seal = this.sealer.seal(row.id, sealedFields(row));
    this.db
      .prepare(`INSERT INTO ilp_compositions (id, query, status, constitutional_status, started_at, cost_usd, hops, max_depth, replay_of, answer, detail_json, seal)
        VALUES (@id, @query, @status, @constitutional_status, @started_at, @cost_usd, @hops, @max_depth, @replay_of, @answer, @detail_json, @seal)`)
      .run({ ...row, seal });
  }

  /** Newest first, strictly older than `before` (an id) when given; the total is the table's. */
  list(before: string | undefined, limit: number): { compositions: IlpCompositionSummary[]; total: number } {
    const beforeSeq = before === undefined ? null : ((this.db.prepare('SELECT seq FROM ilp_compositions WHERE id = ?').get(before) as { seq: number } | undefined)?.seq ?? null);
    const rows = (beforeSeq === null
      ? this.db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ilp_compositions ORDER BY seq DESC LIMIT ?`).all(limit)
      : this.db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ilp_compositions WHERE seq < ? ORDER BY seq DESC LIMIT ?`).all(beforeSeq, limit)) as Row[];
    const total = (this.db.prepare('SELECT COUNT(*) AS n FROM ilp_compositions').get() as { n: number }).n;
    return { compositions: rows.map((row) => this.summary(row)), total };
  }

  get(id: string): IlpCompositionView | null {
    const row = this.db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ilp_compositions WHERE id = ?`).get(id) as Row | undefined;
    if (row === undefined) return null;
    const detail = parseDetail(row.detail_json);
    return { ...this.summary(row), answer: row.answer, hop_list: detail.hop_list, influencers: detail.influencers };
  }

  /** The decision path and hops of a trusted row, for TRACE /export; null when absent or not trusted. */
  trustedDetail(id: string): (CompositionDetail & { query: string; started_at: string }) | null {
    const row = this.db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM ilp_compositions WHERE id = ?`).get(id) as Row | undefined;
    if (row === undefined || !this.trusted(row)) return null;
    return { ...parseDetail(row.detail_json), query: row.query, started_at: row.started_at };
  }

  private trusted(row: Row): boolean {
    return this.sealer.check(row.id, sealedFields(row), row.seal);
  }

  private summary(row: Row): IlpCompositionSummary {
    return { id: row.id, query: row.query, status: row.status, constitutional_status: row.constitutional_status, started_at: row.started_at, cost_usd: row.cost_usd, hops: row.hops, max_depth: row.max_depth, replay_of: row.replay_of, trusted: this.trusted(row) };
  }
}

function parseDetail(text: string): CompositionDetail {
  try {
    const value = JSON.parse(text) as Partial<CompositionDetail>;
    return { hop_list: Array.isArray(value.hop_list) ? value.hop_list : [], influencers: Array.isArray(value.influencers) ? value.influencers : [], decision_path: Array.isArray(value.decision_path) ? value.decision_path : [] };
  } catch {
    return { hop_list: [], influencers: [], decision_path: [] };
  }
}
