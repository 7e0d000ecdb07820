import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BubblewrapSandboxManager } from '../../sandbox/index.js';
import { runSilas, runSilasChild } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import type { CliIo } from '../io.js';
import { createVerifyCommand } from './verify.js';
import { commandOpener } from '../../app/cli-context.js';

const tempDir = useTempDirs('silas-verify-cli-');
const FIXTURES = join(import.meta.dirname, '../../silas/work/fixtures');

const silas = (argv: string[]) => runSilasChild(argv);

function plan(id: string, checks: string[]): string {
  const file = join(tempDir(), `${id}.md`);
  writeFileSync(file, ['---', `id: ${id}`, 'type: task', `title: ${id}`, ...(checks.length > 0 ? ['verify:', ...checks] : []), '---', 'Checks only.', ''].join('\n'));
  return file;
}

/** A plan whose checks pass only in a work dir holding build/report.txt saying "ok". */
const PASSING = [
  '  - name: report_exists',
  '    run: "test -f build/report.txt"',
  '    expect: { exit_code: 0 }',
  '  - name: report_says_ok',
  '    run: "cat build/report.txt"',
  '    expect: { equals: "ok" }',
  '  - name: report_file',
  '    run: "true"',
  '    expect: { file_exists: "build/report.txt" }',
];

/** One check passes, two fail: a wrong exit code with output, and a write into the read-only work dir. */
const FAILING = [
  '  - name: lists_dir',
  '    run: "ls"',
  '    expect: { not_empty: true }',
  '  - name: tests_fail',
  '    run: "echo 3 passed, 1 failed; exit 1"',
  '    expect: { exit_code: 0 }',
  '  - name: tries_to_write',
  '    run: "echo x > build/written.txt"',
  '    expect: { exit_code: 0 }',
];

function workdirWithReport(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, 'build', 'report.txt'), 'ok\n');
  return dir;
}

