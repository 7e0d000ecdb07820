import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import { isSilasError } from '../../src-shared/errors.js';
import { probeModel as probeWith, type ProbeResult } from '../llm/probe.js';
import { baseUrlOf } from '../../src-shared/llm/config.js';
import type { SecretStore } from './cli-keyring.js';
import { cliNamedSecrets } from './cli-secrets.js';

// `silas models` may not import keys/ (docs/architecture.md §3), and builds no model client of
// its own: the file, the keyring lookups and the test call are composed here.

export { loadModelsFile, modelsFilePath, readModelsFileRaw, saveModelsFile, type ModelsFile } from '../llm/models-file.js';
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

/** `silas models test`: the probe of llm/probe.ts with the CLI's keyring. */
export function probeModel(role: ModelRole, config: RoleModelConfig, injected: SecretStore | undefined): Promise<ProbeResult> {
  return probeWith(role, config, cliNamedSecrets(injected));
}
