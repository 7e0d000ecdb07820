/**
 * Alignment (spec 003, docs/alignment.md): the Alignment Card of each governed agent, every version
 * kept (only one active per agent), the AP-Traces made from real decisions with their verification
 * and drift figures (the Alignment page reads these; the traces themselves are also `aap.trace`
 * entries of the hash chain, which is what `silas audit verify` covers), and how far the recorder
 * has read the chain. The drift state is also kept, per agent.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS aap_cards (
  id            INTEGER PRIMARY KEY,
  agent_id      TEXT NOT NULL CHECK (length(agent_id) BETWEEN 1 AND 512),
  card_id       TEXT NOT NULL UNIQUE,
  card_json     TEXT NOT NULL,
  source        TEXT NOT NULL CHECK (source IN ('derived', 'edited')),
  signature     TEXT,
  active        INTEGER NOT NULL CHECK (active IN (0, 1)),
  created_at    TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS aap_cards_active ON aap_cards (agent_id) WHERE active = 1;

CREATE TABLE IF NOT EXISTS aap_traces (
  seq             INTEGER PRIMARY KEY,
  agent_id        TEXT NOT NULL,
  trace_id        TEXT NOT NULL UNIQUE,
  card_id         TEXT NOT NULL,
  ts              TEXT NOT NULL,
  source_index    INTEGER NOT NULL,
  audit_index     INTEGER NOT NULL,
  action_name     TEXT NOT NULL,
  action_type     TEXT NOT NULL,
  escalated       INTEGER NOT NULL CHECK (escalated IN (0, 1)),
  verified        INTEGER NOT NULL CHECK (verified IN (0, 1)),
  violations_json TEXT NOT NULL,
  similarity      REAL NOT NULL,
  drift_similarity REAL,
  drift_alert     INTEGER NOT NULL DEFAULT 0 CHECK (drift_alert IN (0, 1)),
  values_json     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS aap_traces_agent ON aap_traces (agent_id, seq);

-- Each agent's counts, kept as traces are recorded: the agents list must not count a table of
-- millions of traces each time it is shown.
CREATE TABLE IF NOT EXISTS aap_agent_counts (
  agent_id    TEXT PRIMARY KEY,
  traces      INTEGER NOT NULL,
  violations  INTEGER NOT NULL,
  escalations INTEGER NOT NULL,
  alerts      INTEGER NOT NULL,
  last_ts     TEXT
);

-- Each agent's incremental drift monitor, saved with the traces it has seen, so a restart goes on
-- where it stopped instead of reading the history again. It and the cursor are signed with the
-- owner key: whoever can write this database alone must not be able to skip decisions or silence
-- an alert.
CREATE TABLE IF NOT EXISTS aap_drift_state (
  agent_id    TEXT PRIMARY KEY,
  card_id     TEXT NOT NULL,
  snapshot    TEXT NOT NULL,
  signature   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS aap_cursor (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  last_index  INTEGER NOT NULL,
  signature   TEXT NOT NULL
);
`;
