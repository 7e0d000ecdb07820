import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calls } from '../../src-shared/contract/calls.js';
import { report } from '../testing/bench.js';
import { SILAS_BIN } from '../testing/cli.js';
import { createTestLedger } from '../testing/ledger.js';
import { openDatabase } from '../store/database.js';
import { sqliteConnection } from '../store/transaction.js';

// `silas audit export` and `audit.list` at 10k, 100k and 1M entries, each beside its floor:
// the export beside `cat` of a file of the same bytes (to /dev/null and to the same slow
// reader), the list beside the bare SELECT of the same rows.
//
// Ledgers are built once into a cache under the temp dir (1M entries take a while) and reused
// by later runs; SILAS_BENCH_REBUILD=1 builds them afresh, SILAS_BENCH_ONLY=10k runs one size.
const CACHE = join(tmpdir(), 'silas-bench-ledgers-v1');
const SIZES = [
  ['10k', 10_000],
  ['100k', 100_000],
  ['1m', 1_000_000],
] as const;
/** The slow reader's pace: well under what the exporter produces, so it has to wait on the pipe. */
const SLOW_READER_BYTES_PER_S = 64 * 1024 * 1024;

const decision = { direction: 'upstream' as const, method: 'tools/call', tool: 'read_file', args: { path: '/home/user/notes.txt' }, decision: 'ALLOW', policy_mode: 'enforce', violation: false };

/** A home at `CACHE/label` whose ledger holds `size` AIP decisions (and their checkpoints). */
function cachedHome(label: string, size: number): string {
  const home = join(CACHE, label);
  const done = join(home, 'complete');
  if (existsSync(done) && process.env.SILAS_BENCH_REBUILD !== '1') return home;
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const ledger = createTestLedger(home);
  let seq = 0;
  while ((ledger.audit.head()?.index ?? -1) + 1 < size) {
    ledger.audit.appendBatch(Array.from({ length: 1000 }, () => ({ event: 'aip.decision' as const, data: { ...decision, seq: seq++ } })));
  }
  ledger.audit.writeCheckpoint();
  ledger.db.close();
  closeSync(openSync(done, 'w'));
  return home;
}

