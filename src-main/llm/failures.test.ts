import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { NamedSecrets } from '../keys/named-secrets.js';
import { ModelError } from './errors.js';
import { clientFor, collect, failureOf, fakeApiKey, recordingSleep, scratchSecrets } from './testing/llm.js';
import type { ModelStreamEvent } from './model-client.js';
import { ScriptedHttpServer } from './testing/scripted-http-server.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from './testing/scripted-openai-server.js';

// How a call fails, and what the person is told: retries on 429 and 5xx only (Retry-After
// obeyed), timeouts, cancellation, a rejected or missing key. Pauses are recorded by an injected
// sleep rather than timed.
let server: ScriptedOpenAIServer;
let secrets: NamedSecrets;
let cleanup: () => void;

beforeEach(async () => {
  server = await startScriptedOpenAIServer();
  ({ secrets, cleanup } = scratchSecrets());
  secrets.set('local-llm-key', fakeApiKey(), { origins: [server.baseUrl] });
});

afterEach(async () => {
  await server.http.close();
  cleanup();
});

const config = (extra: Record<string, unknown> = {}) => ({ provider: 'openai-compatible' as const, model: 'llama3.1:8b', baseUrl: server.baseUrl, apiKeySecret: 'local-llm-key', ...extra });
const ask = { system: 'You are Silas.', messages: [{ role: 'user' as const, content: 'hello' }] };
const Answer = z.object({ answer: z.string() });

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('retries', () => {
  it('retries a 429 after the Retry-After the provider asked for, then streams the answer', async () => {
    const { sleep, pauses } = recordingSleep();
    server.http.enqueue(openaiReply.error(429, 'Rate limit reached', { 'retry-after': '2' }), openaiReply.stream({ text: ['fine'] }));
    const events = await collect(clientFor('proxy', config(), { secrets, sleep }).streamText(ask));
    expect(events[0]).toEqual({ type: 'text-delta', text: 'fine' });
    expect(pauses).toEqual([2000]);
    expect(server.http.requests).toHaveLength(2);
  });

  it('waits out a small Retry-After for real and succeeds', async () => {
    server.http.enqueue(openaiReply.error(429, 'Rate limit reached', { 'retry-after-ms': '20' }), openaiReply.object({ answer: 'yes' }));
    const result = await clientFor('planner', config(), { secrets }).generateObject({ ...ask, schema: Answer });
    expect(result.object).toEqual({ answer: 'yes' });
    expect(server.http.requests).toHaveLength(2);
  });

  it('backs off exponentially with jitter when no Retry-After is given, and gives up with rate_limited', async () => {
    const { sleep, pauses } = recordingSleep();
    server.http.enqueue(...Array.from({ length: 4 }, () => openaiReply.error(429, 'Rate limit reached')));
    const client = clientFor('proxy', config({ maxRetries: 3 }), { secrets, sleep, random: () => 0, retryPolicy: { baseDelayMs: 100, maxDelayMs: 300 } });
    const error = await failureOf(client.generateObject({ ...ask, schema: Answer }));
    expect(error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect((error as Error).message).toMatch(/rate-limiting model "llama3.1:8b" \(HTTP 429: Rate limit reached\) and refused 4 times: wait a minute and try again, or raise models\.proxy\.maxRetries/);
    // 100·2^n, capped at 300, halved by the jitter at random() = 0.
    expect(pauses).toEqual([50, 100, 150]);
    expect(server.http.requests).toHaveLength(4);
  });

  it('gives up at once when the provider asks to wait longer than is reasonable', async () => {
    const { sleep, pauses } = recordingSleep();
    server.http.enqueue(openaiReply.error(429, 'quota', { 'retry-after': '3600' }));
    const error = await failureOf(collect(clientFor('proxy', config(), { secrets, sleep }).streamText(ask)));
    expect(error).toMatchObject({ code: 'rate_limited' });
    expect((error as Error).message).toMatch(/asks to wait 3600 s/);
    expect(pauses).toEqual([]);
  });

  it('retries a 500 and gives up with unavailable after maxRetries', async () => {
    const { sleep, pauses } = recordingSleep();
    server.http.enqueue(...Array.from({ length: 3 }, () => openaiReply.error(500, 'internal error')));
    const error = await failureOf(collect(clientFor('executor', config({ maxRetries: 2 }), { secrets, sleep }).streamText(ask)));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'unavailable', status: 500, role: 'executor', provider: 'openai-compatible' });
    expect((error as Error).message).toBe(`the OpenAI-compatible server at ${server.baseUrl} failed to answer for model "llama3.1:8b" (HTTP 500: internal error), 3 times: check the server's log`);
    expect(pauses).toHaveLength(2);
    expect(server.http.requests).toHaveLength(3);
  });

  it('recovers when a 503 is followed by an answer', async () => {
    const { sleep } = recordingSleep();
    server.http.enqueue(openaiReply.error(503, 'loading model'), openaiReply.object({ answer: 'ready' }));
    const result = await clientFor('planner', config(), { secrets, sleep }).generateObject({ ...ask, schema: Answer });
    expect(result.object).toEqual({ answer: 'ready' });
  });

  it('does not retry other client errors', async () => {
    const { sleep, pauses } = recordingSleep();
    server.http.enqueue(openaiReply.error(404, 'model "llama3.1:8b" not found, try pulling it first'));
    const missing = await failureOf(collect(clientFor('proxy', config(), { secrets, sleep }).streamText(ask)));
    expect(missing).toMatchObject({ code: 'unavailable', status: 404 });
    expect((missing as Error).message).toMatch(/has no model "llama3\.1:8b" \(HTTP 404: .*not found.*\): check models\.proxy\.model and baseUrl/);

    server.http.enqueue(openaiReply.error(400, 'context length exceeded'));
    const refused = await failureOf(collect(clientFor('proxy', config(), { secrets, sleep }).streamText(ask)));
    expect(refused).toMatchObject({ code: 'bad_response', status: 400 });
    expect(pauses).toEqual([]);
    expect(server.http.requests).toHaveLength(2);
  });
});

