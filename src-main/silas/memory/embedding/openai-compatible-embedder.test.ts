import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddingModelConfig, type EmbeddingModelConfigInput } from '../../../../src-shared/llm/config.js';
import { NamedSecrets } from '../../../keys/named-secrets.js';
import { MemorySecretStore } from '../../../keys/secret-store.js';
import { encodingsOf, everyRendering, failureOf, fakeApiKey, recordingSleep } from '../../../llm/testing/llm.js';
import { MAX_BATCH, OpenAICompatibleEmbedder, type OpenAICompatibleEmbedderDeps } from './openai-compatible-embedder.js';
import { startScriptedEmbeddingsServer, type ScriptedEmbeddingsServer } from './testing/scripted-embeddings-server.js';
import { cosine, lengthOf, PARAPHRASE } from './testing/vectors.js';

// Against the scripted server on 127.0.0.1, in OpenAI's wire format, with the key in an in-memory
// keyring bound to the server's origin as `silas models set embedding` binds it.
let server: ScriptedEmbeddingsServer;
let secrets: NamedSecrets;
let key: string;
let pauses: number[];

beforeEach(async () => {
  server = await startScriptedEmbeddingsServer();
  secrets = new NamedSecrets(new MemorySecretStore());
  key = fakeApiKey();
  secrets.set('embed-key', key, { origins: [server.baseUrl] });
}, 120_000);
afterEach(() => server.close());

function embedderWith(config: Partial<EmbeddingModelConfigInput> = {}, deps: Partial<OpenAICompatibleEmbedderDeps> = {}): OpenAICompatibleEmbedder {
  const recorded = recordingSleep();
  pauses = recorded.pauses;
  const parsed = EmbeddingModelConfig.parse({ provider: 'openai-compatible', model: 'nomic-embed-text', baseUrl: server.baseUrl, apiKeySecret: 'embed-key', ...config });
  return new OpenAICompatibleEmbedder({ config: parsed, secrets, sleep: recorded.sleep, random: () => 0.5, ...deps });
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `memory number ${i} about the garden and the weather`);

