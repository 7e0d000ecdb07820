import { randomUUID } from 'node:crypto';
import { StandingApprovalRepository, type StandingApprovalRow } from '../../store/repositories/standing-approval-repository.js';
import type { SqliteDatabase } from '../../store/transaction.js';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { verifyEd25519 } from '../../keys/ed25519.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import type { StandingGrants, StandingGrantsView } from './grants.js';

/** A person's "always allow" for one tool with exactly these arguments on one server. */
export type StandingApproval = StandingApprovalRow;

function standingSigningBytes(a: Pick<StandingApproval, 'id' | 'server' | 'tool' | 'argsHash' | 'createdAt'>): Buffer {
  return Buffer.from(canonicalJson({ type: 'silas.mcp.standing-approval/v1', id: a.id, server: a.server, tool: a.tool, argsHash: a.argsHash, createdAt: a.createdAt }), 'utf8');
}

/**
 * Standing approvals live in the database but count only with a valid signature by the
 * keyring's owner key over their exact binding (DESIGN invariant 1) and while the keyring
 * record lists them: a row inserted by anyone who can write the file, edited to cover other
 * arguments, un-revoked or restored from a backup, is ignored.
 */
export class SignedStandingApprovals {
  private readonly rows: StandingApprovalRepository;

  constructor(
    db: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.rows = new StandingApprovalRepository(db);
  }

  create(binding: { server: string; tool: string; argsHash: string; argsDisplay: string }, signer: OwnerSigner): StandingApproval {
    const base = { id: randomUUID(), server: binding.server, tool: binding.tool, argsHash: binding.argsHash, createdAt: this.now().toISOString() };
    const approval: StandingApproval = { ...base, argsDisplay: binding.argsDisplay, keyFingerprint: signer.fingerprint, signature: signer.sign(standingSigningBytes(base)).toString('base64'), revokedAt: null };
    this.rows.insert(approval);
    return approval;
  }

  list(includeRevoked = false): StandingApproval[] {
    return this.rows.list(includeRevoked);
  }

  get(id: string): StandingApproval | null {
    return this.rows.get(id);
  }

  /** Marks the row revoked for the Policies page; what counts is the keyring record (`StandingGrants`). */
  markRevoked(id: string): StandingApproval | null {
    this.rows.markRevoked(id, this.now().toISOString());
    return this.get(id);
  }

  /**
   * The standing approval for exactly this call, if one is in force: its row must be signed by
   * the keyring's owner key and its id listed by the keyring record. Rows that match the call
   * but fail either test come back as refusals, for the ledger. The keyring is read only when a
   * row matches, and if it cannot be read nothing is honoured.
   */
  findValid(server: string, tool: string, argsHash: string, grants: StandingGrants): StandingLookup {
    const rows = this.rows.matching(server, tool, argsHash);
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

interface StandingRefusal {
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
