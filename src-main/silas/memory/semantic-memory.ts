import type { MemoryVectorIndex, VectorHit } from '../../store/repositories/memory-vectors.js';
import type { Embedder } from './embedding/embedder.js';
import { cellsWaiting, maintainCells } from './vector-cells.js';

/*
 * Recall by meaning for the Stream (spec 002 §6.2, §6.3; docs/silas/chronicle-and-memory.md
 * "Semantic recall"): the embedder, the vector index, and the background re-embedding that keeps
 * them in step. Nothing here runs long on the event loop: embedding is the embedder's (a worker or
 * a remote server, in batches), and each batch of vectors is one short transaction. Until the
 * embedder is ready, or while it fails, search answers nothing and recall is keyword only: a
 * status says so, it never blocks a turn. Between batches the loop also learns a large scope's
 * cells and files its vectors under them (vector-cells.ts), in slices of a few milliseconds.
 */

type SemanticState = 'starting' | 'ready' | 'reembedding' | 'unavailable';

export interface SemanticStatus {
  state: SemanticState;
  embedder: string | null;
  dimensions: number | null;
  /** Active memories still without a vector in the current space (at most PENDING_COUNT_CAP is counted: "at least" there). */
  pending: number;
  /** Why recall by meaning is off or behind (the embedder failed, the extension is missing). */
  problem: string | null;
}

export interface SemanticMemoryDeps {
  /** Null when the platform has no sqlite-vec; the reason is then in `unavailable`. */
  index: MemoryVectorIndex | null;
  unavailable?: string;
  /** Resolves with a ready embedder (loading a table, or the configured remote model). */
  embedder: () => Promise<Embedder>;
  audit: { append(type: string, data: Record<string, unknown>): unknown };
  /** Memories embedded per batch. */
  batchSize?: number;
  /** How long the re-embedding waits after a failed batch, and between looks for new work. */
  retryMs?: number;
  idleMs?: number;
  /** When a scope is grouped into cells and into how many (tests use small ones). */
  cells?: { trainAt: number; cells: number };
}

export class SemanticMemory {
  private embedderReady: Embedder | null = null;
  private status_: SemanticStatus;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private started: Promise<void> | null = null;
  private readonly abort = new AbortController();

  constructor(private readonly deps: SemanticMemoryDeps) {
    this.status_ = deps.index
      ? { state: 'starting', embedder: null, dimensions: null, pending: 0, problem: null }
      : { state: 'unavailable', embedder: null, dimensions: null, pending: 0, problem: deps.unavailable ?? 'the vector index is not available' };
  }