describe('an OpenAI-compatible embeddings server', () => {
  it('sends at most 64 texts a request, in order, with the key, and answers unit vectors in input order', async () => {
    const embedder = embedderWith({ dimensions: 64 });
    const inputs = texts(150);
    const vectors = await embedder.embed(inputs);
    expect(server.requests.map((r) => (r.json?.input as string[]).length)).toEqual([MAX_BATCH, MAX_BATCH, 22]);
    expect(server.requests.flatMap((r) => r.json?.input as string[])).toEqual(inputs);
    for (const request of server.requests) {
      expect(request.path).toBe('/v1/embeddings');
      expect(request.headers.authorization).toBe(`Bearer ${key}`);
      expect(request.json).toMatchObject({ model: 'nomic-embed-text', encoding_format: 'float', dimensions: 64 });
    }
    expect(vectors).toHaveLength(150);
    expect(lengthOf(vectors[149]!)).toBeCloseTo(1, 5);
    expect(Array.from(vectors[149]!)).toEqual(Array.from(await server.vectorOf(inputs[149]!)));
    expect(await embedder.dimensions()).toBe(64);
    expect(server.requests).toHaveLength(3);
  });

  it('learns the size from a first small request, then sends fewer texts for larger vectors', async () => {
    const small = await startScriptedEmbeddingsServer({ dimensions: 1536 });
    try {
      secrets.set('embed-key', key, { origins: [server.baseUrl, small.baseUrl] });
      const vectors = await embedderWith({ baseUrl: small.baseUrl }).embed(texts(40));
      expect(vectors.map((v) => v.length)).toEqual(Array.from({ length: 40 }, () => 1536));
      // 8 to learn the size, then 32,768 numbers an answer: 21 texts of 1536.
      expect(small.requests.map((r) => (r.json?.input as string[]).length)).toEqual([8, 21, 11]);
      expect(small.requests[0]!.json).not.toHaveProperty('dimensions');
    } finally {
      await small.close();
    }
  });

  it('keeps paraphrases close through the server', async () => {
    const [a, b, unrelated] = await embedderWith().embed([PARAPHRASE.a, PARAPHRASE.b, PARAPHRASE.unrelated]);
    expect(cosine(a!, b!)).toBeGreaterThan(cosine(a!, unrelated!));
  });

  it('learns its size from the first answer, or asks for the configured one', async () => {
    const learning = embedderWith();
    expect(await learning.dimensions()).toBe(64);
    expect(server.requests).toHaveLength(1);
    const sized = embedderWith({ dimensions: 32 });
    expect(await sized.dimensions()).toBe(32);
    expect(server.requests).toHaveLength(1);
    const [vector] = await sized.embed(['hello']);
    expect(vector!.length).toBe(32);
    expect(server.requests[1]!.json).toMatchObject({ dimensions: 32 });
    expect(sized.id).toBe(`openai-compatible:nomic-embed-text@${server.baseUrl}#32`);
    expect(learning.id).toBe(`openai-compatible:nomic-embed-text@${server.baseUrl}`);
  });

  it('sends no Authorization header to a keyless server', async () => {
    await embedderWith({ apiKeySecret: undefined }).embed(['hello']);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('sends nothing when the key is not for this origin, saying how to let it go there', async () => {
    secrets.set('other-key', key, { origins: ['https://api.openai.com/v1'] });
    const error = await failureOf(embedderWith({ apiKeySecret: 'other-key' }).embed(['hello']));
    expect(error).toMatchObject({ code: 'E_UNAUTHORIZED', message: expect.stringContaining(`was not sent to ${new URL(server.baseUrl).origin} (models.embedding): it may be sent only to https://api.openai.com:443`) });
    expect((error as Error).message).toContain('run `silas models set embedding … --api-key-secret NAME` again');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses vectors of the wrong size, naming what was expected', async () => {
    server.script({ kind: 'wrong-dimension', dimensions: 48 });
    const configured = await failureOf(embedderWith({ dimensions: 64 }).embed(['hello']));
    expect(configured).toMatchObject({ code: 'E_CFG_INVALID', message: expect.stringContaining(`the embedding model "nomic-embed-text" at ${server.baseUrl} answered 48 dimensions where 64 were expected (models.embedding.dimensions)`) });
    const learning = embedderWith();
    await learning.embed(['first']);
    server.script({ kind: 'wrong-dimension', dimensions: 48 });
    expect(await failureOf(learning.embed(['second']))).toMatchObject({ message: expect.stringContaining('answered 48 dimensions where 64 were expected from its earlier answers') });
  });

  it('tries a 429 again after the Retry-After the server asked for, then answers', async () => {
    server.script({ kind: 'status', status: 429, retryAfter: '2' });
    const vectors = await embedderWith().embed(['hello', 'world']);
    expect(vectors).toHaveLength(2);
    expect(server.requests).toHaveLength(2);
    expect(pauses).toEqual([2000]);
  });

  it('gives up on a 500 after its retries, with the server\'s words and no key', async () => {
    server.script(...Array.from({ length: 3 }, () => ({ kind: 'status' as const, status: 500, message: `internal error while handling ${key}` })));
    const error = await failureOf(embedderWith({ maxRetries: 2 }).embed(['hello']));
    expect(error).toMatchObject({ code: 'E_UNAVAILABLE', message: expect.stringContaining(`the embedding model "nomic-embed-text" at ${server.baseUrl} failed (HTTP 500 after 3 attempts: internal error while handling [redacted]); check the server's log`) });
    expect(server.requests).toHaveLength(3);
    expect(pauses).toHaveLength(2);
    for (const form of encodingsOf(key)) expect(everyRendering(error)).not.toContain(form);
  });

  it('gives up at once when the server asks to wait longer than a minute', async () => {
    server.script({ kind: 'status', status: 503, retryAfter: '3600' });
    expect(await failureOf(embedderWith().embed(['hello']))).toMatchObject({ code: 'E_RATE_LIMITED', message: expect.stringContaining('asked to wait 3600 s before trying again') });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a malformed answer: not JSON, too few vectors, not numbers', async () => {
    const malformed = [
      ['{"data": [', 'not JSON'],
      ['{"object":"list"}', 'no "data" list'],
      ['{"data":[{"index":0,"embedding":[0.1,0.2]}]}', '1 vectors for 2 texts'],
      ['{"data":[{"index":0,"embedding":[0.1,"x"]},{"index":1,"embedding":[0.1,0.2]}]}', 'data[0].embedding[1] is not a finite number'],
      ['{"data":[{"index":0,"embedding":[0.1,0.2]},{"index":0,"embedding":[0.1,0.2]}]}', 'index 0 appears twice'],
      ['{"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":"AAAA"}]}', 'data[0].embedding is not a list of numbers'],
      ['{"data":[{"index":0,"embedding":[0.1,0.2]},{"index":1,"embedding":[0.1]}]}', 'answered 1 dimensions where 2 were expected'],
    ] as const;
    const embedder = embedderWith({ maxRetries: 0 });
    for (const [body, why] of malformed) {
      server.script({ kind: 'malformed', body });
      expect(await failureOf(embedder.embed(['one', 'two']))).toMatchObject({ message: expect.stringContaining(why) });
    }
  });

  it('places vectors by their index, whatever order they come in', async () => {
    server.script({ kind: 'reversed' });
    const inputs = ['the garden', 'the invoice', 'the flight'];
    const vectors = await embedderWith().embed(inputs);
    for (const [i, text] of inputs.entries()) expect(Array.from(vectors[i]!)).toEqual(Array.from(await server.vectorOf(text)));
  });

  it('refuses an answer over the size limit', async () => {
    const error = await failureOf(embedderWith({}, { maxAnswerBytes: 1000 }).embed(texts(5)));
    expect(error).toMatchObject({ code: 'E_UNAVAILABLE', message: expect.stringContaining('over the 1000 bytes an answer may take') });
  });

  it('stops when the caller aborts, and the server sees the request go away', async () => {
    server.script({ kind: 'hang' });
    const controller = new AbortController();
    const pending = embedderWith().embed(['hello'], controller.signal);
    await waitFor(() => server.requests.length === 1);
    controller.abort(new Error('the turn ended'));
    await expect(pending).rejects.toThrow('the turn ended');
    await waitFor(() => server.requests[0]!.disconnected);
    await expect(embedderWith().embed(['hello'], AbortSignal.abort())).rejects.toThrow();
  });

  it('times out a request that gets no answer, and does not try it again', async () => {
    server.script({ kind: 'hang' });
    const error = await failureOf(embedderWith({ timeoutMs: 200 }).embed(['hello']));
    expect(error).toMatchObject({ code: 'E_UNAVAILABLE', message: expect.stringContaining('did not answer within 200 ms') });
    expect(server.requests).toHaveLength(1);
  });

  it('follows no redirect: the key stays with the origin it was released to', async () => {
    const elsewhere = await startScriptedEmbeddingsServer();
    try {
      server.script({ kind: 'status', status: 307, headers: { location: `${elsewhere.baseUrl}/embeddings` } });
      expect(await failureOf(embedderWith().embed(['hello']))).toMatchObject({ code: 'E_CFG_INVALID', message: expect.stringContaining('answered with a redirect, which is not followed') });
      expect(server.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('says the server is not there when nothing listens, after its retries', async () => {
    await server.close();
    const error = await failureOf(embedderWith({ maxRetries: 1 }).embed(['x']));
    expect(error).toMatchObject({ code: 'E_UNAVAILABLE', message: expect.stringContaining(`could not reach the embedding model "nomic-embed-text" at ${server.baseUrl} (ECONNREFUSED)`) });
    expect(pauses).toHaveLength(1);
  });

  it('says what a 401 and a 404 mean', async () => {
    server.script({ kind: 'status', status: 401, message: 'bad key' });
    expect(await failureOf(embedderWith().embed(['x']))).toMatchObject({ code: 'E_UNAUTHORIZED', message: expect.stringContaining('rejected the API key in secret "embed-key" (HTTP 401: bad key); run `silas secrets set embed-key`') });
    server.script({ kind: 'status', status: 404, message: 'model "nomic-embed-text" not found' });
    expect(await failureOf(embedderWith().embed(['x']))).toMatchObject({ code: 'E_CFG_INVALID', message: expect.stringContaining('`ollama pull nomic-embed-text`') });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
