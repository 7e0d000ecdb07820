import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import { isSilasError } from '../../src-shared/errors.js';
import { probeModel as probeWith, type ProbeResult } from '../llm/probe.js';
import { baseUrlOf } from '../../src-shared/llm/config.js';
import { cliSecretStore, type SecretStore } from './cli-keyring.js';
import { cliNamedSecrets } from './cli-secrets.js';
import { openLedger } from './ledger.js';
import type { StateSeals } from '../keys/sealed-state.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { loadSealedModels, MODELS_SEAL_ID, saveSealedModels, type SealedModels } from '../llm/sealed-models.js';

// `silas models` may not import keys/ (docs/architecture.md §3), and builds no model client of
// its own: the file, the keyring lookups and the test call are composed here.

export { originOf } from '../../src-shared/llm/origin.js';
export type { SealedModels };
export { baseUrlOf };

export type SecretStatus = { state: 'stored' } | { state: 'missing' } | { state: 'unreadable'; reason: string };

/** Whether the keyring holds secret `name`. The value is read (a keyring cannot be asked less) and dropped here. */
export function secretStatus(name: string, injected: SecretStore | undefined): SecretStatus {
  try {
    const value = cliNamedSecrets(injected).get(name);
    return value === null || value === '' ? { state: 'missing' } : { state: 'stored' };
  } catch (error) {
    return { state: 'unreadable', reason: isSilasError(error) ? error.message : 'the OS keyring failed' };
  }
}

export type { ProbeResult };

/**
 * The home's ledger for one `silas models` command: its seals check and make models.json's seal
 * (docs/silas/models.md), and what is refused is recorded in it. `verify` opens it for reading
 * (`show`), without requiring the keyring.
 */
export interface ModelsLedger {
  load(options?: { report?: boolean }): SealedModels;
  save(raw: Record<string, unknown>): ReturnType<typeof saveSealedModels>;
  /** The person's acceptance that models.json is gone: the keyring's anchor is removed. */
  forget(): void;
  /** Secrets whose refusals to release a key to an origin are recorded in this ledger. */
  secrets: NamedSecrets;
  close(): void;
}

export function openModelsLedger(home: string, injected: SecretStore | undefined, keys: 'signer' | 'verify'): ModelsLedger {
  const store = cliSecretStore(injected);
  const ledger = openLedger(home, { create: false, keys, secretStore: store });
  const seals: StateSeals = ledger.seals;
  return {
    load: (options) => loadSealedModels(home, seals, options),
    save: (raw) => saveSealedModels(home, raw, seals),
    forget: () => seals.anchor('models', MODELS_SEAL_ID, null),
    secrets: new NamedSecrets(store, { onWithheld: (refusal, origin) => seals.report(refusal, origin) }),
    close: () => ledger.close(),
  };
}

/** The origins secret `name` may be sent to, or null when the keyring could not be read. */
export function secretOrigins(name: string, injected: SecretStore | undefined): string[] | null {
  try {
    return cliNamedSecrets(injected).boundOrigins(name);
  } catch {
    return null;
  }
}

/** `silas models test`: the probe of llm/probe.ts with the CLI's keyring; a withheld key is recorded in the ledger. */
export function probeModel(role: ModelRole, config: RoleModelConfig, secrets: NamedSecrets): Promise<ProbeResult> {
  return probeWith(role, config, secrets);
}
