import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ModelProvider } from '../../src-shared/llm/config.js';
import type { NamedSecrets } from '../keys/named-secrets.js';
import { redactor, StreamRedactor } from './errors.js';
import { clientFor, collect, encodingsOf, everyRendering, fakeApiKey, recordingSleep, scratchSecrets } from './testing/llm.js';
import { anthropicReply, startScriptedAnthropicServer, type ScriptedAnthropicServer } from './testing/scripted-anthropic-server.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from './testing/scripted-openai-server.js';

// DESIGN invariant 5: the key reaches the provider's auth header and nothing else. Providers
// that echo it back (in error messages, bodies, headers; plain, base64 or URL-encoded) are
// scripted here, and every output of every call (events, results, errors however rendered, and
// anything written to the console) is searched for the key in each of those forms.
let openai: ScriptedOpenAIServer;
let anthropic: ScriptedAnthropicServer;
let secrets: NamedSecrets;
let cleanup: () => void;
const key = `${fakeApiKey('sk-leak')}+/=&?`;
const printed: string[] = [];

beforeEach(async () => {
  openai = await startScriptedOpenAIServer();
  anthropic = await startScriptedAnthropicServer();
  ({ secrets, cleanup } = scratchSecrets());
  secrets.set('leak-key', key, { origins: [openai.baseUrl, anthropic.baseUrl, 'http://127.0.0.1:9'] });
  const capture = (...args: unknown[]) => void printed.push(args.map((a) => everyRendering(a)).join(' '));
  for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) vi.spyOn(console, method).mockImplementation(capture);
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      printed.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all([openai.http.close(), anthropic.http.close()]);
  cleanup();
});

/** The key as a provider might echo it. */
const echoes = () => `Incorrect API key provided: ${key} (${encodingsOf(key).slice(1).join(', ')})`;
const ask = { system: 'You are Silas.', messages: [{ role: 'user' as const, content: 'hello' }] };
const Answer = z.object({ answer: z.string() });

/** Runs `call`, returning every rendering of what it produced or threw. */
async function outputsOf(call: () => Promise<unknown>): Promise<string> {
  try {
    return everyRendering(await call());
  } catch (error) {
    return everyRendering(error);
  }
}

function expectNoKey(text: string): void {
  for (const form of encodingsOf(key)) expect(text.includes(form), `the key (as ${JSON.stringify(form.slice(0, 12))}…) appeared in an output`).toBe(false);
}