function peakRssKb(pid: number): number {
  try {
    return Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

interface Run {
  ms: number;
  bytes: number;
  peakRssMb: number;
}

/**
 * Runs `command` with its stdout to /dev/null (`slow` false) or to a pipe this process reads
 * at SLOW_READER_BYTES_PER_S, sampling the child's peak RSS until it exits.
 */
async function run(command: string, args: string[], slow: boolean): Promise<Run> {
  const devNull = slow ? null : openSync('/dev/null', 'w');
  const start = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', devNull ?? 'pipe', 'pipe'] });
  if (devNull !== null) closeSync(devNull);
  let peak = 0;
  let bytes = 0;
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const sampler = setInterval(() => (peak = Math.max(peak, peakRssKb(child.pid!))), 5);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  if (child.stdout) {
    const stdout = child.stdout;
    stdout.pause();
    let readEnded = false;
    stdout.once('end', () => (readEnded = true));
    while (!readEnded) {
      const chunk = stdout.read() as Buffer | null;
      if (chunk) {
        bytes += chunk.length;
        // Read no faster than the pace: sleep until the bytes so far are due.
        const due = start + (bytes / SLOW_READER_BYTES_PER_S) * 1000;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      } else {
        await new Promise((r) => setTimeout(r, 1));
      }
    }
  }
  const code = await exited;
  clearInterval(sampler);
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}: ${err}`);
  // A process that ends between two samples has no figure rather than a zero.
  return { ms: performance.now() - start, bytes, peakRssMb: peak > 0 ? peak / 1024 : Number.NaN };
}

/** `runs` runs of one command: the median time, and the highest peak RSS any of them reached. */
async function repeat(runs: number, command: string, args: string[], slow: boolean): Promise<Run> {
  const all: Run[] = [];
  for (let i = 0; i < runs; i += 1) all.push(await run(command, args, slow));
  const ms = all.map((r) => r.ms).sort((a, b) => a - b)[Math.floor(runs / 2)]!;
  const peaks = all.map((r) => r.peakRssMb).filter((v) => !Number.isNaN(v));
  return { ms, bytes: all[0]!.bytes, peakRssMb: peaks.length > 0 ? Math.max(...peaks) : Number.NaN };
}

const mb = (value: number) => (Number.isNaN(value) ? null : Number(value.toFixed(1)));

const silas = (home: string, extra: string[] = []) => [SILAS_BIN, 'audit', 'export', '--format', 'jsonl', '--home', home, ...extra];

async function exportFigures(label: string, size: number, home: string): Promise<void> {
  // The exporter's own footprint: the same process exporting nothing.
  const runs = size >= 1_000_000 ? 1 : 3;
  const idle = await repeat(runs, process.execPath, silas(home, ['--since', '2999-01-01T00:00:00Z']), false);
  // The same bytes as a file, for the floor.
  const file = join(home, 'export.jsonl');
  if (!existsSync(file) || statSync(file).mtimeMs < statSync(join(home, 'complete')).mtimeMs) {
    const fd = openSync(file, 'w');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, silas(home), { stdio: ['ignore', fd, 'inherit'] });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`export to ${file} exited ${code}`))));
    });
    closeSync(fd);
  }
  const bytes = statSync(file).size;
  for (const slow of [false, true]) {
    const to = slow ? 'slow_pipe' : 'dev_null';
    const floor = await repeat(runs, 'cat', [file], slow);
    const exported = await repeat(runs, process.execPath, silas(home), slow);
    if (slow && exported.bytes !== bytes) throw new Error(`export wrote ${exported.bytes} bytes, the file holds ${bytes}`);
    report(`audit.export.jsonl.${to}.floor_cat.${label}`, 'ms', floor.ms, { role: 'floor', bytes, peak_rss_mb: mb(floor.peakRssMb) });
    // `startup_ms`: the same command exporting nothing (Node, tsx or the built CLI, opening the home).
    report(`audit.export.jsonl.${to}.${label}`, 'ms', exported.ms, { ledger_entries: size, bytes, ratio_to_floor: exported.ms / floor.ms, floor_ms: floor.ms, startup_ms: idle.ms });
    report(`audit.export.jsonl.${to}.peak_rss.${label}`, 'MB', exported.peakRssMb, {
      ledger_entries: size,
      growth_over_idle_mb: exported.peakRssMb - idle.peakRssMb,
      idle_export_peak_rss_mb: idle.peakRssMb,
      floor_cat_peak_rss_mb: mb(floor.peakRssMb),
      reader_mb_per_s: slow ? SLOW_READER_BYTES_PER_S / 2 ** 20 : null,
    });
  }
}

/** Median of `reps` timings of `fn` after a few warm-up calls, in ms. */
function medianMs(fn: () => unknown, reps = 21): number {
  for (let i = 0; i < 5; i += 1) fn();
  const times = Array.from({ length: reps }, () => {
    const start = performance.now();
    fn();
    return performance.now() - start;
  });
  return times.sort((a, b) => a - b)[Math.floor(reps / 2)]!;
}

function listFigures(label: string, size: number, home: string): void {
  const ledger = createTestLedger(home);
  try {
    const bare = ledger.db.prepare('SELECT * FROM audit_entries WHERE idx < ? ORDER BY idx DESC LIMIT ?');
    const countStar = ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_entries');
    const head = ledger.audit.head()!.index;
    const limit = 500;
    for (const [page, before] of [
      ['first_page', undefined],
      ['deep_page', Math.floor(head / 2)],
    ] as const) {
      const floor = medianMs(() => bare.all(before ?? head + 1, limit));
      const query = medianMs(() => ledger.audit.list(before, limit));
      const result = ledger.audit.list(before, limit);
      const check = medianMs(() => calls['audit.list'].result.parse(result));
      report(`audit.list.${page}.bare_query.${label}`, 'ms', floor, { role: 'floor', rows: limit });
      report(`audit.list.${page}.${label}`, 'ms', query + check, { ledger_entries: size, rows: limit, list_ms: query, contract_check_ms: check, check_to_query: check / query, ratio_to_floor: (query + check) / floor });
    }
    // What every page paid before it read the total off the chain's head.
    report(`audit.list.count_star_no_longer_run.${label}`, 'ms', medianMs(() => countStar.get(), 5), { ledger_entries: size });
  } finally {
    ledger.db.close();
  }
}

// First rows on a new connection, as the cockpit's first page after a start: measured before any
// other figure of this size reads the file. Floor: a new raw connection running the bare query
// for the same rows, measured after it (so with the OS page cache at least as warm).
function firstRowsNewConnection(label: string, home: string): void {
  const start = performance.now();
  const ledger = createTestLedger(home);
  const page = ledger.audit.list(undefined, 200);
  calls['audit.list'].result.parse(page);
  const ms = performance.now() - start;
  ledger.db.close();
  const floorStart = performance.now();
  const { db } = openDatabase(join(home, 'silas.db'), { create: false });
  sqliteConnection(db).prepare('SELECT * FROM audit_entries ORDER BY idx DESC LIMIT ?').all(200);
  const floor = performance.now() - floorStart;
  sqliteConnection(db).close();
  report(`audit.list.first_rows_new_connection.${label}`, 'ms', ms, { rows: page.entries.length, floor_bare_query_new_connection_ms: floor, ratio_to_floor: ms / floor });
}

for (const [label, size] of SIZES.filter(([l]) => (process.env.SILAS_BENCH_ONLY ?? l) === l)) {
  const home = cachedHome(label, size);
  firstRowsNewConnection(label, home);
  listFigures(label, size, home);
  await exportFigures(label, size, home);
}
