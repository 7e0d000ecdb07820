import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import { isModelError } from './errors.js';
import type { ModelUsage } from './model-client.js';
import type { SecretReader } from './providers.js';

export type ProbeResult = { ok: true; latencyMs: number; usage: ModelUsage; costUsd: number | null } | { ok: false; code: string; message: string };

const PROBE_SYSTEM = 'This is a connection test. Answer with the single word OK.';

/**
 * One small real request to a role's model (`silas models test`, the cockpit's "Test
 * connection"): the configured endpoint, key and model, with no retries, so a failure is
 * reported as it happened. A ModelError's message is already redacted and says what to fix;
 * anything else is not expected and is thrown.
 */
export async function probeModel(role: ModelRole, config: RoleModelConfig, secrets: SecretReader): Promise<ProbeResult> {
  // The AI SDK loads only for a test call: commands that never call a model start without it.
  const { createModelClient } = await import('./ai-sdk-client.js');
  const client = createModelClient(role, { ...config, maxRetries: 0 }, { secrets });
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
