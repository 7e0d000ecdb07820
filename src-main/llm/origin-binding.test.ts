import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScratchKeyring } from '../keys/testing/keyring.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import type { SealRefusal } from '../keys/sealed-state.js';
import { clientFor, collect, everyRendering, encodingsOf, failureOf, fakeApiKey } from './testing/llm.js';
import { probeModel } from './probe.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from './testing/scripted-openai-server.js';

// Where a key may go (docs/silas/models.md): a model provider's key is released only to the
// origin it was stored for, at the point the provider client is built, whatever the configuration
// says; even a configuration whose seal were somehow valid. A secret stored for an MCP server
// (`silas secrets set NAME`, no origin) is never sent to a model provider. The real keyring
// (scripts/with-keyring.sh) holds the keys; one scripted server is the provider, one the attacker.
let keyring: ScratchKeyring;
let provider: ScriptedOpenAIServer;
let attacker: ScriptedOpenAIServer;
let withheld: { refusal: SealRefusal; origin: string }[];
let secrets: NamedSecrets;
let key: string;

beforeEach(async () => {
  keyring = new ScratchKeyring();
  provider = await startScriptedOpenAIServer();
  attacker = await startScriptedOpenAIServer();
  withheld = [];
  secrets = new NamedSecrets(keyring, { onWithheld: (refusal, origin) => withheld.push({ refusal, origin }) });
  key = fakeApiKey();
  secrets.set('provider-key', key, { origins: [provider.baseUrl] });
});
afterEach(async () => {
  await provider.http.close();
  await attacker.http.close();
  keyring.cleanup();
});

const ask = { system: 'Answer briefly.', messages: [{ role: 'user' as const, content: 'hi' }] };
const config = (baseUrl: string, apiKeySecret = 'provider-key') => ({ provider: 'openai-compatible' as const, model: 'm', baseUrl, apiKeySecret, maxRetries: 0 });
const origin = (server: ScriptedOpenAIServer) => server.http.origin;

describe('a provider key bound to its origin', () => {
  it('is sent to the origin it was stored for (any path there)', async () => {
    provider.http.enqueue(openaiReply.stream({ text: ['ok'] }), openaiReply.stream({ text: ['ok'] }));
    await collect(clientFor('proxy', config(provider.baseUrl), { secrets }).streamText(ask));
    await collect(clientFor('proxy', config(`${origin(provider)}/other/v1`), { secrets }).streamText(ask));
    expect(provider.http.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
    expect(withheld).toEqual([]);
  });

  it('is not sent to another origin named by the configuration: nothing reaches it, the error says how to fix it, the refusal is reported', async () => {
    attacker.http.enqueue(openaiReply.stream({ text: ['thanks'] }), openaiReply.stream({ text: ['thanks'] }));
    const error = await failureOf(collect(clientFor('proxy', config(attacker.baseUrl), { secrets }).streamText(ask)));
    const probed = await probeModel('planner', { ...config(attacker.baseUrl), timeoutMs: 1000 }, secrets);

    expect(attacker.http.requests).toHaveLength(0);
    expect(error).toMatchObject({ code: 'auth' });
    expect((error as Error).message).toContain(`was not sent to ${origin(attacker)}`);
    expect((error as Error).message).toContain(`silas secrets set provider-key --origin ${origin(attacker)}`);
    expect(probed).toMatchObject({ ok: false, code: 'auth' });
    for (const form of encodingsOf(key)) expect(everyRendering(error) + JSON.stringify(probed)).not.toContain(form);
    expect(withheld[0]).toMatchObject({ origin: origin(attacker), refusal: { kind: 'secret-origin', id: 'provider-key', reason: 'mismatch' } });
  });

  it('another port on the same host is another origin', async () => {
    const other = origin(attacker).replace(/:\d+$/, `:${new URL(provider.baseUrl).port}`);
    expect(other).toBe(origin(provider));
    attacker.http.enqueue(openaiReply.stream({ text: ['thanks'] }));
    await failureOf(collect(clientFor('proxy', config(`${origin(attacker)}/v1`), { secrets }).streamText(ask)));
    expect(attacker.http.requests).toHaveLength(0);
  });

  it('a secret stored for an MCP server (no origin) is never sent to a model provider, not even to the real one', async () => {
    const token = `ghp_${fakeApiKey('x').slice(2)}`;
    secrets.set('github-token', token);
    attacker.http.enqueue(openaiReply.stream({ text: ['thanks'] }));
    provider.http.enqueue(openaiReply.stream({ text: ['thanks'] }));
    const toAttacker = await failureOf(collect(clientFor('proxy', config(attacker.baseUrl, 'github-token'), { secrets }).streamText(ask)));
    const toProvider = await failureOf(collect(clientFor('proxy', config(provider.baseUrl, 'github-token'), { secrets }).streamText(ask)));

    expect(attacker.http.requests).toHaveLength(0);
    expect(provider.http.requests).toHaveLength(0);
    expect((toAttacker as Error).message).toContain('was not stored for a model provider');
    expect((toProvider as Error).message).toContain('was not stored for a model provider');
    for (const form of encodingsOf(token)) expect(everyRendering(toAttacker) + everyRendering(toProvider)).not.toContain(form);
    expect(withheld.map((w) => [w.refusal.id, w.refusal.reason])).toEqual([
      ['github-token', 'unsealed'],
      ['github-token', 'unsealed'],
    ]);
  });

  it('the binding lives in the keyring beside the secret, and goes with it', () => {
    expect(secrets.boundOrigins('provider-key')).toEqual([origin(provider)]);
    secrets.set('provider-key', fakeApiKey());
    // A key replaced without an origin keeps its provider.
    expect(secrets.boundOrigins('provider-key')).toEqual([origin(provider)]);
    secrets.delete('provider-key');
    expect(secrets.boundOrigins('provider-key')).toEqual([]);
  });
});
