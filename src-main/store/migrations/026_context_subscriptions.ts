/**
 * Context subscriptions (spec 002 §3.5 ContextSubscription, §5.1.3 step 4; docs/silas/context.md
 * "Subscriptions"): a conversation's live references to a file, a file's lines or a memory query,
 * kept so a restart restores them. A row decides what file is read and sent to a model provider,
 * so each carries a ledger-key seal over every column but `updated_at`
 * (silas/context/sealed-subscriptions.ts): a row planted or edited by a database writer is never
 * materialised.
 */
export const sql = `
CREATE TABLE IF NOT EXISTS silas_context_subscriptions (
  sub_id TEXT PRIMARY KEY,
  scope_id TEXT NOT NULL,
  sub_type TEXT NOT NULL,
  target TEXT NOT NULL,
  zone TEXT NOT NULL,
  created_at TEXT NOT NULL,
  turn_created INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  active INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  last_changed_turn INTEGER,
  last_referenced_turn INTEGER NOT NULL,
  stale_since_turn INTEGER,
  note TEXT,
  seal TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_context_subscriptions_scope ON silas_context_subscriptions (scope_id, created_at);
`;
