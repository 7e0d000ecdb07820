import { describe, expect, it } from 'vitest';
import { Expectation, type ExpectationInput } from '../../../src-shared/silas/work.js';
import { evaluateExpectation, type FileExistsLookup } from './expectations.js';

const noFiles: FileExistsLookup = () => ({ ok: true, exists: false });

function verdict(input: ExpectationInput, stdout: string, exitCode: number | null = 0, files: FileExistsLookup = noFiles) {
  return evaluateExpectation(Expectation.parse(input), { stdout, exitCode }, files);
}

describe('evaluateExpectation', () => {
  it('exit_code compares the exit status, and a killed process has none', () => {
    expect(verdict({ exit_code: 0 }, '', 0)).toEqual({ passed: true, reason: 'Exit code 0' });
    expect(verdict({ exit_code: 0 }, '', 2)).toEqual({ passed: false, reason: 'Exit code 2, expected 0' });
    expect(verdict({ exit_code: 0 }, '', null).passed).toBe(false);
    expect(verdict({ exit_code: 3 }, '', 3).passed).toBe(true);
  });

  it('equals compares stdout without surrounding whitespace, exactly otherwise', () => {
    expect(verdict({ equals: 'filled' }, 'filled\n').passed).toBe(true);
    expect(verdict({ equals: 'filled' }, 'Filled\n')).toEqual({ passed: false, reason: 'Output "Filled" does not equal "filled"' });
    expect(verdict({ equals: 'ok' }, 'ok ok').passed).toBe(false);
  });

  it('contains is a substring match on stdout', () => {
    expect(verdict({ contains: '3 passed' }, '==== 3 passed in 0.1s ====').passed).toBe(true);
    expect(verdict({ contains: 'passed' }, 'FAILED').passed).toBe(false);
  });

  it('regex searches stdout (re.search semantics: unanchored) through RE2', () => {
    expect(verdict({ regex: '\\d+ passed' }, 'tests: 12 passed, 0 failed').passed).toBe(true);
    expect(verdict({ regex: '^passed$' }, 'all passed').passed).toBe(false);
    expect(verdict({ regex: '(?i)OK' }, 'status ok').passed).toBe(true);
    // Like Python's `$`, which also matches before the final newline a command prints.
    expect(verdict({ regex: '^\\d+$' }, '42\n').passed).toBe(true);
    expect(verdict({ regex: '^\\d+$' }, '42\n\n').passed).toBe(false);
  });

  it('a regex RE2 cannot compile fails with a reason instead of throwing', () => {
    const result = verdict({ regex: '(a)\\1' }, 'aa');
    expect(result.passed).toBe(false);
    expect(result.reason).toMatch(/^Invalid regex/);
  });

  it('output_lt and output_gt parse stdout as a float', () => {
    expect(verdict({ output_lt: 3600 }, '12.5\n')).toEqual({ passed: true, reason: 'Output 12.5 is less than 3600' });
    expect(verdict({ output_lt: 3600 }, '3600').passed).toBe(false);
    expect(verdict({ output_gt: 0.5 }, ' 1e0 ').passed).toBe(true);
    expect(verdict({ output_gt: 10 }, '-3').passed).toBe(false);
    expect(verdict({ output_lt: 1 }, 'NaN')).toEqual({ passed: false, reason: 'Output "NaN" is not a number' });
    expect(verdict({ output_gt: 1 }, '').passed).toBe(false);
  });

  it('not_empty ignores whitespace-only output', () => {
    expect(verdict({ not_empty: true }, 'x').passed).toBe(true);
    expect(verdict({ not_empty: true }, ' \n\t').passed).toBe(false);
  });

  it('file_exists asks the confined lookup and passes on its refusal reason', () => {
    const files: FileExistsLookup = (path) => (path === 'out.txt' ? { ok: true, exists: true } : { ok: false, reason: 'outside' });
    expect(verdict({ file_exists: 'out.txt' }, '', 1, files)).toEqual({ passed: true, reason: 'File "out.txt" exists' });
    expect(verdict({ file_exists: 'missing.txt' }, '', 0, noFiles)).toEqual({ passed: false, reason: 'File "missing.txt" not found' });
    expect(verdict({ file_exists: '/etc/passwd' }, '', 0, files)).toEqual({ passed: false, reason: 'outside' });
  });
});
