/**
 * ILP compositions (spec 004; docs/ilp.md "Records"): each query the meta-agent or a specialist
 * answered, with its hops (the raw messages as they crossed the codec), influencers and outcome,
 * for the cockpit's composition inspector and TRACE /export. Rows are sealed with the ledger key
 * (docs/architecture.md §2 "Sealed state"): a row written or changed outside Silas is shown as not
 * trusted and is never exported or replayed. `seq` orders and pages them.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS ilp_compositions (
  seq                    INTEGER PRIMARY KEY,
  id                     TEXT NOT NULL UNIQUE CHECK (length(id) BETWEEN 1 AND 64),
  query                  TEXT NOT NULL,
  status                 INTEGER NOT NULL,
  constitutional_status  TEXT CHECK (constitutional_status IN ('PASSED', 'WARNING', 'VIOLATION')),
  started_at             TEXT NOT NULL,
  cost_usd               REAL NOT NULL,
  hops                   INTEGER NOT NULL,
  max_depth              INTEGER NOT NULL,
  replay_of              TEXT,
  answer                 TEXT,
  detail_json            TEXT NOT NULL,
  seal                   TEXT
);
`;
