import { baseUrlOf, type EmbeddingModelConfig } from '../../../../src-shared/llm/config.js';
import { ErrorCode, isSilasError, SilasError } from '../../../../src-shared/errors.js';
import { redactor } from '../../../llm/errors.js';
import { releaseApiKey, type SecretReader } from '../../../llm/providers.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep as realSleep, type RetryPolicy, type Sleep } from '../../../llm/retry.js';
import type { Embedder } from './embedder.js';
import { readLimited, vectorsOf, type AnswerExpectation } from './embeddings-answer.js';

/*
 * A server of OpenAI's `/v1/embeddings` as the Embedder of spec 002 §6.2: Ollama, LM Studio, vLLM,
 * llama.cpp's server, OpenAI and OpenRouter (docs/silas/memory-embedding.md "Remote models").
 * At most 64 texts per request (fewer for large vectors), one request at a time; a per-request timeout beside the caller's
 * signal; 429 and 5xx tried again after a pause (the server's Retry-After when it gives one). The
 * API key is read from the keyring at each call and released only to the origin it was stored for,
 * by the chat models' own mechanism (llm/providers.ts `releaseApiKey`); no message carries it.
 */

export const MAX_BATCH = 64;
/**
 * An answer is parsed in one JSON.parse on the event loop: about 20 ms for 64 vectors of 1536
 * (embedding.bench.ts). So an answer holds at most 32,768 numbers (a few ms): 64 texts at up to
 * 512 dimensions, 21 at 1536, 10 at 3072. Until the size is known, a first request of 8 learns it.
 */
const ANSWER_NUMBERS = 32_768;
const FIRST_BATCH = 8;
const DEFAULT_MAX_ANSWER_BYTES = 64 * 2 ** 20;
const DEFAULT_MAX_REQUEST_BYTES = 8 * 2 ** 20;
/** Of a server's error text, what a message quotes. */
const DETAIL_CHARS = 300;

export interface OpenAICompatibleEmbedderDeps {
  config: EmbeddingModelConfig;
  /** The keyring (NamedSecrets), or a test double of it. */
  secrets: SecretReader;
  fetch?: typeof fetch;
  sleep?: Sleep;
  random?: () => number;
  retry?: RetryPolicy;
  maxAnswerBytes?: number;
  maxRequestBytes?: number;
}

export class OpenAICompatibleEmbedder implements Embedder {
  readonly id: string;
  private learnt: number | null = null;
  private readonly url: string;
  private readonly what: string;

  constructor(private readonly deps: OpenAICompatibleEmbedderDeps) {
    const { config } = deps;
    const base = baseUrlOf(config);
    this.url = `${base}/embeddings`;
    this.what = `the embedding model "${config.model}" at ${base}`;
    // Another server, model or size is another space; the provider decides the defaults behind a name.
    this.id = `${config.provider}:${config.model}@${base}${config.dimensions === undefined ? '' : `#${config.dimensions}`}`;
  }

