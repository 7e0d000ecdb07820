import { ErrorCode, SilasError } from '../../../../src-shared/errors.js';
import { normaliseInPlace } from './embedder.js';

/*
 * Reading and checking an answer of OpenAI's `/v1/embeddings` (docs/silas/memory-embedding.md
 * "Remote models"): `{data: [{index, embedding: number[]}, …]}`. Nothing a server sends is taken on
 * trust: the body is read up to a limit, and the answer must hold exactly one finite vector per
 * input, each index once, every vector of the one expected size. A vector that would be stored
 * beside another text's, or compared across two sizes, is worse than none.
 */

/** What an answer is checked against, and the words for a message. */
export interface AnswerExpectation {
  /** `the embedding model "m" at http://…/v1` */
  what: string;
  inputs: number;
  /** The size every vector must have, when known (configured, or learnt from an earlier answer). */
  dimensions: { value: number; source: 'configured' | 'learnt' } | null;
}

/** The body as text, refused past `limit` bytes whether or not the server said its length. */
export async function readLimited(response: Response, limit: number, what: string): Promise<string> {
  const tooLarge = (size: string) =>
    new SilasError(ErrorCode.Unavailable, `${what} answered ${size}, over the ${limit >= 2 ** 20 ? `${Math.round(limit / 2 ** 20)} MB` : `${limit} bytes`} an answer may take; check that the base URL is an embeddings API`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(`${declared} bytes`);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(`more than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
}

/** The vectors of a 200 answer, in input order and at unit length, or a SilasError saying what was wrong. */
export function vectorsOf(text: string, expect: AnswerExpectation): Float32Array[] {
  const malformed = (why: string) => new SilasError(ErrorCode.Unavailable, `${expect.what} answered something that is not an embeddings answer (${why}); check that the base URL is an OpenAI-compatible API and the model an embedding model`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw malformed('not JSON');
  }
  const data = typeof answer === 'object' && answer !== null ? (answer as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw malformed('no "data" list');
  if (data.length !== expect.inputs) throw malformed(`${data.length} vectors for ${expect.inputs} texts`);

  const placed: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(expect.inputs);
  const indexed = data.some((item) => typeof item === 'object' && item !== null && 'index' in item);
  let size = expect.dimensions?.value ?? null;
  data.forEach((item: unknown, position) => {
    if (typeof item !== 'object' || item === null) throw malformed(`data[${position}] is not an object`);
    const { index, embedding } = item as { index?: unknown; embedding?: unknown };
    // Servers that send no index at all answer in input order; one that numbers some must number all.
    const at = indexed ? index : position;
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= expect.inputs) throw malformed(`data[${position}].index is ${JSON.stringify(index) ?? 'missing'}, not a whole number below ${expect.inputs}`);
    if (placed[at] !== undefined) throw malformed(`index ${at} appears twice`);
    if (!Array.isArray(embedding)) throw malformed(`data[${position}].embedding is not a list of numbers (an encoding other than "float"?)`);
    if (size === null) size = embedding.length;
    if (embedding.length !== size) throw wrongSize(expect, embedding.length, size);
    const vector = new Float32Array(size);
    for (let d = 0; d < size; d += 1) {
      const value: unknown = embedding[d];
      if (typeof value !== 'number' || !Number.isFinite(value)) throw malformed(`data[${position}].embedding[${d}] is not a finite number`);
      vector[d] = value;
    }
    placed[at] = normaliseInPlace(vector);
  });
  if (size === 0) throw malformed('the vectors are empty');
  return placed as Float32Array[];
}

function wrongSize(expect: AnswerExpectation, got: number, expected: number): SilasError {
  const base = `${expect.what} answered ${got} dimensions where ${expected} were expected`;
  if (expect.dimensions?.source === 'configured') {
    return new SilasError(
      ErrorCode.Config,
      `${base} (models.embedding.dimensions); the model may not be able to shorten its vectors: set --dimensions ${got} or leave it out (\`silas models set embedding … \`), or choose a model that answers ${expected}`,
    );
  }
  if (expect.dimensions?.source === 'learnt') {
    return new SilasError(ErrorCode.Config, `${base} from its earlier answers: the server now runs another model under that name; set models.embedding to the model you mean (\`silas models set embedding …\`), and memory is embedded again`);
  }
  return new SilasError(ErrorCode.Unavailable, `${base} (its vectors in one answer differ in size); the server is not answering as an embedding model should`);
}
