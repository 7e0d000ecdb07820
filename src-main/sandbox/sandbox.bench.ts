import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from '../testing/bench.js';
import { VerificationRunner } from '../silas/verify/verification-runner.js';
import { runProcess } from './process-runner.js';
import { BubblewrapSandboxManager } from './sandbox-manager.js';

// Sandbox start overhead: the same `true`, bare and inside bubblewrap, alternated within one
// run so that both see the same machine load (DESIGN §6: compare ratios, not absolute times).
function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const dir = mkdtempSync(join(tmpdir(), 'silas-bench-sandbox-'));
try {
  const manager = new BubblewrapSandboxManager({ baseDir: dir });
  const availability = await manager.availability();
  if (!availability.available) throw new Error(`sandbox unavailable: ${availability.reason}`);
  const sandbox = await manager.create({ work_dir: join(dir, 'work') });
  const runs = 100;
  const bare: number[] = [];
  const sandboxed: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    await runProcess('/usr/bin/true', [], { env: {}, timeoutMs: 10_000, maxOutputBytes: 1024 });
    await sandbox.run({ argv: ['true'], timeoutMs: 10_000, maxOutputBytes: 1024 });
  }
  for (let i = 0; i < runs; i += 1) {
    let start = performance.now();
    await runProcess('/usr/bin/true', [], { env: {}, timeoutMs: 10_000, maxOutputBytes: 1024 });
    bare.push(performance.now() - start);
    start = performance.now();
    const result = await sandbox.run({ argv: ['true'], timeoutMs: 10_000, maxOutputBytes: 1024 });
    sandboxed.push(performance.now() - start);
    if (result.exitCode !== 0) throw new Error('sandboxed true failed');
  }
  await manager.destroy(sandbox.id);
  const bareP50 = p50(bare);
  const sandboxedP50 = p50(sandboxed);
  report('sandbox.start.bare_true.p50', 'ms', bareP50, { runs });
  report('sandbox.start.sandboxed_true.p50', 'ms', sandboxedP50, { runs, limits: availability.prlimitPath !== null, aggregate_limits: sandbox.enforcement.processLimit });
  report('sandbox.start.overhead_ratio', 'x', sandboxedP50 / bareP50, { runs });

  // 100 verification checks, each in its own fresh sandbox, against a work dir with an artifact.
  const workDir = join(dir, 'verify');
  mkdirSync(workDir);
  writeFileSync(join(workDir, 'result.txt'), 'ok\n');
  const predicates = [{ exit_code: 0 }, { equals: 'ok' }, { contains: 'ok' }, { regex: '^ok$' }, { file_exists: 'result.txt' }];
  const checks = Array.from({ length: 100 }, (_, i) => ({ name: `check-${i}`, run: 'cat result.txt', expect: predicates[i % predicates.length]! }));
  const runner = new VerificationRunner({ sandboxManager: manager, workDir });
  const start = performance.now();
  const verification = await runner.runChecks(checks);
  const elapsed = performance.now() - start;
  if (!verification.all_passed) throw new Error(`verification failed: ${JSON.stringify(verification.failed[0])}`);
  report('verify.run_checks.100', 'ms', elapsed, { checks: 100, per_check_ms: Number((elapsed / 100).toFixed(2)) });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
