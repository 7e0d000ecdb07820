import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxErrorCode, type SandboxConfigInput } from '../../src-shared/silas/execution.js';
import { useTempDirs } from '../testing/temp.js';
import { SANDBOX_PATH } from './ephemeral-executor.js';
import { BubblewrapSandboxManager } from './sandbox-manager.js';
import type { Sandbox, SandboxRunRequest } from './types.js';

const tempDir = useTempDirs('silas-sandbox-');
const manager = new BubblewrapSandboxManager({ baseDir: '/nonexistent-base' });
const created: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of created.splice(0)) await manager.destroy(sandbox.id);
});

async function sandbox(config: SandboxConfigInput = {}): Promise<Sandbox> {
  const made = await manager.create({ work_dir: tempDir(), ...config });
  created.push(made);
  return made;
}

function run(box: Sandbox, argv: string[], extra: Partial<SandboxRunRequest> = {}) {
  return box.run({ argv, env: { PATH: SANDBOX_PATH }, timeoutMs: 20_000, maxOutputBytes: 100_000, ...extra });
}

function listen(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.end('hello from the host\n');
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, connections: () => count });
    });
  });
}

const CONNECT = `
import socket, sys
s = socket.socket()
s.settimeout(3)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
    print("CONNECTED", s.recv(100).decode().strip())
except OSError as e:
    print("REFUSED", e)
    sys.exit(3)
`;

