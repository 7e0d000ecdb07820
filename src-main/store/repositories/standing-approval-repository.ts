import { sqliteConnection, type SqliteConnection, type SqliteDatabase } from '../transaction.js';

/** A standing approval as stored; whether it counts is decided in `approvals/` against the keyring. */
export interface StandingApprovalRow {
  id: string;
  server: string;
  /** Normalised tool name (spec 001 §4.1). */
  tool: string;
  argsHash: string;
  /** The DLP-redacted arguments, for the Policies page. */
  argsDisplay: string;
  createdAt: string;
  keyFingerprint: string;
  signature: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  server: string;
  tool: string;
  args_hash: string;
  args_display: string;
  created_at: string;
  key_fingerprint: string;
  signature: string;
  revoked_at: string | null;
}

/**
 * The rows of `mcp_standing_approvals`. Anyone who can write the file can write these, so nothing
 * here is trusted: `SignedStandingApprovals` (approval/standing/approvals.ts) checks each row's
 * signature and the keyring record before a row counts.
 */
export class StandingApprovalRepository {
  private readonly db: SqliteConnection;
  constructor(database: SqliteDatabase) {
    this.db = sqliteConnection(database);
  }

  insert(a: StandingApprovalRow): void {
    this.db
      .prepare('INSERT INTO mcp_standing_approvals (id, server, tool, args_hash, args_display, created_at, key_fingerprint, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(a.id, a.server, a.tool, a.argsHash, a.argsDisplay, a.createdAt, a.keyFingerprint, a.signature);
  }

  list(includeRevoked: boolean): StandingApprovalRow[] {
    const sql = `SELECT * FROM mcp_standing_approvals ${includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at`;
    return (this.db.prepare(sql).all() as Row[]).map(toApproval);
  }

  get(id: string): StandingApprovalRow | null {
    const row = this.db.prepare('SELECT * FROM mcp_standing_approvals WHERE id = ?').get(id) as Row | undefined;
    return row ? toApproval(row) : null;
  }

  markRevoked(id: string, at: string): void {
    this.db.prepare('UPDATE mcp_standing_approvals SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
  }

  /** Every row for exactly this call, oldest first. */
  matching(server: string, tool: string, argsHash: string): StandingApprovalRow[] {
    return (this.db.prepare('SELECT * FROM mcp_standing_approvals WHERE server = ? AND tool = ? AND args_hash = ? ORDER BY created_at').all(server, tool, argsHash) as Row[]).map(toApproval);
  }
}

function toApproval(row: Row): StandingApprovalRow {
  return {
    id: row.id,
    server: row.server,
    tool: row.tool,
    argsHash: row.args_hash,
    argsDisplay: row.args_display,
    createdAt: row.created_at,
    keyFingerprint: row.key_fingerprint,
    signature: row.signature,
    revokedAt: row.revoked_at,
  };
}
