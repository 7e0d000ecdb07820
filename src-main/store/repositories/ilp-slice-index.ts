import Database from 'better-sqlite3';
import { anyOf, chooseTerms, queryWords } from './fts-query.js';

/*
 * The index of the ILP slice navigator (spec 004 §4.2 step 4, docs/ilp.md "Navigator and slices"):
 * which slices exist, their concepts, and FTS5 over their titles and knowledge.
 *
 * The database is in memory and rebuilt from the slice files every time they are loaded, never a
 * table of the data home's file. What a process that can write the database decides nothing here
 * (docs/architecture.md §2 "Sealed state"): a row it planted or edited would be an instruction to
 * every agent that reads the slice, and there is nothing to seal it with, because the files are the
 * source. Indexing a slice costs less than reading and checking its file
 * (ilp/navigator/slice-file.ts), which happens at every load anyway.
 */

/** One slice as the index keeps it; `key` is the form a concept is matched by (the navigator's). */
export interface IndexedSlice {
  id: string;
  domain: string;
  title: string;
  concepts: readonly { written: string; key: string }[];
  tags: readonly string[];
  knowledge: string;
  file: string;
}

export interface ConceptMatch {
  id: string;
  /** The concept as the slice writes it. */
  concept: string;
  key: string;
  /** The slice's place in index order, and the concept's in its slice's list. */
  seq: number;
  position: number;
}

/** FTS5 reads about this many postings per search at most (`chooseTerms`; about a microsecond each). */
const TEXT_POSTING_BUDGET = 500;
/** Words whose document count is remembered until the index changes; more are counted afresh. */
const MAX_CACHED_COUNTS = 4_096;

const SCHEMA = `
CREATE TABLE ilp_slices (
  seq    INTEGER PRIMARY KEY,
  id     TEXT NOT NULL UNIQUE,
  domain TEXT NOT NULL,
  title  TEXT NOT NULL,
  file   TEXT NOT NULL
);
CREATE INDEX ilp_slices_domain ON ilp_slices(domain);
CREATE TABLE ilp_slice_concepts (
  seq     INTEGER PRIMARY KEY,
  slice   INTEGER NOT NULL,
  ord     INTEGER NOT NULL,
  concept TEXT NOT NULL,
  key     TEXT NOT NULL
);
-- By key in index order, so a concept in thousands of slices is read only as far as a search needs.
CREATE INDEX ilp_slice_concepts_key ON ilp_slice_concepts(key, slice, ord);
CREATE INDEX ilp_slice_concepts_slice ON ilp_slice_concepts(slice);
CREATE VIRTUAL TABLE ilp_slice_text USING fts5(
  id UNINDEXED, domain UNINDEXED, title, concepts UNINDEXED, tags UNINDEXED, knowledge, file UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 0 tokenchars ''_-'''
);
`;

/** bm25 weights by column (id, domain, title, concepts, tags, knowledge, file): a title word counts thrice. */
const RANK = 'bm25(ilp_slice_text, 0, 0, 3, 0, 0, 1, 0)';

export class IlpSliceIndex {
  private readonly db = new Database(':memory:');
  private total = 0;
  /** Document counts by word; cleared whenever a slice is added or removed. */
  private readonly counted = new Map<string, number>();
  /**
   * The distinct concept keys, in the order first indexed, and the same joined by line ends, built
   * again on the first search after a change. A part of a concept ("feed" in negative_feedback, as
   * the reference matches) is found by one indexOf pass over the joined keys: linear in their
   * length, about a millisecond per 40,000 keys, whatever the part. FTS5's trigram index was
   * measured here too: fast for a rare part, but a part made of common trigrams read every doclist
   * (100 ms at 10,000 slices).
   */
  private readonly keys = new Set<string>();
  private keyLines: string | null = null;
  private readonly stmts;