  /** Starts the embedder and the re-embedding in the background; resolves when both have begun (tests wait on it). */
  start(): Promise<void> {
    if (!this.deps.index) return Promise.resolve();
    if (this.started) return this.started;
    let begun!: () => void;
    this.started = new Promise<void>((resolve) => (begun = resolve));
    this.loop = this.run(begun);
    return this.started;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  status(): SemanticStatus {
    return { ...this.status_ };
  }

  /** New or changed memories are waiting: the re-embedding looks now rather than at its next idle tick. */
  notify(): void {
    this.wake?.();
  }

  /**
   * The scope's active memories nearest in meaning to `text`. Empty while the embedder is not
   * ready, when `text` has nothing to embed, or when embedding fails (recall goes on by keyword).
   */
  async search(scopeId: string, text: string, limit: number): Promise<VectorHit[]> {
    const embedder = this.embedderReady;
    const index = this.deps.index;
    if (!embedder || !index || limit === 0 || this.status_.state === 'unavailable') return [];
    let vector: Float32Array | undefined;
    try {
      [vector] = await embedder.embed([text], this.abort.signal);
    } catch (error) {
      this.status_ = { ...this.status_, problem: `the query could not be embedded: ${messageOf(error)}` };
      return [];
    }
    if (!vector || isZero(vector) || this.embedderReady !== embedder) return [];
    return index.nearest(scopeId, vector, limit);
  }

  /** Waits until nothing is pending, cells included with `cells` (tests and the bench); rejects if stopped first. */
  async settled(timeoutMs = 60_000, options: { cells?: boolean } = {}): Promise<void> {
    const until = Date.now() + timeoutMs;
    const index = this.deps.index;
    // The index, not the status: the status is as of the loop's last batch, before a memory just stored.
    while (this.status_.state !== 'ready' || (index?.pending(1).length ?? 0) > 0 || (options.cells && index && cellsWaiting(index, this.deps.cells?.trainAt))) {
      if (this.stopped || Date.now() > until) throw new Error(`semantic memory did not settle: ${JSON.stringify(this.status_)}`);
      this.notify();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async run(begun: () => void): Promise<void> {
    const index = this.deps.index!;
    let embedder: Embedder;
    let dimensions: number;
    try {
      embedder = await this.deps.embedder();
      dimensions = await embedder.dimensions();
      const { reset, previous } = index.useSpace({ embedder: embedder.id, dimensions });
      this.embedderReady = embedder;
      this.status_ = { state: 'reembedding', embedder: embedder.id, dimensions, pending: index.pendingCount(), problem: null };
      // Recorded when the embedder changed (every vector re-made), not at each start or on a first home.
      if (reset && previous) this.deps.audit.append('silas.memory.vector_space', { embedder: embedder.id, dimensions, previous: previous.embedder, previous_dimensions: previous.dimensions, pending: this.status_.pending });
    } catch (error) {
      this.status_ = { ...this.status_, state: 'unavailable', problem: `the embedder could not start: ${messageOf(error)}` };
      this.deps.audit.append('silas.memory.embedder_failed', { reason: this.status_.problem!.slice(0, 500) });
      begun();
      return;
    }
    begun();
    const batchSize = this.deps.batchSize ?? 64;
    let counted = Date.now();
    let cellsLooked = 0;
    while (!this.stopped) {
      const batch = index.pending(batchSize);
      // Cells are kept up between batches now and then, and whenever the backlog is done.
      if ((batch.length === 0 || Date.now() - cellsLooked > 1_000) && (await this.keepCells(dimensions))) {
        cellsLooked = Date.now();
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      cellsLooked = Date.now();
      if (batch.length === 0) {
        this.status_ = { ...this.status_, state: 'ready', pending: 0 };
        await this.sleep(this.deps.idleMs ?? 2_000);
        continue;
      }
      try {
        const vectors = await embedder.embed(batch.map((memory) => memory.content), this.abort.signal);
        if (this.stopped) break;
        const stored = index.put(batch.map((memory, i) => ({ seq: memory.seq, content: memory.content, vector: vectors[i]! })));
        // Counting what waits reads every row past the mark: done now and then, not per batch.
        const recount = Date.now() - counted > 5_000;
        if (recount) counted = Date.now();
        this.status_ = { ...this.status_, state: 'reembedding', pending: recount ? index.pendingCount() : Math.max(0, this.status_.pending - stored), problem: null };
      } catch (error) {
        if (this.stopped) break;
        this.status_ = { ...this.status_, problem: `re-embedding paused: ${messageOf(error)}` };
        this.deps.audit.append('silas.memory.embedding_failed', { embedder: embedder.id, reason: messageOf(error).slice(0, 500) });
        await this.sleep(this.deps.retryMs ?? 30_000);
      }
      // One batch per turn of the event loop: a turn's own work is never queued behind the backlog.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** One step of cell upkeep; a failure is reported in the status and never stops the re-embedding. */
  private async keepCells(dimensions: number): Promise<boolean> {
    try {
      return await maintainCells(this.deps.index!, dimensions, {
        stopped: () => this.stopped,
        trained: (scopeId, training) => this.deps.audit.append('silas.memory.cells_trained', { scope_id: scopeId, ...training }),
      }, this.deps.cells);
    } catch (error) {
      this.status_ = { ...this.status_, problem: `grouping vectors into cells failed (searches read every vector meanwhile): ${messageOf(error)}` };
      return false;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }
}

function isZero(vector: Float32Array): boolean {
  return vector.every((value) => value === 0);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
