import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import { isSilasError } from '../../src-shared/errors.js';
import { isModelError } from '../llm/errors.js';
import type { ModelUsage } from '../llm/model-client.js';
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

export type ProbeResult = { ok: true; latencyMs: number; usage: ModelUsage; costUsd: number | null } | { ok: false; code: string; message: string };

const PROBE_SYSTEM = 'This is a connection test. Answer with the single word OK.';

/**
 * One small real request to the role's model: the configured endpoint, key and model, with no
 * retries, so a failure is reported as it happened. A ModelError's message is already redacted
 * and says what to fix; anything else is not expected and is thrown.
 */
export async function probeModel(role: ModelRole, config: RoleModelConfig, injected: SecretStore | undefined): Promise<ProbeResult> {
  // The AI SDK loads only for a test call: `silas models show` and `set` start without it.
  const { createModelClient } = await import('../llm/ai-sdk-client.js');
  const client = createModelClient(role, { ...config, maxRetries: 0 }, { secrets: cliNamedSecrets(injected) });
  const started = performance.now();
  try {
    for await (const event of client.streamText({ system: PROBE_SYSTEM, messages: [{ role: 'user', content: 'OK?' }] })) {
      if (event.type === 'finish') return { ok: true, latencyMs: Math.round(performance.now() - started), usage: event.usage, costUsd: event.costUsd };
    }
    return { ok: false, code: 'bad_response', message: `model "${config.model}" ended its answer without finishing` };
  } catch (error) {
    if (isModelError(error)) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}
