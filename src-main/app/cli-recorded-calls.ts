import type { RecordedCall } from '../aip/trial/trial.js';
import { recordedCallsFrom } from '../aip/trial/recorded.js';
import { cliSecretStore, type SecretStore } from './cli-keyring.js';
import { openLedger } from './ledger.js';

/** `silas policy replay`'s read of the ledger (docs/architecture.md §3: commands never open the store). */
export function recordedCalls(home: string, server: string, last: number, secretStore: SecretStore | undefined): { calls: RecordedCall[]; scanned: number } {
  const ledger = openLedger(home, { create: false, keys: 'verify', secretStore: cliSecretStore(secretStore) });
  try {
    return recordedCallsFrom(ledger.audit, server, last);
  } finally {
    ledger.close();
  }
}
