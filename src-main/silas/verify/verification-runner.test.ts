import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { VerificationReport } from '../../../src-shared/silas/execution.js';
import type { VerificationCheck } from '../../../src-shared/silas/work.js';
import { useTempDirs } from '../../testing/temp.js';
import { BubblewrapSandboxManager, FRESH_HOME } from '../../sandbox/sandbox-manager.js';
import { checkEnvironment, VerificationRunner } from './verification-runner.js';

const tempDir = useTempDirs('silas-verify-');
const sandboxManager = new BubblewrapSandboxManager({ baseDir: '/nonexistent-base' });

type CheckInput = Omit<Partial<VerificationCheck>, 'expect'> & { name: string; run: string; expect: Record<string, unknown> };

function runner(workDir = tempDir(), projectDirs: string[] = []) {
  return { workDir, verify: new VerificationRunner({ sandboxManager, workDir, projectDirs, now: () => new Date('2026-01-02T03:04:05Z') }) };
}

async function one(check: CheckInput, workDir?: string) {
  const { verify } = runner(workDir);
  const report = await verify.runChecks([check]);
  return report.results[0]!;
}

describe('VerificationRunner: every expectation type against real commands', () => {
  it('evaluates each predicate and aggregates a report with only the failures in `failed`', async () => {
    const { workDir, verify } = runner();
    mkdirSync(join(workDir, 'dist'));
    writeFileSync(join(workDir, 'dist', 'app.js'), 'console.log(1)');
    const report = await verify.runChecks([
      { name: 'exit', run: 'true', expect: { exit_code: 0 } },
      { name: 'exit-fails', run: 'exit 4', expect: { exit_code: 0 } },
      { name: 'equals', run: 'echo filled', expect: { equals: 'filled' } },
      { name: 'contains', run: 'printf "3 passed, 0 failed"', expect: { contains: '3 passed' } },
      { name: 'regex', run: 'python3 -c "print(42)"', expect: { regex: '^\\d+$' } },
      { name: 'lt', run: 'echo 12.5', expect: { output_lt: 3600 } },
      { name: 'gt', run: 'echo 7', expect: { output_gt: 10 } },
      { name: 'file', run: 'true', expect: { file_exists: 'dist/app.js' } },
      { name: 'file-missing', run: 'true', expect: { file_exists: 'dist/other.js' } },
      { name: 'not-empty', run: 'ls', expect: { not_empty: true } },
    ]);
    expect(VerificationReport.parse(report)).toEqual(report);
    const passed = Object.fromEntries(report.results.map((result) => [result.name, result.passed]));
    expect(passed).toEqual({
      exit: true,
      'exit-fails': false,
      equals: true,
      contains: true,
      regex: true,
      lt: true,
      gt: false,
      file: true,
      'file-missing': false,
      'not-empty': true,
    });
    expect(report.all_passed).toBe(false);
    expect(report.failed.map((result) => result.name)).toEqual(['exit-fails', 'gt', 'file-missing']);
    expect(report.timestamp).toBe('2026-01-02T03:04:05.000Z');
    expect(report.results[1]).toEqual({ name: 'exit-fails', passed: false, reason: 'Exit code 4, expected 0', output: '', exit_code: 4 });
    expect(report.results[2]).toMatchObject({ output: 'filled\n', exit_code: 0 });
  });

  it('all_passed is true only when every check passes, and for an empty list', async () => {
    const { verify } = runner();
    expect((await verify.runChecks([{ name: 'a', run: 'true', expect: { exit_code: 0 } }])).all_passed).toBe(true);
    expect(await verify.runChecks([])).toMatchObject({ all_passed: true, results: [], failed: [] });
  });

  it('truncates output to 1000 characters while predicates see the whole output', async () => {
    const result = await one({ name: 'long', run: 'python3 -c "print(\'x\' * 5000 + \'END\')"', expect: { contains: 'END' } });
    expect(result.passed).toBe(true);
    expect(result.output).toBe('x'.repeat(1000));
  });

  it('fails a check at its timeout with the reason "Timeout after Ns"', async () => {
    const result = await one({ name: 'slow', run: 'echo begun; sleep 30', timeout: 1, expect: { exit_code: 0 } });
    expect(result).toEqual({ name: 'slow', passed: false, reason: 'Timeout after 1s', output: 'begun\n', exit_code: null });
  });
});

