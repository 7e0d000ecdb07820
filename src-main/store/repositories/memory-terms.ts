import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';
import type { TermStat } from './fts-query.js';

/** Document counts below this are read fresh (tens of microseconds); above it a lookup reads a long doclist. */
const CACHE_MIN_DF = 256;
const CACHE_MAX_ENTRIES = 4096;
/** A cached count is reused until the store has grown by this share: it only steers which words are searched. */
const CACHE_GROWTH = 0.1;

/**
 * Per-word document counts of the memory index, which `chooseTerms` needs to keep a search's cost
 * bounded. The index holds porter stems, so the query's words are first stemmed by the same
 * tokenizer through a one-row-per-word FTS5 table in the connection's temp schema; nothing of it
 * reaches the database file. Counts are global, like the statistics bm25 itself ranks with.
 */
export class MemoryTermStats {
  private readonly insertWord;
  private readonly readStems;
  private readonly clearWords;
  private readonly docCount;
  private readonly totalStmt;
  private readonly cache = new Map<string, { df: number; atTotal: number }>();

  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    const db = sqliteConnection(database);
    this.db = db;
    // Temp objects live with this connection only; they are no schema of the file (so no migration).
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.silas_memory_query_words USING fts5(word, tokenize = 'porter unicode61 tokenchars ''_-''');
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.silas_memory_query_stems USING fts5vocab(temp, silas_memory_query_words, instance);
      CREATE VIRTUAL TABLE IF NOT EXISTS temp.silas_memory_vocab USING fts5vocab(main, silas_memory_fts, row);`);
    this.insertWord = db.prepare('INSERT INTO temp.silas_memory_query_words (rowid, word) VALUES (?, ?)');
    this.readStems = db.prepare('SELECT doc, term FROM temp.silas_memory_query_stems ORDER BY doc, offset');
    this.clearWords = db.prepare('DELETE FROM temp.silas_memory_query_words');
    this.docCount = db.prepare('SELECT doc FROM temp.silas_memory_vocab WHERE term = ?').pluck();
    this.totalStmt = db.prepare('SELECT coalesce(max(seq), 0) FROM silas_memory_items').pluck();
  }

  /** Highest row number: the document count, or more after deletions (which only keeps more words). */
  totalDocs(): number {
    return this.totalStmt.get() as number;
  }

  /**
   * Each word with its document count. Words with the same stems are one doclist; the first is
   * kept. A word the tokenizer splits is a phrase: no more documents hold it than its rarest part.
   */
  stats(words: readonly string[], totalDocs: number): TermStat[] {
    const stems = this.stems(words);
    const seen = new Set<string>();
    const result: TermStat[] = [];
    words.forEach((word, index) => {
      const parts = stems.get(index + 1);
      if (!parts) return;
      const key = parts.join(' ');
      if (seen.has(key)) return;
      seen.add(key);
      result.push({ word, df: Math.min(...parts.map((stem) => this.df(stem, totalDocs))) });
    });
    return result;
  }

  private stems(words: readonly string[]): Map<number, string[]> {
    const rows = this.db.transaction(() => {
      words.forEach((word, index) => this.insertWord.run(index + 1, word));
      const read = this.readStems.all() as { doc: number; term: string }[];
      this.clearWords.run();
      return read;
    })();
    const byWord = new Map<number, string[]>();
    for (const row of rows) byWord.set(row.doc, [...(byWord.get(row.doc) ?? []), row.term]);
    return byWord;
  }

  private df(stem: string, totalDocs: number): number {
    const cached = this.cache.get(stem);
    if (cached && totalDocs <= cached.atTotal * (1 + CACHE_GROWTH)) return cached.df;
    const df = (this.docCount.get(stem) as number | undefined) ?? 0;
    // Only common words are cached: a rare word's fresh count is cheap, and a stale zero would hide new memories.
    if (df >= CACHE_MIN_DF) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
      this.cache.set(stem, { df, atTotal: totalDocs });
    }
    return df;
  }
}