describe('silas verify (real process, real sandbox)', () => {
  it('passes in a prepared work dir: exit 0, a readable report and the exact --json shape', async () => {
    const file = plan('task-verify-pass', PASSING);
    const dir = workdirWithReport();
    const [text, json] = await Promise.all([silas(['verify', file, '--workdir', dir]), silas(['verify', file, '--workdir', dir, '--json'])]);
    expect(text.err).toBe('');
    expect(text.code).toBe(0);
    expect(text.out.split('\n')).toEqual([
      `Verifying ${file} (task-verify-pass) in ${dir}:`,
      '  PASS  report_exists: Exit code 0 [exit 0]',
      expect.stringMatching(/^ {2}PASS {2}report_says_ok: .* \[exit 0\]$/),
      expect.stringMatching(/^ {2}PASS {2}report_file: .* \[exit 0\]$/),
      '3 checks: 3 passed, 0 failed',
      '',
    ]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out);
    expect(Object.keys(report)).toEqual(['all_passed', 'results']);
    expect(report.all_passed).toBe(true);
    for (const result of report.results) expect(Object.keys(result)).toEqual(['name', 'passed', 'reason', 'output', 'exit_code']);
    expect(report.results[1]).toMatchObject({ name: 'report_says_ok', passed: true, output: 'ok\n', exit_code: 0 });
  });

  it('fails with exit 1 when a check fails, shows the failing output, and the work dir stays read-only', async () => {
    const file = plan('task-verify-fail', FAILING);
    const dir = workdirWithReport();
    const [text, json] = await Promise.all([silas(['verify', file, '--workdir', dir]), silas(['verify', file, '--workdir', dir, '--json'])]);
    expect(text.code).toBe(1);
    const lines = text.out.split('\n');
    expect(lines).toContain('  FAIL  tests_fail: Exit code 1, expected 0 [exit 1]');
    expect(lines).toContain('        | 3 passed, 1 failed');
    expect(lines).toContain('3 checks: 1 passed, 2 failed — NOT verified');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out);
    expect(report.all_passed).toBe(false);
    expect(report.results.map((r: { name: string; passed: boolean }) => [r.name, r.passed])).toEqual([
      ['lists_dir', true],
      ['tests_fail', false],
      ['tries_to_write', false],
    ]);
    expect(report.results[1]).toEqual({ name: 'tests_fail', passed: false, reason: 'Exit code 1, expected 0', output: '3 passed, 1 failed\n', exit_code: 1 });
    expect(existsSync(join(dir, 'build', 'written.txt'))).toBe(false);
  });

  it('defaults to a fresh empty work dir and removes it afterwards', async () => {
    const file = plan('task-verify-empty', ['  - name: empty', '    run: "ls -A | wc -l"', '    expect: { equals: "0" }']);
    const result = await silas(['verify', file]);
    expect(result.code).toBe(0);
    const used = /in (\S+) \(fresh, empty\):/.exec(result.out)?.[1];
    expect(used).toMatch(/silas-verify-/);
    expect(existsSync(used!)).toBe(false);
  });

  it('runs the §13.1 checks, which fail in an empty work dir (no repository there)', async () => {
    const result = await silas(['verify', join(FIXTURES, 'spec-13-1-fix-bug.md'), '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out);
    expect(report.all_passed).toBe(false);
    expect(report.results.map((r: { name: string }) => r.name)).toEqual(['tests_pass', 'lint_clean']);
  });

  it('refuses bad input before running anything: invalid plan, no checks, missing work dir (1); usage (2)', async () => {
    const bad = plan('task-bad', ['  - name: escape', '    run: "true"', '    expect: { file_exists: "../../etc/shadow" }']);
    const none = plan('task-none', []);
    const good = plan('task-good', PASSING);
    const notDir = join(tempDir(), 'file.txt');
    writeFileSync(notDir, 'x');
    const [invalid, noChecks, noChecksJson, missingDir, fileAsDir, missingPlan] = await Promise.all([
      silas(['verify', bad]),
      silas(['verify', none]),
      silas(['verify', none, '--json']),
      silas(['verify', good, '--workdir', join(tempDir(), 'nope')]),
      silas(['verify', good, '--workdir', notDir]),
      silas(['verify', join(tempDir(), 'missing.md')]),
    ]);
    expect(invalid).toMatchObject({ code: 1, out: '' });
    expect(invalid.err).toBe(`${bad}:8: verify[0].expect.file_exists: paths containing ".." are not allowed; name a file inside the work directory\n`);
    expect(noChecks.code).toBe(1);
    expect(noChecks.err).toMatch(/has no verify checks; nothing can be verified/);
    expect(noChecksJson).toMatchObject({ code: 1, out: '{"all_passed":false,"results":[]}\n' });
    expect(missingDir.code).toBe(1);
    expect(missingDir.err).toMatch(/--workdir .*nope does not exist/);
    expect(fileAsDir.err).toMatch(/--workdir .*file\.txt is not a directory/);
    expect(missingPlan.err).toMatch(/^silas verify: cannot read plan .*missing\.md: no such file/);

    const usage = await Promise.all([runSilas(['verify']), runSilas(['verify', good, '--workdir']), runSilas(['verify', good, '--network']), runSilas(['verify', good, good])]);
    expect(usage.map((r) => r.code)).toEqual([2, 2, 2, 2]);
  });
});

describe('silas verify without a usable sandbox', () => {
  function capture(stopSignal?: Promise<string>): { io: CliIo; out: string[]; err: string[] } {
    const out: string[] = [];
    const err: string[] = [];
    return { io: { out: (t) => out.push(t), err: (t) => err.push(t), env: {}, stopSignal }, out, err };
  }

  it('fails every check closed with the sandbox error when bubblewrap is missing', async () => {
    const command = createVerifyCommand({ sandboxManager: (dir) => new BubblewrapSandboxManager({ baseDir: dir, bwrapPath: '/nonexistent/bwrap' }) });
    const file = plan('task-verify-pass', PASSING);
    const dir = workdirWithReport();
    const { io, out } = capture();
    expect(await command.run([file, '--workdir', dir, '--json'], io, commandOpener(io))).toBe(1);
    const report = JSON.parse(out.join('\n'));
    expect(report.all_passed).toBe(false);
    // file_exists is answered on the host, but its command still has to run in a sandbox first.
    for (const result of report.results) {
      expect(result).toMatchObject({ passed: false, exit_code: null, output: '' });
      expect(result.reason).toMatch(/^E_SANDBOX_NETWORK_UNAVAILABLE: Network isolation cannot be enforced: bubblewrap was not found at \/nonexistent\/bwrap/);
    }
  });

  it('stops waiting when the process is asked to stop, and cleans up its fresh work dir', async () => {
    const command = createVerifyCommand();
    const file = plan('task-slow', ['  - name: slow', '    run: "sleep 2"', '    expect: { exit_code: 0 }']);
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('silas-verify-')));
    const { io, err, out } = capture(Promise.resolve('SIGINT'));
    expect(await command.run([file], io, commandOpener(io))).toBe(130);
    expect(err).toEqual(['silas verify: interrupted by SIGINT; nothing was verified']);
    expect(out).toEqual([]);
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith('silas-verify-') && !before.has(name));
    expect(after).toEqual([]);
  });
});
