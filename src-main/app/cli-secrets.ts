import { MAX_SECRET_BYTES, NamedSecrets, originsOf, secretNameProblem } from '../keys/named-secrets.js';
import { cliSecretStore, type SecretStore } from './cli-keyring.js';

// `silas secrets` may not import keys/ (docs/architecture.md §3), so its keyring-backed store of
// server secrets is composed here, on the same keyring every other CLI command uses.

export type { NamedSecrets, SecretNameListing } from '../keys/named-secrets.js';
export { MAX_SECRET_BYTES, originsOf, secretNameProblem };

/** Server secrets in the OS keyring, unless a test injected its own store through `CliIo.secretStore`. */
export function cliNamedSecrets(injected: SecretStore | undefined): NamedSecrets {
  return new NamedSecrets(cliSecretStore(injected));
}
