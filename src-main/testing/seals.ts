import { randomBytes } from 'node:crypto';
import { parseLedgerKeyRecord } from '../keys/ledger-key.js';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { StateSeals, type SealRefusal } from '../keys/sealed-state.js';
import { MemorySecretStore } from '../keys/secret-store.js';

/**
 * Sealed state for tests that are not about the keyring: fresh owner and ledger keys and an
 * anchor store in memory, and every refusal kept in `refusals` for the test to assert.
 */
export function memorySeals(): { seals: StateSeals; refusals: SealRefusal[] } {
  const secrets = new MemorySecretStore();
  const owner = new OwnerKeyVault(secrets, 'owner-test').ensure().signer;
  const ledger = parseLedgerKeyRecord(JSON.stringify({ v: 1, alg: 'hmac-sha256', key: randomBytes(32).toString('base64'), keyed_from: 0 }), 'ledger-test').chain;
  const refusals: SealRefusal[] = [];
  const seals = new StateSeals({
    keys: { owner: () => owner, ledger: () => ledger },
    anchors: { store: secrets, absoluteHome: `/tmp/silas-test-${randomBytes(4).toString('hex')}` },
    reporter: { refused: (refusal) => refusals.push(refusal) },
  });
  return { seals, refusals };
}
