import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SandboxConfigInput } from '../../src-shared/silas/execution.js';
import { useTempDirs } from '../testing/temp.js';
import { executorFixture, taskPlan } from '../silas/executor/testing/executor.js';
import { SandboxedEphemeralExecutor } from './ephemeral-executor.js';
import { detectRunLimiter, UNLIMITED_REPORT, type RunLimiter } from './run-limits.js';
import { BubblewrapSandboxManager } from './sandbox-manager.js';

/**
 * Aggregate run limits, from the attacker's side: a command inside one run forks far more
 * processes, or spreads more memory over several processes, than the run may have. Each process
 * alone stays under the per-process limits; only an aggregate limit per run stops them.
 */

const tempDir = useTempDirs('silas-limits-');

/** Tries to start 300 sleeping children, counts how many forks the kernel allowed, then reaps them. */
const FORK_300 = `
import os, signal
started, refused = [], 0
for _ in range(300):
    try:
        pid = os.fork()
    except OSError:
        refused += 1
        continue
    if pid == 0:
        os.execv('/bin/sleep', ['sleep', '30'])
    started.append(pid)
print(len(started), refused)
for pid in started:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
`;

/** n children each touch 40 MB and wait until all n are ready (or one of them died); prints the survivors. */
const memoryHogs = (n: number) => `
import os, time
kids = []
for i in range(${n}):
    pid = os.fork()
    if pid == 0:
        block = b'x' * (40 << 20)
        open(f'/tmp/ready{i}', 'w').close()
        for _ in range(300):
            if len([f for f in os.listdir('/tmp') if f.startswith('ready')]) == ${n}:
                break
            time.sleep(0.01)
        os._exit(0)
    kids.append(pid)
print(sum(1 for pid in kids if os.waitpid(pid, 0)[1] == 0))
`;

async function runPython(code: string, config: SandboxConfigInput) {
  const manager = new BubblewrapSandboxManager({ baseDir: tempDir() });
  const sandbox = await manager.create({ work_dir: tempDir(), ...config });
  try {
    return { sandbox, run: await sandbox.run({ argv: ['/usr/bin/python3', '-c', code], timeoutMs: 30_000, maxOutputBytes: 4096 }) };
  } finally {
    await manager.destroy(sandbox.id);
  }
}

describe('Aggregate limits per sandbox run', () => {
  it('stops a command that forks 300 children at the run cap of 64 processes, and reports it', async () => {
    const { sandbox, run } = await runPython(FORK_300, { max_processes: 64 });
    const [started, refused] = run.stdout.trim().split(' ').map(Number) as [number, number];
    expect(started).toBeLessThan(64);
    expect(started + refused).toBe(300);
    expect(run.limits).toMatchObject({ mechanism: expect.stringMatching(/^cgroup[12]$/), max_processes: 64, process_limit_hit: true });
    expect(sandbox.enforcement).toMatchObject({ processLimit: true, runMemoryLimit: true });
  });

  it('kills processes that are each under the per-process limit but together over the run limit (4 × 40 MB against 96 MB)', async () => {
    const { run } = await runPython(memoryHogs(4), { max_memory_mb: 96 });
    expect(Number(run.stdout.trim())).toBeLessThan(4);
    expect(run.limits).toMatchObject({ max_memory_mb: 96, memory_limit_hit: true });
    expect(run.limits.peak_memory_mb).toBeLessThanOrEqual(96);
  });

  it('lets a legitimate run inside both limits finish untouched, and leaves no cgroup behind', async () => {
    const { run } = await runPython(memoryHogs(1), { max_memory_mb: 96, max_processes: 64 });
    expect(run).toMatchObject({ exitCode: 0, stdout: '1\n' });
    expect(run.limits).toMatchObject({ max_processes: 64, max_memory_mb: 96, process_limit_hit: false, memory_limit_hit: false });
    const pids = '/sys/fs/cgroup/pids';
    if (existsSync(pids)) expect(readdirSync(pids).filter((name) => name.startsWith(`silas-run-${process.pid}-`))).toEqual([]);
  });
});

