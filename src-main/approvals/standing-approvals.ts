import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { canonicalJson } from '../../src-shared/canonical.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { StandingGrants, StandingGrantsView } from './standing-grants.js';

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
 * Standing approvals live in the database but count only with a valid signature by the
 * keyring's owner key over their exact binding (DESIGN invariant 1) and while the keyring
 * record lists them: a row inserted by anyone who can write the file, edited to cover other
 * arguments, un-revoked or restored from a backup, is ignored.
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

  get(id: string): StandingApproval | null {
    const row = this.db.prepare('SELECT * FROM mcp_standing_approvals WHERE id = ?').get(id) as Row | undefined;
    return row ? toApproval(row) : null;
  }

  /** Marks the row revoked for the Policies page; what counts is the keyring record (`StandingGrants`). */
  markRevoked(id: string): StandingApproval | null {
    this.db.prepare('UPDATE mcp_standing_approvals SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.now().toISOString(), id);
    return this.get(id);
  }

  /**
   * The standing approval for exactly this call, if one is in force: its row must be signed by
   * the keyring's owner key and its id listed by the keyring record. Rows that match the call
   * but fail either test come back as refusals, for the ledger. The keyring is read only when a
   * row matches, and if it cannot be read nothing is honoured.
   */
  findValid(server: string, tool: string, argsHash: string, grants: StandingGrants): StandingLookup {
    const rows = (this.db.prepare('SELECT * FROM mcp_standing_approvals WHERE server = ? AND tool = ? AND args_hash = ? ORDER BY created_at').all(server, tool, argsHash) as Row[]).map(toApproval);
    if (rows.length === 0) return { approval: null, refused: [] };
    let view: StandingGrantsView;
    try {
      view = grants.read();
    } catch (error) {
      const reason = `the keyring record of standing approvals (${grants.description}) cannot be read, so none is honoured: ${(error as Error).message}`;
      return { approval: null, refused: rows.map((a) => ({ id: a.id, reason })) };
    }
    const refused: StandingRefusal[] = [];
    for (const approval of rows) {
      const reason = refusalReason(approval, view);
      if (reason === null) return { approval, refused };
      refused.push({ id: approval.id, reason });
    }
    return { approval: null, refused };
  }
}

export interface StandingRefusal {
  id: string;
  reason: string;
}

/** `approval` is the one in force (if any); `refused` names the rows for this call that are not, and why. */
export interface StandingLookup {
  approval: StandingApproval | null;
  refused: StandingRefusal[];
}

/** Why `approval` is not in force according to the keyring, or null when it is. */
export function refusalReason(approval: StandingApproval, view: StandingGrantsView): string | null {
  const ownerSigned = approval.keyFingerprint === view.owner.fingerprint && verifyEd25519(view.owner.publicKey, standingSigningBytes(approval), Buffer.from(approval.signature, 'base64'));
  if (!ownerSigned) return `not signed by the owner key in the keyring (${view.owner.fingerprint}); a key read from the database is never trusted`;
  if (!view.active.has(approval.id)) return 'revoked, or never granted: the keyring record of standing approvals does not list it';
  if (approval.revokedAt !== null) return `revoked at ${approval.revokedAt}`;
  return null;
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
