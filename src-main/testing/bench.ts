/** One benchmark figure, printed as one JSON line (DESIGN §6). */
export function report(name: string, unit: string, value: number, extra: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ name, unit, value: Number(value.toPrecision(6)), ...extra })}\n`);
}

/** Runs `fn` repeatedly for about `ms` milliseconds after a short warm-up; returns operations per second. */
export function opsPerSecond(fn: () => void, ms = 1000): { opsPerSec: number; ops: number } {
  const warmUntil = performance.now() + Math.min(200, ms / 5);
  while (performance.now() < warmUntil) fn();
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 16; i += 1) fn();
    ops += 16;
    now = performance.now();
  }
  return { opsPerSec: (ops * 1000) / (now - start), ops };
}

/** Median wall time of `runs` calls after one warm-up call, in microseconds: for work too slow to time in batches of 16. */
export function medianUs(fn: () => unknown, runs: number): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    fn();
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)]!;
}

/**
 * A Zipf-distributed vocabulary of `stopwords` then 8,000 made-up words, so common words are
 * common and rare ones rare, as in conversation; `word()` draws one with `random`.
 */
export function zipfVocabulary(stopwords: readonly string[], random: () => number): { vocabulary: string[]; word: () => string } {
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'bra', 'chu', 'dri', 'fle', 'gro', 'pla', 'stu'];
  const vocabulary = [...stopwords, ...Array.from({ length: 8000 }, (_, i) => syllables[i % 16]! + syllables[Math.floor(i / 16) % 16]! + syllables[Math.floor(i / 256) % 16]!)];
  const cumulative: number[] = [];
  vocabulary.reduce((sum, _, rank) => (cumulative.push(sum + 1 / (rank + 1)), sum + 1 / (rank + 1)), 0);
  const word = (): string => {
    const target = random() * cumulative.at(-1)!;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return vocabulary[low]!;
  };
  return { vocabulary, word };
}

/** Percentiles of `runs` calls after `warmup` calls, in microseconds. */
export function percentilesUs(fn: (i: number) => unknown, runs: number, warmup = 20): { p50: number; p95: number; p99: number } {
  for (let i = 0; i < warmup; i += 1) fn(i);
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    fn(i);
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(runs / 2)]!, p95: times[Math.floor(runs * 0.95)]!, p99: times[Math.floor(runs * 0.99)]! };
}
