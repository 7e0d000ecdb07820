import type { MemoryVectorIndex } from '../../store/repositories/memory-vectors.js';

/*
 * Learning a scope's cells (docs/silas/chronicle-and-memory.md "Cells"; spec 002 §6.3): spherical
 * k-means over a sample of its vectors, then filing every waiting vector under its nearest centroid.
 * It is arithmetic on the event loop, so it works in slices of a few milliseconds and yields between
 * them: a turn of the Stream is never queued behind it.
 */

/** A scope is trained once this many vectors wait in cell 0: below it a search reads them all in a few ms. */
const TRAIN_AT = 20_000;
/** Cells per scope: about 310 vectors each when trained at TRAIN_AT, about 16,000 at a million (memory-vectors.ts PROBED_CELLS says why so few). */
const CELL_COUNT = 64;
const SAMPLE_SIZE = 16_384;
const ITERATIONS = 8;
const SAMPLE_BATCH = 1_000;
const FILE_BATCH = 500;
/** How long one slice of arithmetic may hold the event loop. */
const SLICE_MS = 12;

interface CellTraining {
  cells: number;
  sample: number;
  iterations: number;
  ms: number;
}

export interface CellMaintenance {
  /** Whether to give up between slices (the runtime is stopping). */
  stopped(): boolean;
  trained(scopeId: string, training: CellTraining): void;
}

/**
 * One step of cell upkeep: trains the scope with the most waiting vectors when it has reached
 * TRAIN_AT, or files a batch of a trained scope's waiting vectors. Returns whether there was work.
 */
export async function maintainCells(
  index: MemoryVectorIndex,
  dimensions: number,
  hooks: CellMaintenance,
  sizes: { trainAt: number; cells: number } = { trainAt: TRAIN_AT, cells: CELL_COUNT },
): Promise<boolean> {
  for (const work of index.cellWork()) {
    if (work.cells > 0) {
      const moved = index.fileWaiting(work.scopeId, FILE_BATCH, SLICE_MS);
      if (moved > 0) return true;
      continue;
    }
    if (work.unassigned < sizes.trainAt) continue;
    const started = performance.now();
    const sample = await readSample(index, work.scopeId, hooks);
    if (hooks.stopped() || sample.length < sizes.cells) return false;
    const centroids = await sphericalKMeans(sample, dimensions, sizes.cells, ITERATIONS, hooks);
    if (!centroids) return false;
    index.trainCells(work.scopeId, centroids, sample.length);
    hooks.trained(work.scopeId, { cells: centroids.length, sample: sample.length, iterations: ITERATIONS, ms: Math.round(performance.now() - started) });
    return true;
  }
  return false;
}

/** Whether a scope is due for training or has vectors still to file. */
export function cellsWaiting(index: MemoryVectorIndex, trainAt = TRAIN_AT): boolean {
  return index.cellWork().some((work) => work.cells > 0 || work.unassigned >= trainAt);
}

async function readSample(index: MemoryVectorIndex, scopeId: string, hooks: CellMaintenance): Promise<Float32Array[]> {
  const sample: Float32Array[] = [];
  let after = 0;
  while (sample.length < SAMPLE_SIZE && !hooks.stopped()) {
    const batch = index.sample(scopeId, after, Math.min(SAMPLE_BATCH, SAMPLE_SIZE - sample.length));
    if (batch.length === 0) break;
    for (const entry of batch) sample.push(entry.vector);
    after = batch[batch.length - 1]!.seq;
    await nextTurn();
  }
  return sample;
}

/**
 * k unit centroids of unit vectors: each point goes to the centroid of largest dot product, each
 * centroid becomes its points' normalised mean; an empty cell takes the point its centroid
 * describes worst. Seeded from evenly spaced points, so the same sample gives the same cells.
 * Returns null when stopped.
 */
export async function sphericalKMeans(points: readonly Float32Array[], dimensions: number, k: number, iterations: number, hooks: Pick<CellMaintenance, 'stopped'>): Promise<Float32Array[] | null> {
  const count = Math.min(k, points.length);
  const centroids = new Float32Array(count * dimensions);
  for (let c = 0; c < count; c++) centroids.set(points[Math.floor((c * points.length) / count)]!, c * dimensions);
  const owner = new Int32Array(points.length);
  const fit = new Float32Array(points.length);
  for (let round = 0; round < iterations; round++) {
    let slice = performance.now();
    for (let p = 0; p < points.length; p++) {
      const point = points[p]!;
      let best = 0;
      let bestDot = -Infinity;
      for (let c = 0; c < count; c++) {
        let dot = 0;
        const offset = c * dimensions;
        for (let d = 0; d < dimensions; d++) dot += centroids[offset + d]! * point[d]!;
        if (dot > bestDot) {
          bestDot = dot;
          best = c;
        }
      }
      owner[p] = best;
      fit[p] = bestDot;
      if (performance.now() - slice > SLICE_MS) {
        await nextTurn();
        if (hooks.stopped()) return null;
        slice = performance.now();
      }
    }
    const sums = new Float64Array(count * dimensions);
    const sizes = new Int32Array(count);
    for (let p = 0; p < points.length; p++) {
      const offset = owner[p]! * dimensions;
      const point = points[p]!;
      sizes[owner[p]!]! += 1;
      for (let d = 0; d < dimensions; d++) sums[offset + d]! += point[d]!;
    }
    const worst = [...fit.keys()].sort((a, b) => fit[a]! - fit[b]!);
    let spare = 0;
    for (let c = 0; c < count; c++) {
      const offset = c * dimensions;
      if (sizes[c] === 0) {
        centroids.set(points[worst[spare++ % worst.length]!]!, offset);
        continue;
      }
      let norm = 0;
      for (let d = 0; d < dimensions; d++) norm += sums[offset + d]! * sums[offset + d]!;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dimensions; d++) centroids[offset + d] = sums[offset + d]! / norm;
    }
    await nextTurn();
    if (hooks.stopped()) return null;
  }
  return Array.from({ length: count }, (_, c) => centroids.slice(c * dimensions, (c + 1) * dimensions));
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
