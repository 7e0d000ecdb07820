import { readFileSync } from 'node:fs';
import { ledgerAccountsForHome } from '../../keys/ledger-key.js';
import { AuditRepository } from '../../store/repositories/audit-repository.js';
import type { TestLedger } from '../../testing/ledger.js';
import { ChainVerifier, type ChainVerifierDeps } from '../chain-verifier.js';

/** A verifier over a test ledger, its key material read from the test keyring file as the runtime reads the OS keyring. */
export function verifierFor(ledger: Pick<TestLedger, 'file' | 'db' | 'keys' | 'signer'>, deps: Partial<ChainVerifierDeps> = {}): ChainVerifier {
  const keyring = JSON.parse(readFileSync(`${ledger.file}.test-keyring.json`, 'utf8')) as Record<string, string>;
  const material = { ledgerKeyRecord: keyring[ledgerAccountsForHome(ledger.file).key]!, ownerFingerprint: ledger.signer.fingerprint, ownerPublicKey: new Uint8Array(ledger.signer.publicKey) };
  return new ChainVerifier({ dbFile: ledger.file, repository: new AuditRepository(ledger.db), keys: () => ({ keys: ledger.keys, material }), ...deps });
}