describe('the key', () => {
  it('maps a 401 to auth, naming the provider, the secret and the command that fixes it, without retrying', async () => {
    const { sleep } = recordingSleep();
    server.http.enqueue(openaiReply.error(401, 'Invalid API key'));
    const error = await failureOf(collect(clientFor('planner', config(), { secrets, sleep }).streamText(ask)));
    expect(error).toMatchObject({ code: 'auth', status: 401 });
    expect((error as Error).message).toBe(
      `the OpenAI-compatible server at ${server.baseUrl} rejected the API key in secret "local-llm-key" (HTTP 401: Invalid API key): run \`silas secrets set local-llm-key\` with a valid key`,
    );
    expect(server.http.requests).toHaveLength(1);
  });

  it('tells a keyless configuration that the server wants a key', async () => {
    server.http.enqueue(openaiReply.error(401, 'unauthorized'));
    const { apiKeySecret: _, ...keyless } = config();
    const error = await failureOf(clientFor('proxy', keyless, { secrets }).generateObject({ ...ask, schema: Answer }));
    expect(error).toMatchObject({ code: 'auth' });
    expect((error as Error).message).toMatch(/asks for an API key \(HTTP 401: unauthorized\): store it with `silas secrets set NAME` and write apiKeySecret: NAME under models\.proxy/);
  });

  it('fails before any request when the keyring has no such secret', async () => {
    const client = clientFor('planner', config({ apiKeySecret: 'never-set' }), { secrets });
    for (const call of [collect(client.streamText(ask)), client.generateObject({ ...ask, schema: Answer })]) {
      const error = await failureOf(call);
      expect(error).toMatchObject({ code: 'auth', provider: 'openai-compatible' });
      expect((error as Error).message).toBe(
        `models.planner uses openai-compatible with the API key in secret "never-set", which is not in the OS keyring (${secrets.description}); to fix, run \`silas secrets set never-set\` and type or pipe the key`,
      );
    }
    expect(server.http.requests).toEqual([]);
  });

  it('refuses a stored key with a line break before it reaches a header', async () => {
    const pasted = `${fakeApiKey()}\n`;
    secrets.set('pasted-key', pasted, { origins: [server.baseUrl] });
    const error = await failureOf(collect(clientFor('proxy', config({ apiKeySecret: 'pasted-key' }), { secrets }).streamText(ask)));
    expect(error).toMatchObject({ code: 'auth' });
    expect((error as Error).message).toMatch(/secret "pasted-key" contains a space, line break.*silas secrets set pasted-key/);
    expect((error as Error).message).not.toContain(pasted.trim());
    expect(server.http.requests).toEqual([]);
  });
});

