import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { RoleModelConfig, type ModelRole, type RoleModelConfigInput } from '../../../src-shared/llm/config.js';
import { ScratchKeyring } from '../../keys/testing/keyring.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { createModelClient, type ModelClientDeps } from '../ai-sdk-client.js';
import type { ModelClient, ModelStreamEvent } from '../model-client.js';
import type { Sleep } from '../retry.js';

/**
 * Named secrets in the real OS keyring (scripts/with-keyring.sh), under a scratch service so
 * parallel test files and a person's own entries never meet. Call `cleanup` in afterEach.
 */
export function scratchSecrets(): { secrets: NamedSecrets; cleanup: () => void } {
  const keyring = new ScratchKeyring();
  return { secrets: new NamedSecrets(keyring), cleanup: () => keyring.cleanup() };
}

/** A key shaped like a real one, distinctive enough that finding it anywhere is a leak. */
export const fakeApiKey = (prefix = 'sk-test'): string => `${prefix}-${randomBytes(18).toString('hex')}`;

/** A sleep that records the pauses asked for and does not wait, unless the signal is already aborted. */
export function recordingSleep(): { sleep: Sleep; pauses: number[] } {
  const pauses: number[] = [];
  return {
    pauses,
    sleep: async (ms, signal) => {
      pauses.push(ms);
      if (signal?.aborted) throw signal.reason;
    },
  };
}

export function clientFor(role: ModelRole, config: RoleModelConfigInput, deps: ModelClientDeps): ModelClient {
  return createModelClient(role, RoleModelConfig.parse(config), deps);
}

export async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The rejection of `promise`, which must reject. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, and it succeeded');
}

/** Every way an error may end up printed: message, stack, inspection to any depth, JSON. */
export function everyRendering(value: unknown): string {
  const parts = [inspect(value, { depth: Infinity, showHidden: true, getters: true }), safeJson(value)];
  if (value instanceof Error) parts.push(value.message, value.stack ?? '', String(value));
  return parts.join('\n');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

/** The forms a key might be found in: as is, base64 (padded, unpadded, URL-safe) and URL-encoded. */
export function encodingsOf(key: string): string[] {
  const base64 = Buffer.from(key).toString('base64');
  return [key, base64, base64.replace(/=+$/, ''), Buffer.from(key).toString('base64url'), encodeURIComponent(key)];
}