describe('VerificationRunner: the agent cannot influence verification', () => {
  it('runs with only the check environment (fresh HOME, no user config) in the environment (bwrap adds PWD)', async () => {
    process.env.AGENT_SECRET_PROBE = 'leak';
    try {
      const workDir = tempDir();
      const result = await one({ name: 'env', run: '/usr/bin/env', expect: { not_empty: true } }, workDir);
      const expected = Object.entries({ ...checkEnvironment(FRESH_HOME), PWD: workDir }).map(([name, value]) => `${name}=${value}`);
      expect(result.output.trim().split('\n').sort()).toEqual(expected.sort());
    } finally {
      delete process.env.AGENT_SECRET_PROBE;
    }
  });

  it('mounts the work dir read-only: a check cannot modify what it verifies', async () => {
    const workDir = tempDir();
    writeFileSync(join(workDir, 'result.txt'), 'genuine');
    const result = await one({ name: 'tamper', run: 'echo forged > result.txt; touch planted; rm -f result.txt; cat result.txt', expect: { equals: 'genuine' } }, workDir);
    expect(result.passed).toBe(true);
    expect(readFileSync(join(workDir, 'result.txt'), 'utf8')).toBe('genuine');
    expect(readdirSync(workDir)).toEqual(['result.txt']);
  });

  it('gives every check a fresh sandbox: nothing one check leaves in /tmp reaches the next', async () => {
    const { verify } = runner();
    const report = await verify.runChecks([
      { name: 'plant', run: 'echo planted > /tmp/marker && cat /tmp/marker', expect: { equals: 'planted' } },
      { name: 'look', run: 'test -e /tmp/marker', expect: { exit_code: 1 } },
    ]);
    expect(report.all_passed).toBe(true);
  });

  it('cannot read host files outside the work dir and project dirs', async () => {
    const secretDir = tempDir();
    writeFileSync(join(secretDir, 'secret'), 'TOP-SECRET');
    const result = await one({ name: 'peek', run: `cat ${secretDir}/secret; ls /root`, expect: { contains: 'TOP-SECRET' } });
    expect(result.passed).toBe(false);
    expect(result.output).not.toContain('TOP-SECRET');
  });

  it('denies the network unless the check sets network: true', async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.end('up\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const probe = `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), 3); print(s.recv(10).decode().strip())"`;
    try {
      const denied = await one({ name: 'no-net', run: probe, expect: { equals: 'up' } });
      expect(denied.passed).toBe(false);
      expect(connections).toBe(0);
      const allowed = await one({ name: 'net', run: probe, network: true, expect: { equals: 'up' } });
      expect(allowed.passed).toBe(true);
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });
});

describe('VerificationRunner: file_exists confinement', () => {
  it('rejects "..", outside absolute paths and escaping symlinks with a reason, without running the command', async () => {
    const workDir = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'id_rsa'), 'key');
    symlinkSync(outside, join(workDir, 'ssh'));
    const { verify } = runner(workDir);
    const report = await verify.runChecks([
      { name: 'absolute', run: 'echo ran', expect: { file_exists: '/etc/passwd' } },
      { name: 'symlink', run: 'echo ran', expect: { file_exists: 'ssh/id_rsa' } },
    ]);
    expect(report.results[0]).toEqual({ name: 'absolute', passed: false, reason: 'Path "/etc/passwd" is outside the permitted directories', output: '', exit_code: null });
    expect(report.results[1]).toMatchObject({ passed: false, reason: expect.stringContaining('symlink outside the permitted directories'), output: '' });
    // `..` is already refused by the Expectation schema; the runner reports it as an invalid check.
    const dotdot = await verify.runChecks([{ name: 'dotdot', run: 'echo ran', expect: { file_exists: '../x' } }]);
    expect(dotdot.results[0]).toMatchObject({ passed: false, reason: expect.stringContaining('".."'), exit_code: null, output: '' });
  });

  it('permits absolute paths inside a configured project directory', async () => {
    const workDir = tempDir();
    const project = tempDir();
    writeFileSync(join(project, 'built.txt'), 'ok');
    const verify = new VerificationRunner({ sandboxManager, workDir, projectDirs: [project] });
    const report = await verify.runChecks([
      { name: 'in-project', run: `cat ${project}/built.txt`, expect: { file_exists: join(project, 'built.txt') } },
      { name: 'readable', run: `cat ${project}/built.txt`, expect: { equals: 'ok' } },
    ]);
    expect(report.all_passed).toBe(true);
  });
});

describe('VerificationRunner: fails closed', () => {
  it('fails every check with E_SANDBOX_NETWORK_UNAVAILABLE when bubblewrap is missing', async () => {
    const missing = new BubblewrapSandboxManager({ baseDir: tempDir(), bwrapPath: '/nonexistent/bwrap' });
    const verify = new VerificationRunner({ sandboxManager: missing, workDir: tempDir() });
    const report = await verify.runChecks([{ name: 'would-pass', run: 'true', expect: { exit_code: 0 } }]);
    expect(report.all_passed).toBe(false);
    expect(report.results[0]).toMatchObject({ passed: false, exit_code: null });
    expect(report.results[0]!.reason).toMatch(/^E_SANDBOX_NETWORK_UNAVAILABLE: .*apt-get install bubblewrap/);
  });

  it('fails an invalid check (two predicates) with a reason naming the field, and a missing work dir', async () => {
    const { verify } = runner();
    const report = await verify.runChecks([{ name: 'double', run: 'true', expect: { exit_code: 0, contains: 'x' } }]);
    expect(report.results[0]).toMatchObject({ name: 'double', passed: false });
    expect(report.results[0]!.reason).toMatch(/^Invalid check: verify\.0\.expect: exactly one predicate/);
    const gone = new VerificationRunner({ sandboxManager, workDir: join(tempDir(), 'missing') });
    const result = (await gone.runChecks([{ name: 'x', run: 'true', expect: { exit_code: 0 } }])).results[0]!;
    expect(result.passed).toBe(false);
    expect(result.reason).toMatch(/^E_SANDBOX_PATH_INVALID: .*does not exist/);
    expect(() => new VerificationRunner({ sandboxManager, workDir: 'relative/work' })).toThrow(/must be an absolute path/);
  });
});