  async dimensions(): Promise<number> {
    const known = this.deps.config.dimensions ?? this.learnt;
    if (known !== null) return known;
    await this.embed(['dimensions']);
    return this.learnt!;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    if (texts.length === 0) return [];
    const key = releaseApiKey('models.embedding', this.deps.config, this.deps.secrets, (message) => new SilasError(ErrorCode.Unauthorized, message), 'run `silas models set embedding … --api-key-secret NAME` again and enter the key');
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; ) {
      const batch = this.nextBatch(texts, start);
      vectors.push(...(await this.post(batch, key, signal)));
      start += batch.length;
    }
    return vectors;
  }

  /** Up to 64 texts from `start`: fewer for large vectors, long texts, or a size not yet known. */
  private nextBatch(texts: readonly string[], start: number): string[] {
    const size = this.deps.config.dimensions ?? this.learnt;
    const most = size === null ? FIRST_BATCH : Math.max(1, Math.min(MAX_BATCH, Math.floor(ANSWER_NUMBERS / size)));
    const limit = this.deps.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    const batch: string[] = [];
    let bytes = 0;
    for (let i = start; i < texts.length && batch.length < most; i += 1) {
      const text = texts[i]!;
      const cost = Buffer.byteLength(JSON.stringify(text)) + 1;
      if (cost > limit) throw new SilasError(ErrorCode.InvalidArgs, `text ${i} is ${cost} bytes, over the ${limit} bytes one request to ${this.what} may carry; embed it in parts`);
      if (bytes + cost > limit) break;
      batch.push(text);
      bytes += cost;
    }
    return batch;
  }

  private async post(batch: string[], key: string | null, signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const { config } = this.deps;
    const policy = this.deps.retry ?? DEFAULT_RETRY_POLICY;
    const redact = redactor(key);
    const body = JSON.stringify({ model: config.model, input: batch, encoding_format: 'float', ...(config.dimensions === undefined ? {} : { dimensions: config.dimensions }) });
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (key !== null) headers.authorization = `Bearer ${key}`;
    const known = config.dimensions ?? this.learnt;
    const expectation: AnswerExpectation = {
      what: this.what,
      inputs: batch.length,
      dimensions: known === null ? null : { value: known, source: config.dimensions === undefined ? 'learnt' : 'configured' },
    };
    for (let attempt = 0; ; attempt += 1) {
      const timeout = AbortSignal.timeout(config.timeoutMs);
      const attemptSignal = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let response: Response;
      try {
        // A redirect could carry the key to another origin than the one it was released to.
        response = await (this.deps.fetch ?? fetch)(this.url, { method: 'POST', headers, body, signal: attemptSignal, redirect: 'error' });
        if (response.ok) {
          const vectors = vectorsOf(await readLimited(response, this.deps.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES, this.what), expectation);
          this.learnt ??= vectors[0]!.length;
          return vectors;
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (timeout.aborted) throw new SilasError(ErrorCode.Unavailable, `${this.what} did not answer within ${config.timeoutMs} ms; check that the server is running, or raise models.embedding.timeoutMs (\`silas models set embedding … --timeout-ms N\`)`);
        if (isSilasError(error)) throw error;
        const cause = causeOf(error);
        if (/redirect/i.test(cause)) {
          throw new SilasError(ErrorCode.Config, `${this.what} answered with a redirect, which is not followed (the API key must not go anywhere else); write the URL it redirects to as the base URL (\`silas models set embedding … --base-url URL\`)`);
        }
        if (attempt < config.maxRetries) {
          await (this.deps.sleep ?? realSleep)(retryDelayMs(attempt, policy, this.deps.random ?? Math.random), signal);
          continue;
        }
        throw new SilasError(ErrorCode.Unavailable, `could not reach ${this.what} (${redact(cause)}); check that the server is running and models.embedding.baseUrl is right`);
      }
      const status = response.status;
      const detail = redact(await errorDetail(response));
      if ((status === 429 || status >= 500) && attempt < config.maxRetries) {
        const retryAfter = retryAfterMs(response.headers.get('retry-after'));
        if (retryAfter !== undefined && retryAfter > policy.maxRetryAfterMs) {
          throw new SilasError(ErrorCode.RateLimited, `${this.what} asked to wait ${Math.ceil(retryAfter / 1000)} s before trying again (HTTP ${status}: ${detail}); memory is embedded when it answers again`);
        }
        await (this.deps.sleep ?? realSleep)(retryDelayMs(attempt, policy, this.deps.random ?? Math.random, retryAfter), signal);
        continue;
      }
      throw this.statusError(status, detail, attempt + 1);
    }
  }

  private statusError(status: number, detail: string, attempts: number): SilasError {
    const tries = attempts === 1 ? '' : ` after ${attempts} attempts`;
    const name = this.deps.config.apiKeySecret;
    if (status === 401 || status === 403) {
      return new SilasError(
        ErrorCode.Unauthorized,
        name === undefined
          ? `${this.what} wants an API key (HTTP ${status}: ${detail}); store it with \`silas secrets set NAME\` and run \`silas models set embedding … --api-key-secret NAME\``
          : `${this.what} rejected the API key in secret "${name}" (HTTP ${status}: ${detail}); run \`silas secrets set ${name}\` with a valid key`,
      );
    }
    if (status === 404) return new SilasError(ErrorCode.Config, `${this.what} answered 404 (${detail}): the base URL has no /embeddings, or the server does not have the model; check models.embedding (\`silas models show\`), and for Ollama run \`ollama pull ${this.deps.config.model}\``);
    if (status === 429) return new SilasError(ErrorCode.RateLimited, `${this.what} is limiting requests (HTTP 429${tries}: ${detail}); memory is embedded again later, or raise models.embedding.maxRetries`);
    if (status >= 500) return new SilasError(ErrorCode.Unavailable, `${this.what} failed (HTTP ${status}${tries}: ${detail}); check the server's log, or try again later`);
    return new SilasError(ErrorCode.BadRequest, `${this.what} refused the request (HTTP ${status}: ${detail}); a text may be longer than the model takes, or the model may not take "dimensions"`);
  }
}

/** The server's own words about an error: OpenAI's `error.message`, or the start of the body; never a control character. */
async function errorDetail(response: Response): Promise<string> {
  let text: string;
  try {
    text = await readLimited(response, 64 * 1024, 'the server');
  } catch {
    return 'no readable body';
  }
  let message = text;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof inner === 'string') message = inner;
  } catch {
    // Not JSON: the text itself.
  }
  const clean = message.replace(/\p{Cc}+/gu, ' ').trim();
  return clean === '' ? 'no message' : clean.length > DETAIL_CHARS ? `${clean.slice(0, DETAIL_CHARS)}…` : clean;
}

/** Retry-After in milliseconds: seconds, or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header.trim());
  if (header.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** What fetch's failure was: undici puts the reason (ECONNREFUSED, a redirect refused) in `cause`. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
