import type { GateExpectation } from '../../../src-shared/silas/gates.js';
import { checkFile } from './paths.js';
import { compileRegex, parseNumber } from './predicate-provider.js';

/**
 * `check_expect` of a script gate (spec 002 §5.5.4 step 3): the Expectation predicates of the
 * verification runner, applied to the script's trimmed stdout and exit code. Compiled once per gate.
 */

interface ScriptOutcome {
  stdout: string;
  exitCode: number | null;
}

export type ExpectationCheck = (outcome: ScriptOutcome) => Promise<{ passed: boolean; reason: string }>;

const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 80)}…` : text);

export function compileExpectation(gateName: string, expect: GateExpectation, fileRoots: readonly string[]): ExpectationCheck {
  const result = (passed: boolean, reason: string) => ({ passed, reason });
  if (expect.regex !== null) {
    const regex = compileRegex(gateName, 'check_expect.regex', expect.regex);
    return async ({ stdout }) => (regex.test(stdout.trim()) ? result(true, 'Output matches the pattern') : result(false, 'Output does not match the pattern'));
  }
  if (expect.exit_code !== null) {
    const want = expect.exit_code;
    return async ({ exitCode }) => (exitCode === want ? result(true, `Exit code ${want}`) : result(false, `Expected exit code ${want}, got ${exitCode ?? 'none'}`));
  }
  if (expect.equals !== null) {
    const want = expect.equals;
    return async ({ stdout }) => (stdout.trim() === want ? result(true, 'Output equals the expected value') : result(false, `Expected "${clip(want)}", got "${clip(stdout.trim())}"`));
  }
  if (expect.contains !== null) {
    const want = expect.contains;
    return async ({ stdout }) => (stdout.includes(want) ? result(true, 'Output contains the expected text') : result(false, `Output does not contain "${clip(want)}"`));
  }
  if (expect.output_lt !== null || expect.output_gt !== null) {
    const [bound, below] = expect.output_lt !== null ? [expect.output_lt, true] : [expect.output_gt!, false];
    return async ({ stdout }) => {
      const n = parseNumber(stdout.trim());
      if (n === null) return result(false, 'Output is not numeric');
      const ok = below ? n < bound : n > bound;
      return result(ok, `Output ${n} ${ok ? 'is' : 'is not'} ${below ? 'less' : 'greater'} than ${bound}`);
    };
  }
  if (expect.file_exists !== null) {
    const path = expect.file_exists;
    return async () => {
      const file = await checkFile(path, fileRoots);
      return file.ok ? result(true, 'File exists') : result(false, file.reason);
    };
  }
  // The schema guarantees exactly one predicate, so this is not_empty: true.
  return async ({ stdout }) => (stdout.trim().length > 0 ? result(true, 'Output is not empty') : result(false, 'Output is empty'));
}