describe('the API key never leaves the auth header', () => {
  it('is absent from every output of successful, failed, timed-out and echoing calls, on every provider', async () => {
    const { sleep } = recordingSleep();
    const outputs: string[] = [];
    const oa = (provider: ModelProvider, extra: Record<string, unknown> = {}) =>
      clientFor('planner', { provider, model: 'm', baseUrl: openai.baseUrl, apiKeySecret: 'leak-key', timeoutMs: 300, maxRetries: 1, price: { inputPerMillion: 1, outputPerMillion: 2 }, ...extra }, { secrets, sleep });
    const an = clientFor('planner', { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: anthropic.baseUrl, apiKeySecret: 'leak-key', timeoutMs: 300 }, { secrets, sleep });

    for (const provider of ['openai-compatible', 'openrouter'] as const) {
      const client = oa(provider);
      outputs.push(everyRendering(client));
      openai.http.enqueue(
        openaiReply.stream({ text: ['hi'], usage: { prompt_tokens: 1, completion_tokens: 1 } }),
        openaiReply.object({ answer: 'ok' }),
        openaiReply.error(401, echoes(), { 'x-echo': key, 'www-authenticate': `Bearer ${key}` }),
        openaiReply.error(403, echoes()),
        openaiReply.error(500, echoes()),
        openaiReply.error(500, echoes()),
        openaiReply.error(429, echoes(), { 'retry-after': '7200' }),
        openaiReply.error(400, echoes()),
        openaiReply.completion({ content: `not json ${key}` }),
        openaiReply.stream({ text: ['call ', key.slice(0, 9), key.slice(9)], toolCalls: [{ id: 'c1', name: 'echo', arguments: [`{"k":"${key.slice(0, 5)}`, `${key.slice(5)}"}`] }] }),
        openaiReply.object({ answer: key }),
        openaiReply.stream({ text: [echoes().slice(0, 40), echoes().slice(40, 50), echoes().slice(50)], stallAfter: true }),
        openaiReply.hang(),
      );
      outputs.push(await outputsOf(() => collect(client.streamText(ask))));
      outputs.push(await outputsOf(() => client.generateObject({ ...ask, schema: Answer })));
      for (let i = 0; i < 5; i++) outputs.push(await outputsOf(() => collect(client.streamText(ask))));
      outputs.push(await outputsOf(() => client.generateObject({ ...ask, schema: Answer })));
      outputs.push(await outputsOf(() => collect(client.streamText({ ...ask, tools: { echo: { description: 'echo', inputSchema: z.object({ k: z.string() }) } } }))));
      outputs.push(await outputsOf(() => client.generateObject({ ...ask, schema: Answer })));
      // Echoed into the answer itself, split across pieces, then stalled.
      outputs.push(await outputsOf(async () => {
        for await (const event of client.streamText(ask)) outputs.push(everyRendering(event));
      }));
      outputs.push(await outputsOf(() => client.generateObject({ ...ask, schema: Answer })));
      expect(openai.http.pending).toBe(0);
    }

    anthropic.http.enqueue(
      anthropicReply.stream(['fine']),
      anthropicReply.error(401, 'authentication_error', echoes()),
      anthropicReply.error(529, 'overloaded_error', echoes()),
      anthropicReply.error(529, 'overloaded_error', echoes()),
      anthropicReply.error(529, 'overloaded_error', echoes()),
    );
    outputs.push(everyRendering(an));
    outputs.push(await outputsOf(() => collect(an.streamText(ask))));
    outputs.push(await outputsOf(() => collect(an.streamText(ask))));
    outputs.push(await outputsOf(() => an.generateObject({ ...ask, schema: Answer })));

    // A key that cannot be sent (pasted with its newline), and a server that is not there.
    secrets.set('pasted', `${key}\n`, { origins: [openai.baseUrl] });
    outputs.push(await outputsOf(() => collect(oa('openrouter', { apiKeySecret: 'pasted' }).streamText(ask))));
    outputs.push(await outputsOf(() => collect(oa('openai-compatible', { baseUrl: 'http://127.0.0.1:9/v1' }).streamText(ask))));

    expect(outputs.join('\n')).toContain('[redacted]');
    expectNoKey(outputs.join('\n'));
    expectNoKey(printed.join('\n'));
    // Each request carried the key in exactly one header, and nowhere else.
    for (const request of [...openai.http.requests, ...anthropic.http.requests]) {
      const whole = `${request.path}\n${request.rawHeaders.join('\n')}\n${request.body}`;
      const carrying = request.rawHeaders.filter((value, i) => i % 2 === 1 && value.includes(key));
      expect(carrying.length).toBe(1);
      expect(whole.split(key).length - 1).toBe(1);
    }
  });
});

describe('the redactor', () => {
  it('removes the key in every form and leaves other text alone', () => {
    const redact = redactor(key);
    const text = `a ${encodingsOf(key).join(' b ')} c ${encodeURI(key)}`;
    expectNoKey(redact(text));
    expect(redact('nothing secret here')).toBe('nothing secret here');
    expect(redactor(null)('same')).toBe('same');
  });

  it('catches a key split across streamed pieces, holding back only what could start one', () => {
    const stream = new StreamRedactor(key);
    const pieces = ['the key is ', key.slice(0, 6), key.slice(6, 20), `${key.slice(20)} and more s`, 'o on'];
    const out = pieces.map((piece) => stream.push(piece));
    out.push(stream.flush());
    expect(out.join('')).toBe('the key is [redacted] and more so on');
    expect(out[0]).toBe('the key is ');
    expect(out[1]).toBe('');
  });
});
