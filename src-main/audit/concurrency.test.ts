import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger } from '../testing/ledger.js';

const tempDir = useTempDirs();
const WORKER = fileURLToPath(new URL('../testing/append-worker.ts', import.meta.url));

interface WorkerRun {
  lines: string[];
  stderr(): string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): void;
  waitForLines(n: number): Promise<void>;
}

function startWorker(file: string, name: string, count: number): WorkerRun {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file, name, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let buffer = '';
  const waiters: { n: number; resolve: () => void }[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const line of parts) if (line && line !== 'ready') lines.push(line);
    for (const w of waiters.filter((w) => lines.length >= w.n)) w.resolve();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    lines,
    stderr: () => stderr,
    exit,
    kill: (signal) => child.kill(signal),
    waitForLines: (n) => new Promise<void>((resolve) => (lines.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

describe('audit chain across processes', () => {
  it('two processes appending at once keep one valid chain with no lost entry', async () => {
    const ledger = createTestLedger(tempDir());
    ledger.audit.append('test.genesis', {});
    const a = startWorker(ledger.file, 'a', 400);
    const b = startWorker(ledger.file, 'b', 400);
    const results = await Promise.all([a.exit, b.exit]);
    expect(results.map((r) => r.code), `${a.stderr()}${b.stderr()}`).toEqual([0, 0]);

    const verifier = ledger.reopen();
    // Both writers checkpointed (at least when closing) under the same write lock and anchor.
    const verdict = verifier.verifyChain();
    expect(verdict).toMatchObject({ valid: true, firstInvalid: null });
    expect(verdict.checkpoints).toBeGreaterThanOrEqual(2);
    expect(verdict.entries).toBe(801 + verdict.checkpoints);
    const rows = ledger.db.prepare("SELECT json_extract(data, '$.worker') AS w, json_extract(data, '$.seq') AS s FROM audit_entries WHERE event = 'test.worker'").all() as { w: string; s: number }[];
    for (const worker of ['a', 'b']) {
      const seqs = rows.filter((r) => r.w === worker).map((r) => r.s).sort((x, y) => x - y);
      expect(seqs).toEqual(Array.from({ length: 400 }, (_, i) => i));
    }
    // Each process saw strictly increasing indexes, and the two never got the same one.
    const indexes = [...a.lines, ...b.lines].map((l) => Number(l.split(' ')[0]));
    expect(new Set(indexes).size).toBe(800);
  });

  it('a process killed with SIGKILL mid-burst leaves a valid chain containing every append that had returned', async () => {
    const ledger = createTestLedger(tempDir());
    const worker = startWorker(ledger.file, 'victim', 1_000_000);
    await worker.waitForLines(300);
    worker.kill('SIGKILL');
    const { signal } = await worker.exit;
    expect(signal).toBe('SIGKILL');

    const verifier = ledger.reopen();
    const result = verifier.verifyChain();
    expect(result.valid).toBe(true);
    const confirmed = worker.lines.map((l) => Number(l.split(' ')[0]));
    expect(confirmed.length).toBeGreaterThanOrEqual(300);
    const stored = new Set((ledger.db.prepare('SELECT idx FROM audit_entries').all() as { idx: number }[]).map((r) => r.idx));
    const lost = confirmed.filter((i) => !stored.has(i));
    expect(lost).toEqual([]);
    // The survivor can keep appending to the same chain.
    verifier.append('test.after_crash', {});
    expect(verifier.verifyChain().valid).toBe(true);
  });
});
