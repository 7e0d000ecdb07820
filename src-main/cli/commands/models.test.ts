import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScratchKeyring } from '../../keys/testing/keyring.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { encodingsOf, fakeApiKey } from '../../llm/testing/llm.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

// `silas models` on a bare data home, with secrets in the real OS keyring (scripts/with-keyring.sh)
// under a scratch service, and the scripted OpenAI-compatible server as the model.
const tempDir = useTempDirs('silas-models-cli-');

let keyring: ScratchKeyring;
let home: string;
let printed: string[];

beforeEach(async () => {
  keyring = new ScratchKeyring();
  home = join(tempDir(), 'home');
  mkdirSync(home, { mode: 0o700 });
  printed = [];
  // models.json is sealed with the home's owner key, so the home is initialised first.
  expect((await runSilas(['init', '--home', home], { secretStore: keyring })).code).toBe(0);
});
afterEach(() => keyring.cleanup());

async function models(...argv: string[]) {
  const result = await runSilas(['models', ...argv, '--home', home], { secretStore: keyring });
  printed.push(result.out, result.err);
  return result;
}

const modelsFile = () => join(home, 'models.json');
const stored = () => JSON.parse(readFileSync(modelsFile(), 'utf8')) as Record<string, unknown>;

describe('silas models set and show', () => {
  it('round-trips a role: the file holds what was set (no key, no defaults) and show prints it', async () => {
    const set = await models('set', 'executor', '--provider', 'openai-compatible', '--model', 'llama3.1:8b', '--base-url', 'http://127.0.0.1:11434/v1/', '--api-key-secret', 'local-key', '--temperature', '0.2', '--max-tokens', '2048', '--price-in', '3', '--price-out', '15');
    expect(set).toMatchObject({ code: 0, out: expect.stringContaining(`set the executor model in ${modelsFile()}`) });
    expect(stored()).toEqual({
      executor: { provider: 'openai-compatible', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1/', apiKeySecret: 'local-key', temperature: 0.2, maxTokens: 2048, price: { inputPerMillion: 3, outputPerMillion: 15 } },
    });
    expect(statSync(modelsFile()).mode & 0o777).toBe(0o600);
    expect(await models('set', 'planner', '--provider', 'anthropic', '--model', 'claude-sonnet-4-5', '--api-key-secret', 'anthropic-key', '--timeout-ms', '60000', '--max-retries', '0')).toMatchObject({ code: 0 });
    expect(Object.keys(stored())).toEqual(['executor', 'planner']);

    const shown = await models('show');
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('executor:\n  provider     openai-compatible\n  model        llama3.1:8b\n  base URL     http://127.0.0.1:11434/v1\n');
    expect(shown.out).toContain('  price        $3 in / $15 out per million tokens');
    expect(shown.out).toContain('  timeout      120000 ms, 2 retries after a 429 or 5xx');
    expect(shown.out).toContain('planner:\n  provider     anthropic\n  model        claude-sonnet-4-5\n  base URL     https://api.anthropic.com/v1');
    expect(shown.out).toContain('proxy: not configured (silas models set proxy --provider … --model …)');
    expect(shown.out).toContain('secret "anthropic-key", NOT in the OS keyring: run `silas secrets set anthropic-key`');

    const json = JSON.parse((await models('show', '--json')).out);
    expect(json.roles.executor).toMatchObject({ model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1', apiKeySecret: 'local-key', apiKeySecretState: 'missing' });
    expect(Object.keys(json.roles)).toEqual(['planner', 'executor']);

    // Setting a role again replaces it whole.
    expect(await models('set', 'executor', '--provider', 'openrouter', '--model', 'anthropic/claude-sonnet-4.5', '--api-key-secret', 'openrouter-key')).toMatchObject({ code: 0 });
    expect(stored().executor).toEqual({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', apiKeySecret: 'openrouter-key' });
  });

  it('shows whether the secret is in the keyring, never its value', async () => {
    const key = fakeApiKey();
    new NamedSecrets(keyring).set('local-key', key);
    await models('set', 'executor', '--provider', 'openai-compatible', '--model', 'm', '--base-url', 'http://127.0.0.1:1/v1', '--api-key-secret', 'local-key');
    const shown = await models('show');
    expect(shown.out).toContain('  API key      secret "local-key", stored in the OS keyring');
    expect(JSON.parse((await models('show', '--json')).out).roles.executor.apiKeySecretState).toBe('stored');
    for (const text of printed) for (const form of encodingsOf(key)) expect(text).not.toContain(form);
    expect(readFileSync(modelsFile(), 'utf8')).not.toContain(key);
  });

  it('refuses invalid settings naming the field and its flag, and writes nothing', async () => {
    const base = ['set', 'executor', '--provider', 'openai-compatible', '--model', 'm'];
    const noUrl = await models(...base);
    expect(noUrl.code).toBe(1);
    expect(noUrl.err).toContain('models.executor.baseUrl (--base-url): required for provider "openai-compatible"');
    const hot = await models(...base, '--base-url', 'http://127.0.0.1:1/v1', '--temperature', '5', '--max-tokens', 'lots');
    expect(hot.err).toContain('models.executor.temperature (--temperature): temperature must be from 0 to 2');
    expect(hot.err).toContain('models.executor.maxTokens (--max-tokens): expected the most tokens the model may write in one answer as a whole number');
    const badUrl = await models(...base, '--base-url', 'localhost:11434');
    expect(badUrl.err).toContain('models.executor.baseUrl (--base-url): "localhost:11434" is not an http:// or https:// URL');
    const provider = await models('set', 'executor', '--provider', 'openai', '--model', 'm');
    expect(provider.err).toContain('models.executor.provider (--provider): expected one of "openai-compatible", "openrouter", "anthropic"');
    const hosted = await models('set', 'planner', '--provider', 'anthropic', '--model', 'claude');
    expect(hosted.err).toContain('models.planner.apiKeySecret (--api-key-secret): required for provider "anthropic"');
    expect(statSync(modelsFile(), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('refuses a key where a secret name belongs, without echoing it', async () => {
    const key = fakeApiKey('sk-proj');
    const result = await models('set', 'executor', '--provider', 'openrouter', '--model', 'x', '--api-key-secret', key);
    expect(result.code).toBe(1);
    expect(result.err).toContain('models.executor.apiKeySecret (--api-key-secret): this looks like an API key');
    expect(result.err).not.toContain(key);
    expect(statSync(modelsFile(), { throwIfNoEntry: false })).toBeUndefined();
  });

  it('reports a hand-edited file holding a key by its field, without quoting the key', async () => {
    const key = fakeApiKey();
    writeFileSync(modelsFile(), JSON.stringify({ executor: { provider: 'openrouter', model: 'x', apiKey: key } }));
    const shown = await models('show');
    expect(shown.code).toBe(1);
    expect(shown.err).toContain('models.executor.apiKey: API keys are never written in configuration');
    writeFileSync(modelsFile(), `{"executor": ${key}}`);
    const broken = await models('show');
    expect(broken).toMatchObject({ code: 1, err: expect.stringContaining('is not valid JSON') });
    for (const text of printed) expect(text).not.toContain(key);
    // set replaces the broken role only when the file is JSON; here it says how to recover.
    expect((await models('set', 'executor', '--provider', 'openrouter', '--model', 'x', '--api-key-secret', 'or-key')).err).toContain('remove it and set each role again');
  });

  it('refuses bad usage with exit 2', async () => {
    expect(await models('set', 'boss', '--provider', 'anthropic', '--model', 'x')).toMatchObject({ code: 2, err: expect.stringContaining('unknown role; expected one of proxy, planner, executor, scorer') });
    expect(await models('set', 'executor', '--model', 'x')).toMatchObject({ code: 2, err: expect.stringContaining('--provider and --model are required') });
    expect(await models('set', 'executor', '--provider', 'openrouter', '--model', 'x', '--price-in', '1')).toMatchObject({ code: 2, err: expect.stringContaining('--price-in and --price-out together') });
    expect(await models('set', 'executor', '--provider', 'openrouter', '--model', 'x', '--api-key', 'v')).toMatchObject({ code: 2 });
    expect(await models('test')).toMatchObject({ code: 2, err: expect.stringContaining('name the role') });
  });
});

describe('silas models set embedding', () => {
  it('round-trips the embedding model: the file holds what was set, show prints it, and the roles are kept', async () => {
    expect(await models('set', 'executor', '--provider', 'openrouter', '--model', 'x/y', '--api-key-secret', 'openrouter-key')).toMatchObject({ code: 0 });
    const shown0 = await models('show');
    expect(shown0.out).toContain('embedding: local word vectors (built in; a server with `silas models set embedding --provider … --model …`)');

    const set = await models('set', 'embedding', '--provider', 'openai-compatible', '--model', 'nomic-embed-text', '--base-url', 'http://127.0.0.1:11434/v1', '--dimensions', '256', '--timeout-ms', '10000');
    expect(set).toMatchObject({ code: 0, out: expect.stringContaining(`set the embedding model in ${modelsFile()}`) });
    expect(stored()).toEqual({
      executor: { provider: 'openrouter', model: 'x/y', apiKeySecret: 'openrouter-key' },
      embedding: { provider: 'openai-compatible', model: 'nomic-embed-text', baseUrl: 'http://127.0.0.1:11434/v1', dimensions: 256, timeoutMs: 10000 },
    });
    const shown = await models('show');
    expect(shown.out).toContain('embedding:\n  provider     openai-compatible\n  model        nomic-embed-text\n  base URL     http://127.0.0.1:11434/v1\n  API key      none (a keyless local server)\n  dimensions   256\n');
    expect(shown.out).toContain('  timeout      10000 ms per request of up to 64 texts, 2 retries after a 429 or 5xx');
    expect(shown.out).toContain('executor:\n  provider     openrouter');
    const json = JSON.parse((await models('show', '--json')).out);
    expect(json.embedding).toMatchObject({ provider: 'openai-compatible', model: 'nomic-embed-text', dimensions: 256, apiKeySecretState: null });
    expect(Object.keys(json.roles)).toEqual(['executor']);

    // Set again, it is replaced whole; a key is asked for its origin like a role's.
    const withKey = await models('set', 'embedding', '--provider', 'openrouter', '--model', 'openai/text-embedding-3-small', '--api-key-secret', 'openrouter-key');
    expect(withKey.code).toBe(0);
    expect(withKey.err).toContain('the key in secret "openrouter-key" is not sent to https://openrouter.ai:443 until you enter it for that origin');
    expect(stored().embedding).toEqual({ provider: 'openrouter', model: 'openai/text-embedding-3-small', apiKeySecret: 'openrouter-key' });
    expect((await models('show')).out).toContain('  dimensions   the model\'s own (learnt from its first answer)');
  });

  it('refuses what an embedding model does not take, naming the field and its flag', async () => {
    const bad = await models('set', 'embedding', '--provider', 'anthropic', '--model', 'claude', '--dimensions', 'many');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('models.embedding.provider (--provider): expected one of "openai-compatible", "openrouter"');
    expect(bad.err).toContain('models.embedding.dimensions (--dimensions): expected the number of dimensions as a whole number');
    expect(await models('set', 'embedding', '--provider', 'openai-compatible', '--model', 'm', '--base-url', 'http://h/v1', '--temperature', '0.2')).toMatchObject({ code: 2, err: expect.stringContaining('--temperature is for the chat roles, not the embedding model') });
    expect(await models('set', 'executor', '--provider', 'openrouter', '--model', 'x', '--api-key-secret', 'k', '--dimensions', '64')).toMatchObject({ code: 2, err: expect.stringContaining('--dimensions is for the embedding model only') });
    expect(await models('set', 'boss', '--provider', 'openrouter', '--model', 'x')).toMatchObject({ code: 2, err: expect.stringContaining('unknown role; expected one of proxy, planner, executor, scorer, or embedding') });
    expect(statSync(modelsFile(), { throwIfNoEntry: false })).toBeUndefined();
  });
});

describe('silas models test', () => {
  let server: ScriptedOpenAIServer;
  let key: string;
  beforeEach(async () => {
    server = await startScriptedOpenAIServer();
    key = fakeApiKey();
    new NamedSecrets(keyring).set('local-key', key, { origins: [server.baseUrl] });
  });
  afterEach(() => server.http.close());

  const configure = () => models('set', 'executor', '--provider', 'openai-compatible', '--model', 'llama3.1:8b', '--base-url', server.baseUrl, '--api-key-secret', 'local-key', '--price-in', '1', '--price-out', '2');

  it('makes one real call and prints ok with the latency, tokens and cost', async () => {
    await configure();
    server.http.enqueue(openaiReply.stream({ text: ['OK'], usage: { prompt_tokens: 21, completion_tokens: 2 } }));
    const result = await models('test', 'executor');
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^ok: executor: openai-compatible model "llama3\.1:8b" at http:\/\/127\.0\.0\.1:\d+\/v1 answered in \d+ ms; 21 input \+ 2 output tokens, \$0\.000025$/);
    expect(server.http.requests).toHaveLength(1);
    expect(server.http.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('a rejected key: the actionable message, exit 1, one request, and the key nowhere in the output', async () => {
    await configure();
    // Providers echo a rejected key in their error, partly or whole.
    server.http.enqueue(openaiReply.error(401, `Incorrect API key provided: ${key}`), openaiReply.error(401, 'again'));
    const result = await models('test', 'executor');
    expect(result.code).toBe(1);
    expect(result.err).toContain('silas models test: executor: openai-compatible model "llama3.1:8b"');
    expect(result.err).toContain('(auth)');
    expect(result.err).toContain('rejected the API key in secret "local-key"');
    expect(result.err).toContain('run `silas secrets set local-key` with a valid key');
    expect(server.http.requests).toHaveLength(1);
    for (const text of printed) for (const form of encodingsOf(key)) expect(text).not.toContain(form);
  });

  it('says which command fixes a missing key or an unconfigured role, before any request', async () => {
    expect(await models('test', 'executor')).toMatchObject({ code: 1, err: expect.stringContaining('no model configured for the executor role: run `silas models set executor --provider … --model …`') });
    await models('set', 'executor', '--provider', 'openai-compatible', '--model', 'm', '--base-url', server.baseUrl, '--api-key-secret', 'absent-key');
    const missing = await models('test', 'executor');
    expect(missing).toMatchObject({ code: 1, err: expect.stringContaining('secret "absent-key", which is not in the OS keyring') });
    expect(missing.err).toContain('run `silas secrets set absent-key`');
    expect(server.http.requests).toHaveLength(0);
  });
});
