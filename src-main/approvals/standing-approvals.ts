import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { canonicalJson } from '../../src-shared/canonical.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import type { OwnerSigner } from '../keys/owner-key.js';

/** A person's "always allow" for one tool with exactly these arguments on one server. */
export interface StandingApproval {
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

export function standingSigningBytes(a: Pick<StandingApproval, 'id' | 'server' | 'tool' | 'argsHash' | 'createdAt'>): Buffer {
  return Buffer.from(canonicalJson({ type: 'silas.mcp.standing-approval/v1', id: a.id, server: a.server, tool: a.tool, argsHash: a.argsHash, createdAt: a.createdAt }), 'utf8');
}

/**
 * Standing approvals live in the database but count only with a valid owner signature over
 * their exact binding (DESIGN invariant 1): a row inserted by anyone who can write the file,
 * or edited to cover other arguments, is ignored.
 */
export class StandingApprovalRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  create(binding: { server: string; tool: string; argsHash: string; argsDisplay: string }, signer: OwnerSigner): StandingApproval {
    const base = { id: randomUUID(), server: binding.server, tool: binding.tool, argsHash: binding.argsHash, createdAt: this.now().toISOString() };
    const approval: StandingApproval = { ...base, argsDisplay: binding.argsDisplay, keyFingerprint: signer.fingerprint, signature: signer.sign(standingSigningBytes(base)).toString('base64'), revokedAt: null };
    this.db
      .prepare('INSERT INTO mcp_standing_approvals (id, server, tool, args_hash, args_display, created_at, key_fingerprint, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(approval.id, approval.server, approval.tool, approval.argsHash, approval.argsDisplay, approval.createdAt, approval.keyFingerprint, approval.signature);
    return approval;
  }

  list(includeRevoked = false): StandingApproval[] {
    const sql = `SELECT * FROM mcp_standing_approvals ${includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at`;
    return (this.db.prepare(sql).all() as Row[]).map(toApproval);
  }

  revoke(id: string): StandingApproval | null {
    const changed = this.db.prepare('UPDATE mcp_standing_approvals SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now().toISOString(), id).changes;
    if (changed !== 1) return null;
    return toApproval(this.db.prepare('SELECT * FROM mcp_standing_approvals WHERE id = ?').get(id) as Row);
  }

  /** The active, correctly signed standing approval for exactly this call, if any. */
  findValid(server: string, tool: string, argsHash: string, trustedKeys: ReadonlyMap<string, Uint8Array>): StandingApproval | null {
    const rows = this.db.prepare('SELECT * FROM mcp_standing_approvals WHERE server = ? AND tool = ? AND args_hash = ? AND revoked_at IS NULL').all(server, tool, argsHash) as Row[];
    for (const approval of rows.map(toApproval)) {
      const key = trustedKeys.get(approval.keyFingerprint);
      if (key && verifyEd25519(key, standingSigningBytes(approval), Buffer.from(approval.signature, 'base64'))) return approval;
    }
    return null;
  }
}

function toApproval(row: Row): StandingApproval {
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
