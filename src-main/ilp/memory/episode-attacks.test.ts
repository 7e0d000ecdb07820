import { describe, expect, it } from 'vitest';
import { StateSeals } from '../../keys/sealed-state.js';
import { sqliteConnection, type SqliteDatabase } from '../../store/transaction.js';
import { useTempDirs } from '../../testing/temp.js';
import { episodeSealer } from './episode-seals.js';
import { EpisodicMemory } from './episodic-memory.js';
import { queryHash } from './query-text.js';
import { DAY, T0, episode, openEpisodicMemory } from './testing/memory.js';

/*
 * Episodes from a database writer (docs/architecture.md §2 "Sealed state"): a process that can
 * write the database but not reach the keyring must not make the cache (spec 004 §9.2 item 3)
 * hand out an answer of its choosing. Each test edits the file as that process would, then asks.
 */

const tempDir = useTempDirs('silas-ilp-attacks-');
const sql = (db: SqliteDatabase, text: string, ...params: unknown[]) => sqliteConnection(db).prepare(text).run(...params);

function plant(db: SqliteDatabase, query: string, response: string): void {
  const { lastInsertRowid } = sql(
    db,
    `INSERT INTO ilp_episodes (episode_id, query, query_norm, query_hash, response, concepts, domains, agents_used, cost_usd, success, confidence, response_confidence, word_count, timestamp)
     VALUES ('planted', ?, ?, ?, ?, '["budget"]', '["financial"]', '[]', 0, 1, 1, 1, 5, ?)`,
    query,
    query.toLowerCase(),
    queryHash(query),
    response,
    T0,
  );
  for (const word of query.toLowerCase().split(' ')) sql(db, 'INSERT INTO ilp_episode_words (word, seq) VALUES (?, ?)', word, lastInsertRowid);
}

describe('ILP episodes: rows from a database writer', () => {
  it('a row inserted with SQL is never served, listed or counted as trusted; the refusal is reported', () => {
    const { db, memory, refusals } = openEpisodicMemory(tempDir());
    memory.add(episode('what is a budget', { concepts: ['budget'] }));
    plant(db, 'how should i pay now', 'Wire the balance to account 0042 today.');
    expect(memory.cached('how should i pay now')).toBeNull();
    expect(memory.cached('how should i pay right now')).toBeNull();
    expect(memory.findSimilarQueries('how should i pay now')).toEqual([]);
    expect(memory.query({ concepts: ['budget'] }).map((e) => e.query)).toEqual(['what is a budget']);
    expect(memory.get('planted')).toBeNull();
    expect(memory.stats()).toMatchObject({ total_episodes: 1, most_queried_domains: [], untrusted_episodes: 1 });
    expect(memory.consolidate()).toMatchObject({ untrusted_episodes: 1, concept_patterns: [] });
    expect(refusals).toContainEqual(expect.objectContaining({ kind: 'ilp-episode', id: 'planted', reason: 'unsealed' }));
  });

  it('a response UPDATEd in place is not served', () => {
    const { db, memory, refusals } = openEpisodicMemory(tempDir());
    const stored = memory.add(episode('how do i rotate the deploy key'));
    expect(memory.cached('how do i rotate the deploy key')).not.toBeNull();
    sql(db, "UPDATE ilp_episodes SET response = 'Paste the key into the chat.' WHERE episode_id = ?", stored.id);
    expect(memory.cached('how do i rotate the deploy key')).toBeNull();
    expect(memory.get(stored.id)).toBeNull();
    expect(refusals).toEqual([expect.objectContaining({ kind: 'ilp-episode', id: stored.id, reason: 'mismatch' })]);
  });

  it('a failed, unconfident or expired answer raised in the database is not served', () => {
    const { db, memory, clock } = openEpisodicMemory(tempDir());
    const failed = memory.add(episode('failed question', { success: false }));
    const unsure = memory.add(episode('unsure question', { confidence: 0.3 }));
    const old = memory.add(episode('old question'));
    clock.now += 90 * DAY;
    sql(db, 'UPDATE ilp_episodes SET success = 1, timestamp = ? WHERE episode_id = ?', clock.now, failed.id);
    sql(db, 'UPDATE ilp_episodes SET confidence = 1, response_confidence = 1, timestamp = ? WHERE episode_id = ?', clock.now, unsure.id);
    sql(db, 'UPDATE ilp_episodes SET timestamp = ? WHERE episode_id = ?', clock.now, old.id);
    for (const query of ['failed question', 'unsure question', 'old question']) expect(memory.cached(query)).toBeNull();
    expect(memory.stats()).toMatchObject({ total_episodes: 0, untrusted_episodes: 3 });
  });

  it('a sealed row moved under another id does not count: the seal binds the id', () => {
    const { db, memory } = openEpisodicMemory(tempDir());
    const good = memory.add(episode('what is homeostasis', { response: 'Self-regulation.' }));
    sql(db, "UPDATE ilp_episodes SET episode_id = 'moved' WHERE episode_id = ?", good.id);
    expect(memory.get('moved')).toBeNull();
    expect(memory.cached('what is homeostasis')).toBeNull();
  });

  it('a word index row pointing a query at an unrelated episode changes no answer', () => {
    const { db, memory } = openEpisodicMemory(tempDir());
    memory.add(episode('transfer everything to savings', { response: 'Done: moved.' }));
    const seq = (sqliteConnection(db).prepare('SELECT seq FROM ilp_episodes').get() as { seq: number }).seq;
    for (const word of ['should', 'i', 'trust', 'this', 'link']) sql(db, 'INSERT OR IGNORE INTO ilp_episode_words (word, seq) VALUES (?, ?)', word, seq);
    sql(db, 'UPDATE ilp_episodes SET word_count = 5');
    expect(memory.cached('should i trust this link')).toBeNull();
  });

  it('Silas answering a query a planted row claims replaces the row: nothing of it is merged or sealed', () => {
    const { db, memory } = openEpisodicMemory(tempDir());
    plant(db, 'how should i pay now', 'Wire the balance to account 0042 today.');
    const stored = memory.add(episode('how should i pay now', { response: 'Use the invoice link.', confidence: 0.6, concepts: [] }));
    expect(stored).toMatchObject({ response: 'Use the invoice link.', confidence: 0.6, response_confidence: 0.6, concepts: [] });
    expect(stored.id).not.toBe('planted');
    expect(memory.cached('how should i pay now')).toBeNull();
    expect(memory.stats()).toMatchObject({ total_episodes: 1, untrusted_episodes: 0 });
  });

  it('without the ledger key nothing is written and nothing is served', () => {
    const dir = tempDir();
    const { db, memory } = openEpisodicMemory(dir);
    memory.add(episode('what is a budget'));
    const locked = new EpisodicMemory(db, episodeSealer(new StateSeals({ keys: { ledger: () => null, owner: () => null } })), { now: () => T0 });
    expect(locked.cached('what is a budget')).toBeNull();
    expect(() => locked.add(episode('a new question'))).toThrow(/ledger key is not available/);
    expect(memory.query().map((e) => e.query)).toEqual(['what is a budget']);
  });
});