describe('BubblewrapSandboxManager: network', () => {
  it('a sandbox without network_access cannot reach a listener on the host loopback', async () => {
    const { server, port, connections } = await listen();
    try {
      const box = await sandbox({ network_access: false });
      expect(box.enforcement.networkIsolated).toBe(true);
      const result = await run(box, ['python3', '-c', CONNECT, String(port)]);
      expect(result.stdout).toMatch(/^REFUSED/);
      expect(result.exitCode).toBe(3);
      expect(connections()).toBe(0);
    } finally {
      server.close();
    }
  });

  it('the same command connects when network_access is true (so the test above can fail)', async () => {
    const { server, port, connections } = await listen();
    try {
      const box = await sandbox({ network_access: true });
      const result = await run(box, ['python3', '-c', CONNECT, String(port)]);
      expect(result.stdout).toContain('CONNECTED hello from the host');
      expect(result.exitCode).toBe(0);
      expect(connections()).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe('BubblewrapSandboxManager: filesystem', () => {
  it('cannot read a file outside its read paths; can read one inside', async () => {
    const secretDir = tempDir();
    writeFileSync(join(secretDir, 'secret.txt'), 'TOP-SECRET');
    const allowedDir = tempDir();
    writeFileSync(join(allowedDir, 'data.txt'), 'shared data');
    const box = await sandbox({ filesystem_read: [allowedDir] });
    const secret = await run(box, ['cat', join(secretDir, 'secret.txt')]);
    expect(secret.exitCode).not.toBe(0);
    expect(secret.stdout).not.toContain('TOP-SECRET');
    expect(secret.stderr).toMatch(/No such file or directory/);
    const allowed = await run(box, ['cat', join(allowedDir, 'data.txt')]);
    expect(allowed.stdout).toBe('shared data');
  });

  it('shows only system dirs, the work dir and listed paths: no home dirs, /root or host /tmp', async () => {
    const box = await sandbox();
    const result = await run(box, ['python3', '-c', 'import os; print(sorted(os.listdir("/"))); print(os.listdir("/tmp")); print(os.path.exists("/root"), os.path.exists("/home"), os.path.exists("/etc/shadow"), os.path.exists("/etc/ssl/private"))']);
    expect(result.exitCode).toBe(0);
    const [rootList, tmpList, flags] = result.stdout.trim().split('\n');
    for (const name of ['root', 'home', 'work', 'opt', 'var', 'srv', 'mnt']) expect(rootList).not.toContain(`'${name}'`);
    // /tmp is a private tmpfs holding only the mount point of the work dir.
    expect(tmpList).toBe(`['${box.workDir.split('/')[2]}']`);
    expect(flags).toBe('False False False False');
  });

  it('cannot write outside its write paths, not even into a read path or by remounting it', async () => {
    const readDir = tempDir();
    const writeDir = tempDir();
    const elsewhere = tempDir();
    const box = await sandbox({ filesystem_read: [readDir], filesystem_write: [writeDir] });
    const intoRead = await run(box, ['sh', '-c', `echo x > ${readDir}/planted`]);
    expect(intoRead.exitCode).not.toBe(0);
    expect(intoRead.stderr).toMatch(/Read-only file system/);
    const remount = await run(box, ['sh', '-c', `mount -o remount,rw,bind ${readDir} && echo x > ${readDir}/planted`]);
    expect(remount.exitCode).not.toBe(0);
    const intoElsewhere = await run(box, ['sh', '-c', `mkdir -p ${elsewhere} && echo x > ${elsewhere}/planted`]);
    expect(intoElsewhere.exitCode).toBe(0); // it wrote into the sandbox's private tmpfs…
    expect(existsSync(join(elsewhere, 'planted'))).toBe(false); // …which the host never sees
    expect(existsSync(join(readDir, 'planted'))).toBe(false);
    const intoWrite = await run(box, ['sh', '-c', `echo ok > ${writeDir}/out && echo ok > ${box.workDir}/work-out`]);
    expect(intoWrite.exitCode).toBe(0);
    expect(readFileSync(join(writeDir, 'out'), 'utf8')).toBe('ok\n');
    expect(readFileSync(join(box.workDir, 'work-out'), 'utf8')).toBe('ok\n');
  });

  it('drops every capability even when started by root', async () => {
    const box = await sandbox();
    const result = await run(box, ['sh', '-c', 'grep CapEff /proc/self/status']);
    expect(result.stdout.trim()).toBe('CapEff:\t0000000000000000');
  });

  it('a read-only work dir cannot be modified', async () => {
    const workDir = tempDir();
    writeFileSync(join(workDir, 'result.txt'), 'original');
    const box = await manager.create({ work_dir: workDir }, { workDirAccess: 'read-only' });
    created.push(box);
    const result = await run(box, ['sh', '-c', 'echo forged > result.txt; touch new-file']);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(readFileSync(join(workDir, 'result.txt'), 'utf8')).toBe('original');
    expect(readdirSync(workDir)).toEqual(['result.txt']);
  });
});

describe('BubblewrapSandboxManager: configured paths', () => {
  it('refuses "..", the host root, /proc and missing paths, naming the field', async () => {
    const dir = tempDir();
    await expect(manager.create({ work_dir: `${dir}/../escape` })).rejects.toMatchObject({ code: SandboxErrorCode.PathInvalid, message: expect.stringContaining('sandbox_config.work_dir') });
    await expect(manager.create({ work_dir: dir, filesystem_read: ['/'] })).rejects.toThrow(/filesystem_read\.0: "\/" may not be exposed/);
    await expect(manager.create({ work_dir: dir, filesystem_write: ['/proc/self'] })).rejects.toThrow(/filesystem_write\.0/);
    await expect(manager.create({ work_dir: dir, filesystem_read: [join(dir, 'missing')] })).rejects.toThrow(/does not exist/);
  });

  it('resolves a symlinked path to its real target and refuses a link to the host root', async () => {
    const target = tempDir();
    writeFileSync(join(target, 'via-link.txt'), 'through the link');
    const links = tempDir();
    symlinkSync(target, join(links, 'link'));
    symlinkSync('/', join(links, 'root-link'));
    const box = await sandbox({ filesystem_read: [join(links, 'link')] });
    const result = await run(box, ['cat', join(target, 'via-link.txt')]);
    expect(result.stdout).toBe('through the link');
    await expect(manager.create({ work_dir: tempDir(), filesystem_read: [join(links, 'root-link')] })).rejects.toThrow(/resolves to "\/"/);
  });

  it('resolves a relative work_dir against the base dir and creates it', async () => {
    const base = tempDir();
    const relative = new BubblewrapSandboxManager({ baseDir: base });
    const box = await relative.create({ work_dir: './data/sandbox/work' });
    expect(box.workDir).toBe(join(base, 'data/sandbox/work'));
    const result = await box.run({ argv: ['pwd'], timeoutMs: 20_000, maxOutputBytes: 1000 });
    expect(result.stdout.trim()).toBe(box.workDir);
    await relative.destroy(box.id);
  });

  it('refuses unknown config fields, the docker backend and bad env names', async () => {
    await expect(manager.create({ work_dir: tempDir(), network: true } as SandboxConfigInput)).rejects.toMatchObject({ code: SandboxErrorCode.ConfigInvalid });
    await expect(manager.create({ work_dir: tempDir(), backend: 'docker' })).rejects.toMatchObject({ code: SandboxErrorCode.BackendUnavailable });
    await expect(manager.create({ work_dir: tempDir(), env: { 'A=B': 'x' } })).rejects.toThrow(/sandbox_config\.env/);
  });
});

describe('BubblewrapSandboxManager: fail closed without bubblewrap', () => {
  it('refuses a network-denied run with E_SANDBOX_NETWORK_UNAVAILABLE and says how to fix it', async () => {
    const missing = new BubblewrapSandboxManager({ baseDir: tempDir(), bwrapPath: '/nonexistent/bwrap' });
    expect((await missing.availability()).available).toBe(false);
    const refusal = missing.create({ work_dir: tempDir(), network_access: false });
    await expect(refusal).rejects.toMatchObject({ code: 'E_SANDBOX_NETWORK_UNAVAILABLE' });
    await expect(refusal).rejects.toThrow(/apt-get install bubblewrap/);
  });

  it('refuses a network-allowed run too: without namespaces the filesystem is not confined either', async () => {
    const missing = new BubblewrapSandboxManager({ baseDir: tempDir(), bwrapPath: '/nonexistent/bwrap' });
    await expect(missing.create({ work_dir: tempDir(), network_access: true })).rejects.toMatchObject({ code: SandboxErrorCode.BackendUnavailable });
  });

  it('treats a bwrap that exists but cannot run as unavailable', async () => {
    const broken = new BubblewrapSandboxManager({ baseDir: tempDir(), bwrapPath: '/bin/false' });
    const availability = await broken.availability();
    expect(availability.available).toBe(false);
    expect(availability.reason).toMatch(/cannot create namespaces/);
    await expect(broken.create({ work_dir: tempDir() })).rejects.toMatchObject({ code: 'E_SANDBOX_NETWORK_UNAVAILABLE' });
  });
});

function hostProcessesWith(token: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(token)) count += 1;
    } catch {
      // The process exited while we looked.
    }
  }
  return count;
}

async function waitUntil(condition: () => boolean, limitMs = 5000): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return condition();
}

describe('BubblewrapSandboxManager: limits', () => {
  it('kills the command and its children at the timeout', async () => {
    const token = `${Math.floor(Math.random() * 1e6)}.${process.pid}`;
    const box = await sandbox();
    const result = await run(box, ['sh', '-c', `sleep ${token} & sleep ${token} & echo started; wait`], { timeoutMs: 700 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.stdout).toBe('started\n');
    expect(await waitUntil(() => hostProcessesWith(`sleep\0${token}`) === 0)).toBe(true);
  });

  it('caps stdout and stderr at the byte limit and says so', async () => {
    const box = await sandbox();
    const result = await run(box, ['python3', '-c', 'import sys; sys.stdout.write("a" * 100000); sys.stderr.write("e" * 5000)'], { maxOutputBytes: 1000 });
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdoutBytes).toBe(100_000);
    expect(result.stderr.length).toBe(1000);
    expect(result.stderrTruncated).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('passes exactly the given environment, nothing from the runtime (bwrap adds PWD = the work dir)', async () => {
    process.env.SILAS_SANDBOX_LEAK_PROBE = 'leaked';
    try {
      const box = await sandbox({ env: { FROM_CONFIG: 'c' } });
      const result = await box.run({ argv: ['/usr/bin/env'], env: { FROM_RUN: 'r' }, timeoutMs: 20_000, maxOutputBytes: 10_000 });
      expect(result.stdout.trim().split('\n').sort()).toEqual(['FROM_CONFIG=c', 'FROM_RUN=r', `PWD=${box.workDir}`]);
    } finally {
      delete process.env.SILAS_SANDBOX_LEAK_PROBE;
    }
  });

  it('enforces the memory limit (RLIMIT_AS) and the CPU limit (RLIMIT_CPU)', async () => {
    const box = await sandbox({ max_memory_mb: 128, max_cpu_seconds: 1 });
    expect(box.enforcement).toMatchObject({ memoryLimit: true, cpuLimit: true });
    const memory = await run(box, ['python3', '-c', 'b = bytearray(400 * 1024 * 1024)']);
    expect(memory.exitCode).toBe(1);
    expect(memory.stderr).toContain('MemoryError');
    const cpu = await run(box, ['python3', '-c', 'while True: pass'], { timeoutMs: 30_000 });
    expect(cpu.timedOut).toBe(false);
    expect([128 + 9, 128 + 24]).toContain(cpu.exitCode); // SIGKILL or SIGXCPU
  });

  it('runs python3 from the system dirs and feeds stdin', async () => {
    const box = await sandbox();
    const result = await run(box, ['python3', '-'], { stdin: 'import sys; print(sys.executable, sys.version_info[0])' });
    expect(result.stdout).toMatch(/^\/usr\/(local\/)?bin\/python3(\.\d+)? 3\n$/);
  });

  it('reports a missing program as exit 127, and refuses a non-list command', async () => {
    const box = await sandbox();
    expect((await run(box, ['definitely-not-a-program'])).exitCode).toBe(127);
    await expect(box.run({ argv: [], timeoutMs: 1000, maxOutputBytes: 10 })).rejects.toMatchObject({ code: SandboxErrorCode.CommandInvalid });
    await expect(box.run({ argv: 'ls -la' as unknown as string[], timeoutMs: 1000, maxOutputBytes: 10 })).rejects.toMatchObject({ code: SandboxErrorCode.CommandInvalid });
  });

  it('destroy kills a running command and refuses further runs', async () => {
    const box = await manager.create({ work_dir: tempDir() });
    const pending = run(box, ['sleep', '300']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await manager.destroy(box.id);
    const result = await pending;
    expect(result.exitCode).toBeNull();
    await expect(run(box, ['true'])).rejects.toMatchObject({ code: SandboxErrorCode.NotFound });
  });

  it('keeps separate sandboxes apart: one cannot see the other\'s work dir', async () => {
    const first = await sandbox();
    const second = await sandbox();
    writeFileSync(join(first.workDir, 'mine.txt'), 'first');
    mkdirSync(join(second.workDir, 'sub'));
    const result = await run(second, ['cat', join(first.workDir, 'mine.txt')]);
    expect(result.exitCode).not.toBe(0);
  });
});