describe('Fails closed when the run limits cannot be enforced', () => {
  function hostWithoutCgroups(): string {
    const proc = tempDir();
    writeFileSync(join(proc, 'cgroup'), '0::/\n');
    writeFileSync(join(proc, 'mountinfo'), '25 1 0:22 / / rw - ext4 /dev/root rw\n');
    return proc;
  }

  it('refuses a run that requires the limits with E_SANDBOX_LIMIT_UNAVAILABLE naming what is missing and the fix', async () => {
    const limiter = detectRunLimiter(hostWithoutCgroups());
    expect(limiter.mechanism).toBeNull();
    const manager = new BubblewrapSandboxManager({ baseDir: tempDir(), runLimiter: limiter });
    await expect(manager.create({ work_dir: tempDir(), max_processes: 64 })).rejects.toMatchObject({
      code: 'E_SANDBOX_LIMIT_UNAVAILABLE',
      message: expect.stringMatching(/max_processes 64.*cannot be enforced: .*pids.*To fix, run Silas as root or in a delegated cgroup.*best_effort/),
    });
    const executor = new SandboxedEphemeralExecutor({ manager });
    const result = await executor.execute({ execution_id: 'e1', step_index: 0, task_description: '', action: 'shell_exec', args: { command: ['true'] }, sandbox_config: { work_dir: tempDir() } });
    expect(result).toMatchObject({ success: false, metadata: { error_code: 'E_SANDBOX_LIMIT_UNAVAILABLE' } });
  });

  it('refuses a run whose process cannot enter its cgroup instead of running it unlimited', async () => {
    const unwritable: RunLimiter = {
      mechanism: 'cgroup1',
      unavailableReason: null,
      create: () => ({ procsFiles: [join(tempDir(), 'missing', 'cgroup.procs')], finish: async () => ({ ...UNLIMITED_REPORT, mechanism: 'cgroup1' }) }),
    };
    const manager = new BubblewrapSandboxManager({ baseDir: tempDir(), runLimiter: unwritable });
    const marker = join(tempDir(), 'ran');
    const sandbox = await manager.create({ work_dir: tempDir(), filesystem_write: [dirname(marker)] });
    await expect(sandbox.run({ argv: ['touch', marker], timeoutMs: 10_000, maxOutputBytes: 1024 })).rejects.toMatchObject({ code: 'E_SANDBOX_LIMIT_UNAVAILABLE', message: expect.stringContaining('could not enter its cgroup') });
    expect(existsSync(marker)).toBe(false);
    await manager.destroy(sandbox.id);
  });

  it('runs with best_effort and says in the result that no aggregate limit applied', async () => {
    const manager = new BubblewrapSandboxManager({ baseDir: tempDir(), runLimiter: detectRunLimiter(hostWithoutCgroups()) });
    const sandbox = await manager.create({ work_dir: tempDir(), resource_limits: 'best_effort' });
    const run = await sandbox.run({ argv: ['true'], timeoutMs: 10_000, maxOutputBytes: 1024 });
    expect(run.exitCode).toBe(0);
    expect(run.limits).toEqual({ mechanism: null, max_processes: null, max_memory_mb: null, process_limit_hit: false, memory_limit_hit: false, peak_memory_mb: null });
    expect(sandbox.enforcement).toMatchObject({ processLimit: false, runMemoryLimit: false });
    await manager.destroy(sandbox.id);
  });
});

describe('The run audit records the limits', () => {
  it('a tool call that forks past the cap is audited with the enforced limits and the hit', async () => {
    const f = executorFixture(tempDir(), { sandbox: { max_processes: 64 } });
    f.script([{ tool: 'python_exec', args: { code: FORK_300 } }]);
    await f.executor.execute(f.approve(taskPlan('task-forks', 'budget: { max_attempts: 1 }\n')));
    expect(f.events('silas.executor.tool_result')).toEqual([
      expect.objectContaining({ success: true, sandbox_limits: expect.objectContaining({ mechanism: expect.stringMatching(/^cgroup[12]$/), max_processes: 64, max_memory_mb: 512, process_limit_hit: true }) }),
    ]);
  });
});