describe('timeouts and cancellation', () => {
  it('times out a provider that never answers, with the timeout and the setting to change', async () => {
    server.http.enqueue(openaiReply.hang());
    const error = await failureOf(clientFor('proxy', config({ timeoutMs: 150 }), { secrets }).generateObject({ ...ask, schema: Answer }));
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as Error).message).toBe(
      `the OpenAI-compatible server at ${server.baseUrl} did not answer within 150 ms (model "llama3.1:8b"): check that it is running and not overloaded, or raise models.proxy.timeoutMs`,
    );
    // Not retried: the person is already waiting.
    expect(server.http.requests).toHaveLength(1);
  });

  it('times out a stream that stops sending, after the text it did send', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['partial'], stallAfter: true }));
    const seen: ModelStreamEvent[] = [];
    const error = await failureOf(
      (async () => {
        for await (const event of clientFor('executor', config({ timeoutMs: 150 }), { secrets }).streamText(ask)) seen.push(event);
      })(),
    );
    expect(seen).toEqual([{ type: 'text-delta', text: 'partial' }]);
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as Error).message).toMatch(/sent nothing for 150 ms \(model "llama3\.1:8b"\)/);
  });

  it('ends with cancelled when the caller aborts a call in flight', async () => {
    server.http.enqueue(openaiReply.hang(), openaiReply.hang());
    const client = clientFor('proxy', config({ timeoutMs: 60_000 }), { secrets });
    for (const start of [(signal: AbortSignal) => collect(client.streamText({ ...ask, signal })), (signal: AbortSignal) => client.generateObject({ ...ask, schema: Answer, signal })]) {
      const controller = new AbortController();
      const before = server.http.requests.length;
      const call = failureOf(start(controller.signal));
      await until(() => server.http.requests.length > before);
      controller.abort();
      const error = await call;
      expect(error).toMatchObject({ code: 'cancelled' });
      expect((error as Error).message).toBe('the call to model "llama3.1:8b" (proxy) was cancelled');
    }
  });

  it('ends with cancelled when the caller aborts during the pause before a retry', async () => {
    server.http.enqueue(openaiReply.error(429, 'slow down', { 'retry-after': '30' }));
    const controller = new AbortController();
    const call = failureOf(clientFor('proxy', config(), { secrets }).generateObject({ ...ask, schema: Answer, signal: controller.signal }));
    await until(() => server.http.requests.length === 1);
    controller.abort();
    expect(await call).toMatchObject({ code: 'cancelled' });
    expect(server.http.requests).toHaveLength(1);
  });

  it('ends the request when the caller stops reading the stream', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['first', 'second'], stallAfter: true }));
    for await (const event of clientFor('proxy', config(), { secrets }).streamText(ask)) {
      expect(event).toEqual({ type: 'text-delta', text: 'first' });
      break;
    }
    await until(() => server.http.requests[0]?.disconnected === true);
  });

  it('ends the request of a call that timed out or was cancelled', async () => {
    server.http.enqueue(openaiReply.hang());
    await failureOf(clientFor('proxy', config({ timeoutMs: 100 }), { secrets }).generateObject({ ...ask, schema: Answer }));
    await until(() => server.http.requests[0]?.disconnected === true);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await failureOf(collect(clientFor('proxy', config(), { secrets }).streamText({ ...ask, signal: AbortSignal.abort() })));
    expect(error).toMatchObject({ code: 'cancelled' });
    expect(server.http.requests).toEqual([]);
  });

  it('says which server could not be reached when nothing listens', async () => {
    const gone = await ScriptedHttpServer.start();
    await gone.close();
    secrets.set('local-llm-key', fakeApiKey(), { origins: [gone.origin] });
    const error = await failureOf(collect(clientFor('proxy', config({ baseUrl: `${gone.origin}/v1` }), { secrets }).streamText(ask)));
    expect(error).toMatchObject({ code: 'unavailable' });
    expect((error as Error).message).toMatch(new RegExp(`could not reach the OpenAI-compatible server at ${gone.origin}/v1 \\(ECONNREFUSED\\).*check that the server is running and that models\\.proxy\\.baseUrl is right`));
  });
});
