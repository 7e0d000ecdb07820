import type { SqliteDatabase } from '../transaction.js';

/** One consumed tool-call approval, keyed by its nonce. */
export interface ToolCallNonce {
  nonce: string;
  server: string;
  tool: string;
  sessionId: string;
  /** The JSON-RPC id of the call it let through, as JSON text. */
  requestIdJson: string;
  keyFingerprint: string;
  expiresAt: string;
  usedAt: string;
}

/**
 * The consumed nonces of signed tool-call approvals (`mcp_approval_nonces`). The nonce is the
 * table's key, so a second `record` of one nonce throws a constraint error: callers run it in
 * the transaction that audits the call, and a replay rolls both back.
 */
export class ToolCallNonceRepository {
  private readonly insert;

  constructor(db: SqliteDatabase) {
    this.insert = db.prepare(
      'INSERT INTO mcp_approval_nonces (nonce, server, tool, session_id, request_id, key_fingerprint, expires_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
  }

  record(n: ToolCallNonce): void {
    this.insert.run(n.nonce, n.server, n.tool, n.sessionId, n.requestIdJson, n.keyFingerprint, n.expiresAt, n.usedAt);
  }
}

/** A UNIQUE or PRIMARY KEY violation: the row was already there (a replay, or a concurrent writer). */
export function isKeyViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
