import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalWordVectorEmbedder } from '../local-embedder.js';

/*
 * A scripted server of OpenAI's `POST /v1/embeddings` for tests, on 127.0.0.1: the real wire
 * format, with vectors that mean something: the local word-vector embedding projected by a fixed
 * seeded random matrix to the size asked for (64 by default), so paraphrases still land close.
 * Behaviours are queued for the next requests (a wrong size, 429 then success, 500, malformed
 * JSON, a slow answer, no answer); every request is recorded, headers included.
 */

type EmbeddingsBehaviour =
  | { kind: 'ok' }
  /** Correct vectors, listed last input first (the index says which is which). */
  | { kind: 'reversed' }
  | { kind: 'wrong-dimension'; dimensions: number }
  | { kind: 'status'; status: number; message?: string; retryAfter?: string; headers?: Readonly<Record<string, string>> }
  /** A 200 whose body is this text. */
  | { kind: 'malformed'; body: string }
  | { kind: 'slow'; delayMs: number }
  /** Accept the request and never answer. */
  | { kind: 'hang' };

interface RecordedEmbeddingsRequest {
  path: string;
  /** Lower-cased names. */
  headers: Readonly<Record<string, string | undefined>>;
  json: { model?: unknown; input?: unknown; encoding_format?: unknown; dimensions?: unknown } | undefined;
  /** The client went away before the answer was complete (a timeout, a cancellation). */
  disconnected: boolean;
}

export interface ScriptedEmbeddingsServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL a client is configured with. */
  readonly baseUrl: string;
  readonly requests: RecordedEmbeddingsRequest[];
  /** How the next requests are answered, in order; after them, correctly. */
  script(...behaviours: EmbeddingsBehaviour[]): void;
  /** The vector this server gives `text` at `dimensions` (for comparing with what a client got). */
  vectorOf(text: string, dimensions?: number): Promise<Float32Array>;
  close(): Promise<void>;
}

export async function startScriptedEmbeddingsServer(options: { dimensions?: number; seed?: number } = {}): Promise<ScriptedEmbeddingsServer> {
  const local = await LocalWordVectorEmbedder.whenReady();
  const defaultDimensions = options.dimensions ?? 64;
  const projections = new Map<number, Float32Array>();
  const sourceDimensions = await local.dimensions();
  const project = async (texts: readonly string[], dimensions: number): Promise<Float32Array[]> => {
    let matrix = projections.get(dimensions);
    if (matrix === undefined) {
      matrix = gaussianMatrix(dimensions * sourceDimensions, options.seed ?? 7);
      projections.set(dimensions, matrix);
    }
    return (await local.embed(texts)).map((vector) => projectVector(vector, matrix, dimensions));
  };

  const queue: EmbeddingsBehaviour[] = [];
  const requests: RecordedEmbeddingsRequest[] = [];
  const server = createServer((req, res) => void handle(req, res));
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedEmbeddingsRequest = { path: req.url ?? '', headers: { ...req.headers } as Record<string, string | undefined>, json: parseJson(Buffer.concat(chunks).toString('utf8')), disconnected: false };
    requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.disconnected = true;
    });
    const behaviour = queue.shift() ?? { kind: 'ok' };
    if (behaviour.kind === 'hang') return;
    if (behaviour.kind === 'status') {
      const headers = { ...behaviour.headers, ...(behaviour.retryAfter === undefined ? {} : { 'retry-after': behaviour.retryAfter }) };
      send(res, behaviour.status, { error: { message: behaviour.message ?? `scripted HTTP ${behaviour.status}`, type: 'server_error' } }, headers);
      return;
    }
    if (behaviour.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(behaviour.body);
      return;
    }
    const input = recorded.json?.input;
    const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : [];
    const asked = typeof recorded.json?.dimensions === 'number' ? recorded.json.dimensions : defaultDimensions;
    const vectors = await project(texts, behaviour.kind === 'wrong-dimension' ? behaviour.dimensions : asked);
    if (behaviour.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    const data = vectors.map((vector, index) => ({ object: 'embedding', index, embedding: Array.from(vector) }));
    if (behaviour.kind === 'reversed') data.reverse();
    const tokens = texts.reduce((sum, text) => sum + text.split(/\s+/).length, 0);
    send(res, 200, { object: 'list', data, model: recorded.json?.model ?? 'scripted', usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...behaviours) => void queue.push(...behaviours),
    vectorOf: async (text, dimensions = defaultDimensions) => (await project([text], dimensions))[0]!,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The local embedder's vector times the projection, at unit length (zero stays zero). */
function projectVector(vector: Float32Array, matrix: Float32Array, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  for (let row = 0; row < dimensions; row += 1) {
    let sum = 0;
    for (let col = 0; col < vector.length; col += 1) sum += matrix[row * vector.length + col]! * vector[col]!;
    out[row] = sum;
  }
  const norm = Math.hypot(...out);
  return norm === 0 ? out : out.map((value) => value / norm);
}

/** Standard normal values from a seeded mulberry32 (Box–Muller): the same matrix in every run. */
function gaussianMatrix(length: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Float32Array(length);
  for (let i = 0; i < length; i += 1) out[i] = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  return out;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function parseJson(text: string): RecordedEmbeddingsRequest['json'] {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as RecordedEmbeddingsRequest['json']) : undefined;
  } catch {
    return undefined;
  }
}
