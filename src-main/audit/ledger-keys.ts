import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { AnchorStore, ChainKey } from '../keys/ledger-key.js';
import type { OwnerSigner } from '../keys/owner-key.js';

/**
 * Everything the ledger needs from the OS keyring, and nothing from the database: the key that
 * links entries, where keyed linking began, the monotonic checkpoint anchor, and the owner key
 * that signs checkpoints (its public half is the only key checkpoints are verified against).
 */
export interface LedgerKeys {
  chain: ChainKey;
  keyedFrom: number;
  anchors: AnchorStore;
  signer: OwnerSigner;
}

/** A checkpoint or verification would otherwise vouch for a rewritten chain. */
export class LedgerTamperError extends SilasError {
  constructor(
    readonly index: number,
    reason: string,
  ) {
    super(ErrorCode.LedgerTampered, `the audit ledger was altered outside Silas: ${reason}. Nothing was signed over it; run \`silas audit verify\` for the first break and restore the database from a backup (see docs/ledger.md)`);
    this.name = 'LedgerTamperError';
  }
}

/** Why a ledger without keyring access can neither append nor verify. */
export function keysMissing(what: string, detail: string): SilasError {
  return new SilasError(
    ErrorCode.KeyMissing,
    `cannot ${what}: the ledger key and owner key of this home are held only in the OS keyring, which ${detail}; unlock that keyring (on Linux start or unlock GNOME Keyring/KeePassXC in this session, see \`silas doctor\`) and retry`,
  );
}
