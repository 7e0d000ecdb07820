/**
 * ILP episodic memory (spec 004 §4.3, §9.2 item 3, Appendix B Level 3; docs/ilp.md "Attention and
 * episodic memory").
 *
 * `ilp_episodes` holds one episode per normalised query (`query_hash` is sha256 of the query
 * lower-cased, trimmed, whitespace collapsed): a query asked again updates its episode. The cache
 * answers from these rows, so every row carries a seal (docs/architecture.md §2 "Sealed state"):
 * the ledger key's MAC over every column that decides a cached answer. `timestamp` (milliseconds)
 * is when the query was last answered; an episode's weight decays from it. `query_norm` and
 * `word_count` are derived from `query`; `response_confidence` is the confidence of the response
 * now stored, where `confidence` averages every answer the query had.
 *
 * The index tables (words, concepts, domains) and the word counts only choose which rows are read:
 * a row they point to is checked against its own sealed columns before it counts, so a planted
 * index row can cost a lookup, never change its answer. Counts are kept by triggers, so a deletion
 * (also by cascade) keeps them in step.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS ilp_episodes (
  seq                  INTEGER PRIMARY KEY,
  episode_id           TEXT NOT NULL UNIQUE CHECK (length(episode_id) BETWEEN 1 AND 100),
  query                TEXT NOT NULL,
  query_norm           TEXT NOT NULL,
  query_hash           TEXT NOT NULL UNIQUE CHECK (length(query_hash) = 64),
  response             TEXT NOT NULL,
  concepts             TEXT NOT NULL CHECK (json_valid(concepts) AND json_type(concepts) = 'array'),
  domains              TEXT NOT NULL CHECK (json_valid(domains) AND json_type(domains) = 'array'),
  agents_used          TEXT NOT NULL CHECK (json_valid(agents_used) AND json_type(agents_used) = 'array'),
  cost_usd             REAL NOT NULL CHECK (cost_usd >= 0),
  success              INTEGER NOT NULL CHECK (success IN (0, 1)),
  confidence           REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
  response_confidence  REAL NOT NULL CHECK (response_confidence BETWEEN 0 AND 1),
  word_count           INTEGER NOT NULL CHECK (word_count >= 0),
  timestamp            INTEGER NOT NULL,
  seal                 TEXT
);
CREATE INDEX IF NOT EXISTS ilp_episodes_timestamp ON ilp_episodes(timestamp);

CREATE TABLE IF NOT EXISTS ilp_episode_words (
  word  TEXT NOT NULL,
  seq   INTEGER NOT NULL REFERENCES ilp_episodes(seq) ON DELETE CASCADE,
  PRIMARY KEY (word, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ilp_episode_words_seq ON ilp_episode_words(seq);

CREATE TABLE IF NOT EXISTS ilp_episode_word_counts (
  word      TEXT PRIMARY KEY,
  episodes  INTEGER NOT NULL CHECK (episodes >= 0)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS ilp_episode_words_counted AFTER INSERT ON ilp_episode_words BEGIN
  INSERT INTO ilp_episode_word_counts (word, episodes) VALUES (new.word, 1)
    ON CONFLICT (word) DO UPDATE SET episodes = episodes + 1;
END;
CREATE TRIGGER IF NOT EXISTS ilp_episode_words_uncounted AFTER DELETE ON ilp_episode_words BEGIN
  UPDATE ilp_episode_word_counts SET episodes = episodes - 1 WHERE word = old.word;
  DELETE FROM ilp_episode_word_counts WHERE word = old.word AND episodes <= 0;
END;

CREATE TABLE IF NOT EXISTS ilp_episode_concepts (
  concept  TEXT NOT NULL,
  seq      INTEGER NOT NULL REFERENCES ilp_episodes(seq) ON DELETE CASCADE,
  PRIMARY KEY (concept, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ilp_episode_concepts_seq ON ilp_episode_concepts(seq);

CREATE TABLE IF NOT EXISTS ilp_episode_domains (
  domain  TEXT NOT NULL,
  seq     INTEGER NOT NULL REFERENCES ilp_episodes(seq) ON DELETE CASCADE,
  PRIMARY KEY (domain, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ilp_episode_domains_seq ON ilp_episode_domains(seq);
`;