  constructor() {
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmts = {
      insertSlice: db.prepare('INSERT INTO ilp_slices (id, domain, title, file) VALUES (?, ?, ?, ?)'),
      insertConcept: db.prepare('INSERT INTO ilp_slice_concepts (slice, ord, concept, key) VALUES (?, ?, ?, ?)'),
      insertText: db.prepare('INSERT INTO ilp_slice_text (rowid, id, domain, title, concepts, tags, knowledge, file) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      seqOf: db.prepare('SELECT seq FROM ilp_slices WHERE id = ?').pluck(),
      keysOf: db.prepare('SELECT DISTINCT key FROM ilp_slice_concepts WHERE slice = ?').pluck(),
      keyUsed: db.prepare('SELECT 1 FROM ilp_slice_concepts WHERE key = ? LIMIT 1').pluck(),
      deleteConcepts: db.prepare('DELETE FROM ilp_slice_concepts WHERE slice = ?'),
      deleteText: db.prepare('DELETE FROM ilp_slice_text WHERE rowid = ?'),
      deleteSlice: db.prepare('DELETE FROM ilp_slices WHERE seq = ?'),
      entry: db.prepare('SELECT id, domain, title, file FROM ilp_slices WHERE id = ?'),
      ids: db.prepare('SELECT id FROM ilp_slices ORDER BY seq').pluck(),
      byDomain: db.prepare('SELECT id FROM ilp_slices WHERE domain = ? ORDER BY seq').pluck(),
      byKey: db.prepare(`SELECT s.id, c.concept, c.key, c.slice AS seq, c.ord AS position FROM ilp_slice_concepts c JOIN ilp_slices s ON s.seq = c.slice
        WHERE c.key = ? ORDER BY c.slice, c.ord LIMIT ?`),
      docCount: db.prepare('SELECT count(*) FROM (SELECT rowid FROM ilp_slice_text WHERE ilp_slice_text MATCH ? LIMIT ?)').pluck(),
      ranked: db.prepare(`SELECT id FROM ilp_slice_text WHERE ilp_slice_text MATCH ? ORDER BY ${RANK}, rowid LIMIT ?`).pluck(),
      unranked: db.prepare('SELECT id FROM ilp_slice_text WHERE ilp_slice_text MATCH ? ORDER BY rowid LIMIT ?').pluck(),
      floor: db.prepare('SELECT rowid FROM ilp_slice_text WHERE ilp_slice_text MATCH ? LIMIT ?').pluck(),
      counts: db.prepare('SELECT (SELECT count(DISTINCT key) FROM ilp_slice_concepts) AS concepts, (SELECT count(DISTINCT domain) FROM ilp_slices) AS domains'),
    };
  }

  /**
   * Runs `fn` in one transaction: a load of thousands of slices commits once. FTS5 writes a new
   * segment at every commit and merges them as they pile up, so a commit per slice costs more the
   * larger the index grows.
   */
  batch<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Indexes a slice, replacing the one with its id. */
  put(slice: IndexedSlice): void {
    this.db.transaction(() => {
      this.remove(slice.id);
      const seq = Number(this.stmts.insertSlice.run(slice.id, slice.domain, slice.title, slice.file).lastInsertRowid);
      slice.concepts.forEach((concept, ord) => {
        this.stmts.insertConcept.run(seq, ord, concept.written, concept.key);
        if (!this.keys.has(concept.key)) {
          this.keys.add(concept.key);
          this.keyLines = null;
        }
      });
      const concepts = slice.concepts.map((c) => c.written).join(' ');
      this.stmts.insertText.run(seq, slice.id, slice.domain, slice.title, concepts, slice.tags.join(' '), slice.knowledge, slice.file);
      this.total += 1;
      this.counted.clear();
    })();
  }

  /** Removes a slice by id; false when there was none. */
  remove(id: string): boolean {
    const seq = this.stmts.seqOf.get(id) as number | undefined;
    if (seq === undefined) return false;
    this.db.transaction(() => {
      const keys = this.stmts.keysOf.all(seq) as string[];
      this.stmts.deleteConcepts.run(seq);
      this.stmts.deleteText.run(seq);
      this.stmts.deleteSlice.run(seq);
      for (const key of keys) {
        if (this.stmts.keyUsed.get(key) !== undefined) continue;
        this.keys.delete(key);
        this.keyLines = null;
      }
      this.total -= 1;
      this.counted.clear();
    })();
    return true;
  }

  /** Where a slice came from, by its id (never by its file's name). */
  entry(id: string): { id: string; domain: string; title: string; file: string } | null {
    return (this.stmts.entry.get(id) as { id: string; domain: string; title: string; file: string } | undefined) ?? null;
  }

  /** Every id, in the order the slices were indexed. */
  ids(): string[] {
    return this.stmts.ids.all() as string[];
  }

  byDomain(domain: string): string[] {
    return this.stmts.byDomain.all(domain) as string[];
  }

  /**
   * Concepts whose key is one of `keys` (key by key, each in index order), and (when `part` is
   * given, 3 characters or more) those whose key contains `part` (keys in the order first indexed);
   * at most `cap` rows each, so a concept that thousands of slices name costs no more than a rare one.
   */
  conceptMatches(keys: readonly string[], part: string | null, cap: number): { whole: ConceptMatch[]; partial: ConceptMatch[] } {
    const rows = (list: readonly string[]): ConceptMatch[] => {
      const out: ConceptMatch[] = [];
      for (const key of list) {
        if (out.length >= cap) break;
        out.push(...(this.stmts.byKey.all(key, cap - out.length) as ConceptMatch[]));
      }
      return out;
    };
    const whole = rows(keys);
    if (part === null || part.length < 3 || part.includes('\n')) return { whole, partial: [] };
    const named = new Set(keys);
    return { whole, partial: rows(this.keysHolding(part, cap).filter((key) => !named.has(key))) };
  }

  /** At most `max` distinct keys that contain `part`, in the order first indexed. */
  private keysHolding(part: string, max: number): string[] {
    const lines = (this.keyLines ??= `\n${[...this.keys].join('\n')}\n`);
    const found: string[] = [];
    for (let at = lines.indexOf(part); at >= 0 && found.length < max; ) {
      const end = lines.indexOf('\n', at);
      found.push(lines.slice(lines.lastIndexOf('\n', at) + 1, end));
      at = lines.indexOf(part, end);
    }
    return found;
  }

  /**
   * Ids of slices whose title or knowledge holds words of `query` (untrusted text: no FTS5 syntax
   * reaches the expression), best bm25 first. Words too common to rank within the posting budget
   * are left out (`chooseTerms`); when none is left, the matches come in index order.
   */
  textMatches(query: string, limit: number): string[] {
    const words = queryWords(query);
    if (words.length === 0 || limit <= 0) return [];
    const stats = words.map((word) => ({ word, df: this.documentCount(word) }));
    const plan = chooseTerms(stats, this.total, TEXT_POSTING_BUDGET);
    if (plan === null) return [];
    const ranked = plan.ranked.length > 0 ? (this.stmts.ranked.all(anyOf(plan.ranked), limit) as string[]) : [];
    if (!plan.recent || ranked.length >= limit) return ranked;
    const seen = new Set(ranked);
    return [...ranked, ...(this.stmts.unranked.all(anyOf(plan.recent), limit) as string[]).filter((id) => !seen.has(id))].slice(0, limit);
  }

  /** One raw FTS5 MATCH of one word, unranked: the least any text search of this table costs (the navigator bench's floor). */
  matchFloor(word: string, limit: number): number[] {
    return this.stmts.floor.all(anyOf([word]), limit) as number[];
  }

  /** How many slices hold `word`, counted up to one past the budget (more is "too many" all the same). */
  private documentCount(word: string): number {
    const known = this.counted.get(word);
    if (known !== undefined) return known;
    const count = this.stmts.docCount.get(anyOf([word]), TEXT_POSTING_BUDGET + 1) as number;
    if (this.counted.size < MAX_CACHED_COUNTS) this.counted.set(word, count);
    return count;
  }

  counts(): { slices: number; concepts: number; domains: number } {
    const row = this.stmts.counts.get() as { concepts: number; domains: number };
    return { slices: this.total, ...row };
  }

  close(): void {
    this.db.close();
  }
}
