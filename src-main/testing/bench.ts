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
