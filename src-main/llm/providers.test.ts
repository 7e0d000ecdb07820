import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { RoleModelConfig } from '../../src-shared/llm/config.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { clientFor, collect, failureOf, fakeApiKey, recordingSleep, scratchSecrets } from './testing/llm.js';
import { baseUrlOf, DEFAULT_BASE_URLS, readApiKey } from './providers.js';
import { anthropicReply, startScriptedAnthropicServer, type ScriptedAnthropicServer } from './testing/scripted-anthropic-server.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from './testing/scripted-openai-server.js';

// Anthropic against its own wire format, OpenRouter against the OpenAI one it speaks, each with
// its key from the real OS keyring.
let secrets: NamedSecrets;
let cleanup: () => void;
let key: string;
const ask = { system: 'You are Silas.', messages: [{ role: 'user' as const, content: 'hello' }] };

beforeEach(() => {
  ({ secrets, cleanup } = scratchSecrets());
  key = fakeApiKey('sk-ant');
});
afterEach(() => cleanup());

/** The header lines of a request whose value contains `needle`. */
function headersCarrying(rawHeaders: readonly string[], needle: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i + 1]!.includes(needle)) found.push(rawHeaders[i]!.toLowerCase());
  return found;
}

describe('anthropic', () => {
  let server: ScriptedAnthropicServer;
  beforeEach(async () => {
    server = await startScriptedAnthropicServer();
    secrets.set('anthropic-key', key, { origins: [server.baseUrl, DEFAULT_BASE_URLS.anthropic] });
  });
  afterEach(() => server.http.close());
  const config = (extra: Record<string, unknown> = {}) => ({ provider: 'anthropic' as const, model: 'claude-sonnet-4-5', baseUrl: server.baseUrl, apiKeySecret: 'anthropic-key', ...extra });

  it('sends the key to the public endpoint even when ANTHROPIC_BASE_URL points elsewhere', async () => {
    // Whoever can set the runtime's environment must not be able to redirect the key.
    const seen: string[] = [];
    const previous = process.env.ANTHROPIC_BASE_URL;
    process.env.ANTHROPIC_BASE_URL = server.baseUrl;
    vi.stubGlobal('fetch', (input: string | URL | Request) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return Promise.resolve(new Response(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'no' } }), { status: 401, headers: { 'content-type': 'application/json' } }));
    });
    try {
      const client = clientFor('planner', { provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeySecret: 'anthropic-key' }, { secrets });
      expect(await failureOf(client.generateObject({ ...ask, schema: z.object({ ok: z.boolean() }) }))).toMatchObject({ code: 'auth' });
    } finally {
      vi.unstubAllGlobals();
      if (previous === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = previous;
    }
    expect(seen.length).toBeGreaterThan(0);
    for (const url of seen) expect(url.startsWith(`${DEFAULT_BASE_URLS.anthropic}/`)).toBe(true);
    expect(server.http.requests).toEqual([]);
  });

  it('streams text from the messages API with usage and cost, the key only in x-api-key', async () => {
    server.http.enqueue(anthropicReply.stream(['Hello', ' from', ' Claude'], { input_tokens: 2000, output_tokens: 100 }));
    const client = clientFor('planner', config({ price: { inputPerMillion: 3, outputPerMillion: 15 }, maxTokens: 1024 }), { secrets });
    const events = await collect(client.streamText(ask));
    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.text).join('')).toBe('Hello from Claude');
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 2000, outputTokens: 100 }, costUsd: (2000 * 3 + 100 * 15) / 1e6 });

    const [request] = server.http.requests;
    expect(request!.path).toBe('/v1/messages');
    expect(request!.headers['anthropic-version']).toBeDefined();
    expect(request!.json).toMatchObject({ model: 'claude-sonnet-4-5', stream: true, max_tokens: 1024, system: [{ type: 'text', text: 'You are Silas.' }], messages: [{ role: 'user' }] });
    expect(headersCarrying(request!.rawHeaders, key)).toEqual(['x-api-key']);
    expect(request!.body).not.toContain(key);
  });

  it('parses a structured answer through the zod schema', async () => {
    server.http.enqueue(anthropicReply.message('{"steps":["read","write"]}', { input_tokens: 30, output_tokens: 12 }));
    const result = await clientFor('planner', config(), { secrets }).generateObject({ ...ask, schema: z.object({ steps: z.array(z.string()) }) });
    expect(result.object).toEqual({ steps: ['read', 'write'] });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 12 });
  });

  it('maps a rejected key to auth naming anthropic and the secret', async () => {
    server.http.enqueue(anthropicReply.error(401, 'authentication_error', 'invalid x-api-key'));
    const error = await failureOf(collect(clientFor('planner', config(), { secrets }).streamText(ask)));
    expect(error).toMatchObject({ code: 'auth', provider: 'anthropic', status: 401 });
    expect((error as Error).message).toBe('anthropic rejected the API key in secret "anthropic-key" (HTTP 401: invalid x-api-key): run `silas secrets set anthropic-key` with a valid key');
  });

  it('retries an overloaded answer (529)', async () => {
    const { sleep, pauses } = recordingSleep();
    server.http.enqueue(anthropicReply.error(529, 'overloaded_error', 'Overloaded'), anthropicReply.message('{"steps":[]}'));
    const result = await clientFor('planner', config(), { secrets, sleep }).generateObject({ ...ask, schema: z.object({ steps: z.array(z.string()) }) });
    expect(result.object).toEqual({ steps: [] });
    expect(pauses).toHaveLength(1);
  });
});

