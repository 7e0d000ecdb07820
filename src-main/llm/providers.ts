import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import type { LanguageModel } from 'ai';
import type { ModelRole, RoleModelConfig } from '../../src-shared/llm/config.js';
import { isSilasError } from '../../src-shared/errors.js';
import type { NamedSecrets, SecretWithheld } from '../keys/named-secrets.js';
import { ModelError } from './errors.js';
import { baseUrlOf } from '../../src-shared/llm/config.js';

export { baseUrlOf, DEFAULT_BASE_URLS } from '../../src-shared/llm/config.js';

/*
 * The AI SDK model for a role, with its API key read from the OS keyring at the moment of the
 * call (DESIGN invariant 5): a key replaced with `silas secrets set` is used by the next call,
 * and no object outlives the call holding it.
 */

/** What the model layer needs of the keyring: `NamedSecrets`, or a test double of it. */
export type SecretReader = Pick<NamedSecrets, 'get' | 'description' | 'releasable'>;

// What an HTTP header can carry. A key with a line break or a space (pasted with its newline)
// would make fetch throw an error quoting the header, the key included.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

export interface ResolvedModel {
  model: LanguageModel;
  /** For the redactor only; never stored, logged or returned to a caller. */
  apiKey: string | null;
}


/**
 * The key, or null for a keyless local server. Every way of not having one fails here, before
 * any request, with the command that fixes it. The key is released only to the origin it was
 * stored for (docs/silas/models.md, "Where a key may go"), whatever models.json says: a base URL
 * changed by something that cannot reach the keyring, or a secret stored for an MCP server,
 * sends nothing.
 */
export function readApiKey(role: ModelRole, config: RoleModelConfig, secrets: SecretReader): string | null {
  const details = { provider: config.provider, role };
  return releaseApiKey(`models.${role}`, config, secrets, (message) => new ModelError('auth', message, details), "save the model again on the cockpit's Stream page");
}

/** What `releaseApiKey` needs of a configured endpoint: a chat role's or the embedding model's (`models.embedding`). */
export type KeyedEndpoint = Pick<RoleModelConfig, 'provider' | 'baseUrl' | 'apiKeySecret'>;

/**
 * `readApiKey` for any configured endpoint, `field` naming it in messages (`models.embedding`),
 * `fail` making the caller's error of each message, and `resave` saying how the person saves
 * that endpoint again (which binds the key to its origin).
 */
export function releaseApiKey(field: string, config: KeyedEndpoint, secrets: SecretReader, fail: (message: string) => Error, resave: string): string | null {
  const name = config.apiKeySecret;
  if (name === undefined) {
    if (config.provider === 'openai-compatible') return null;
    throw fail(`${field} uses ${config.provider}, which needs an API key: store it with \`silas secrets set ${config.provider}-key\` and write apiKeySecret: ${config.provider}-key under ${field}`);
  }
  let key: string | null;
  let release: ReturnType<SecretReader['releasable']>;
  try {
    key = secrets.get(name);
    // Where the key may go, before anything is built with it: a key missing is said first, as its fix comes first.
    release = key === null || key === '' ? { ok: true } : secrets.releasable(name, baseUrlOf(config));
  } catch (error) {
    // The keyring's own message says how to reach it; it never contains a value.
    throw fail(`the API key for ${config.provider} (secret "${name}") could not be read: ${isSilasError(error) ? error.message : 'the OS keyring failed'}`);
  }
  if (!release.ok) throw fail(withheldMessage(field, release.withheld, resave));
  if (key === null || key === '') {
    throw fail(`${field} uses ${config.provider} with the API key in secret "${name}", which is not in the OS keyring (${secrets.description}); to fix, run \`silas secrets set ${name}\` and type or pipe the key`);
  }
  if (!HEADER_SAFE.test(key)) {
    throw fail(`the API key in secret "${name}" contains a space, line break or other character no API key has (often a newline pasted with it); run \`silas secrets set ${name}\` and enter the key alone`);
  }
  return key;
}

function withheldMessage(field: string, withheld: SecretWithheld, resave: string): string {
  const where = withheld.bound.length === 0 ? 'it was not stored for a model provider (a secret set with `silas secrets set` alone, such as an MCP server\'s token, is never sent to one)' : `it may be sent only to ${withheld.bound.join(', ')}`;
  return (
    `the API key in secret "${withheld.name}" was not sent to ${withheld.origin} (${field}): ${where}. ` +
    `If ${withheld.origin} is the right server, ${resave}, or re-enter the key for it with \`silas secrets set ${withheld.name} --origin ${withheld.origin}\`; ` +
    `if you did not change it, models.json was changed outside Silas`
  );
}

export function resolveModel(role: ModelRole, config: RoleModelConfig, secrets: SecretReader): ResolvedModel {
  const apiKey = readApiKey(role, config, secrets);
  const baseURL = baseUrlOf(config);
  switch (config.provider) {
    case 'openai-compatible': {
      const provider = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL,
        ...(apiKey === null ? {} : { apiKey }),
        // Usage in streamed answers is what cost accounting counts.
        includeUsage: true,
        // json_schema response formats: Ollama, LM Studio, vLLM and llama.cpp's server take them,
        // and without one the model would be told "JSON" but not which JSON.
        supportsStructuredOutputs: true,
      });
      return { model: provider.chatModel(config.model), apiKey };
    }
    case 'openrouter': {
      // "strict" asks for usage in streamed answers (stream_options.include_usage).
      const provider = createOpenRouter({ baseURL, apiKey: apiKey!, compatibility: 'strict' });
      return { model: provider.chat(config.model), apiKey };
    }
    case 'anthropic': {
      const provider = createAnthropic({ baseURL, apiKey: apiKey! });
      return { model: provider.messages(config.model), apiKey };
    }
  }
}
