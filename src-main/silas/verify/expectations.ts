import RE2 from 're2';
import type { Expectation } from '../../../src-shared/silas/work.js';

export interface CheckOutcome {
  stdout: string;
  exitCode: number | null;
}

export interface Verdict {
  passed: boolean;
  reason: string;
}

/** Answers `file_exists` within the permitted directories, or says why the path was refused. */
export type FileExistsLookup = (path: string) => { ok: true; exists: boolean } | { ok: false; reason: string };

/** Python's float() accepts surrounding whitespace, signs, decimals and exponents; so do we (no inf/nan). */
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function quote(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

function parseNumber(stdout: string): number | null {
  const text = stdout.trim();
  return FLOAT.test(text) ? Number(text) : null;
}

/**
 * Evaluates one Expectation (§5.3 step 3) against what the check printed and its exit code.
 * `equals`, `output_lt`/`output_gt` and `not_empty` look at stdout with surrounding whitespace
 * removed (a command's trailing newline must not fail `equals: "ok"`); `contains` and `regex`
 * see stdout as printed. Only `exit_code` looks at the exit code.
 */
export function evaluateExpectation(expect: Expectation, outcome: CheckOutcome, fileExists: FileExistsLookup): Verdict {
  const { stdout, exitCode } = outcome;
  if (expect.exit_code !== null) {
    const passed = exitCode === expect.exit_code;
    return { passed, reason: passed ? `Exit code ${exitCode}` : `Exit code ${exitCode ?? 'none'}, expected ${expect.exit_code}` };
  }
  if (expect.equals !== null) {
    const passed = stdout.trim() === expect.equals;
    return { passed, reason: passed ? 'Output equals the expected value' : `Output ${quote(stdout.trim())} does not equal ${quote(expect.equals)}` };
  }
  if (expect.contains !== null) {
    const passed = stdout.includes(expect.contains);
    return { passed, reason: passed ? `Output contains ${quote(expect.contains)}` : `Output does not contain ${quote(expect.contains)}` };
  }
  if (expect.regex !== null) {
    let pattern: RE2;
    try {
      pattern = new RE2(expect.regex, 'u');
    } catch (error) {
      return { passed: false, reason: `Invalid regex ${quote(expect.regex)}: ${(error as Error).message}` };
    }
    // Python's `$` also matches just before a final newline, and commands end their output with
    // one; RE2's `$` does not, so the text without that newline is tried as well.
    const passed = pattern.test(stdout) || (stdout.endsWith('\n') && pattern.test(stdout.slice(0, -1)));
    return { passed, reason: passed ? `Output matches ${quote(expect.regex)}` : `Output does not match ${quote(expect.regex)}` };
  }
  if (expect.output_lt !== null || expect.output_gt !== null) {
    const value = parseNumber(stdout);
    if (value === null) return { passed: false, reason: `Output ${quote(stdout.trim())} is not a number` };
    if (expect.output_lt !== null) {
      const passed = value < expect.output_lt;
      return { passed, reason: `Output ${value} is ${passed ? '' : 'not '}less than ${expect.output_lt}` };
    }
    const passed = value > expect.output_gt!;
    return { passed, reason: `Output ${value} is ${passed ? '' : 'not '}greater than ${expect.output_gt}` };
  }
  if (expect.file_exists !== null) {
    const lookup = fileExists(expect.file_exists);
    if (!lookup.ok) return { passed: false, reason: lookup.reason };
    return { passed: lookup.exists, reason: lookup.exists ? `File ${quote(expect.file_exists)} exists` : `File ${quote(expect.file_exists)} not found` };
  }
  if (expect.not_empty) {
    const passed = stdout.trim().length > 0;
    return { passed, reason: passed ? 'Output is not empty' : 'Output is empty' };
  }
  return { passed: true, reason: 'No expectation' };
}