describe('openrouter', () => {
  let server: ScriptedOpenAIServer;
  beforeEach(async () => {
    server = await startScriptedOpenAIServer();
    secrets.set('openrouter-key', key, { origins: [server.baseUrl] });
  });
  afterEach(() => server.http.close());
  const config = (extra: Record<string, unknown> = {}) => ({ provider: 'openrouter' as const, model: 'anthropic/claude-sonnet-4.5', baseUrl: server.baseUrl, apiKeySecret: 'openrouter-key', ...extra });

  it('streams text over the OpenAI wire format with usage, the key only in Authorization', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['Routed', ' answer'], usage: { prompt_tokens: 70, completion_tokens: 9 } }));
    const events = await collect(clientFor('proxy', config({ price: { inputPerMillion: 3, outputPerMillion: 15 } }), { secrets }).streamText(ask));
    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.text)).toEqual(['Routed', ' answer']);
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 70, outputTokens: 9 }, costUsd: (70 * 3 + 9 * 15) / 1e6 });
    const [request] = server.http.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.json).toMatchObject({ model: 'anthropic/claude-sonnet-4.5', stream: true });
    expect(request!.headers.authorization).toBe(`Bearer ${key}`);
    expect(headersCarrying(request!.rawHeaders, key)).toEqual(['authorization']);
  });

  it('parses a structured answer', async () => {
    server.http.enqueue(openaiReply.object({ route: 'direct' }, { prompt_tokens: 5, completion_tokens: 3 }));
    const result = await clientFor('proxy', config(), { secrets }).generateObject({ ...ask, schema: z.object({ route: z.string() }) });
    expect(result.object).toEqual({ route: 'direct' });
  });

  it('says openrouter rejected the key in the named secret, and how to replace it', async () => {
    server.http.enqueue(openaiReply.error(401, 'No auth credentials found'));
    const error = await failureOf(collect(clientFor('proxy', config(), { secrets }).streamText(ask)));
    expect(error).toMatchObject({ code: 'auth', provider: 'openrouter' });
    expect((error as Error).message).toMatch(/^openrouter rejected the API key in secret "openrouter-key" \(HTTP 401: .*\): run `silas secrets set openrouter-key` with a valid key$/);
  });
});

describe('configuration reaching the providers', () => {
  it('uses the public endpoints explicitly when no baseUrl is configured', () => {
    expect(baseUrlOf(RoleModelConfig.parse({ provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeySecret: 'k' }))).toBe(DEFAULT_BASE_URLS.anthropic);
    expect(baseUrlOf(RoleModelConfig.parse({ provider: 'openrouter', model: 'x/y', apiKeySecret: 'k' }))).toBe('https://openrouter.ai/api/v1');
    expect(baseUrlOf(RoleModelConfig.parse({ provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:11434/v1/' }))).toBe('http://127.0.0.1:11434/v1');
  });

  it('refuses a hosted provider without a key secret even if the schema was bypassed', () => {
    const memory = new NamedSecrets(new MemorySecretStore());
    expect(() => readApiKey('scorer', { provider: 'openrouter', model: 'x', timeoutMs: 1000, maxRetries: 0 }, memory)).toThrow(/models\.scorer uses openrouter, which needs an API key: store it with `silas secrets set openrouter-key`/);
  });
});
