import { describe, expect, it } from 'vitest';
import type { BenchResult, BenchRow } from '../../store/policy-bench-rows.js';
import { typoDiagnostic } from '../../testing/policy-fixtures.js';
import {
  benchSummary,
  decisionText,
  diffName,
  fileName,
  historyActionLabel,
  markedText,
  openName,
  outcomeText,
  parseArguments,
  parseLast,
  problemText,
  restoreName,
  signatureLabel,
  signatureTone,
  validationText,
  versionsText,
} from './policy-editor-format.js';

const row = (overrides: Partial<BenchRow> = {}): BenchRow => ({
  key: 'r',
  call: 'read_file',
  inForce: 'ALLOW',
  draft: 'ALLOW',
  rule: null,
  dlp: null,
  changed: false,
  expected: null,
  passed: null,
  ...overrides,
});
const result = (kind: BenchResult['kind'], rows: BenchRow[], extra: Partial<BenchResult> = {}): BenchResult => ({ kind, rows, scanned: null, suitePath: null, ...extra });

describe('policy editor text', () => {
  it('names files, their open buttons and their signature', () => {
    expect(fileName('/home/ada/.silas/policies/files.yaml')).toBe('files.yaml');
    expect(fileName('C:\\policies\\web.yaml')).toBe('web.yaml');
    expect(openName('/p/files.yaml')).toBe('Open files.yaml');
    expect(['owner', 'unsigned', 'invalid'].map((s) => signatureLabel(s as 'owner'))).toEqual(['Signed', 'Unsigned', 'Signature invalid']);
    expect(['owner', 'unsigned', 'invalid'].map((s) => signatureTone(s as 'owner'))).toEqual(['ok', 'warn', 'bad']);
    expect([0, 1, 3].map(versionsText)).toEqual(['No saved version', '1 saved version', '3 saved versions']);
  });

  it('writes each problem at its line and column, warnings marked', () => {
    expect(problemText(typoDiagnostic)).toBe('line 6, column 3: unknown key "alowed_tools" in spec (did you mean "allowed_tools"?)');
    expect(problemText({ ...typoDiagnostic, severity: 'warning', message: 'w' })).toBe('line 6, column 3: w (warning)');
    expect([0, 1, 2].map(markedText)).toEqual(['Nothing marked in the editor', '1 problem marked in the editor', '2 problems marked in the editor']);
  });

  it('says whether the draft loads and how long the check took', () => {
    const warning = { ...typoDiagnostic, severity: 'warning' as const };
    expect(validationText(null, false)).toBe('Checking the draft…');
    expect(validationText({ text: '', ok: true, diagnostics: [], hash: 'h', tookMs: 7.23 }, false)).toBe('Loads, checked in 7.2 ms');
    expect(validationText({ text: '', ok: true, diagnostics: [warning], hash: 'h', tookMs: 1 }, false)).toBe('Loads with 1 warning, checked in 1.0 ms');
    expect(validationText({ text: '', ok: false, diagnostics: [typoDiagnostic, typoDiagnostic, warning], hash: null, tookMs: 2 }, false)).toBe(
      'Does not load: 2 errors and 1 warning, checked in 2.0 ms',
    );
    expect(validationText({ text: '', ok: true, diagnostics: [], hash: 'h', tookMs: 1 }, true)).toBe('Checking the draft…');
  });

  it('reads the Arguments box as a JSON object, and Last N as a whole number in range', () => {
    expect(parseArguments('')).toEqual({ ok: true, args: {} });
    expect(parseArguments(' {"path": "/tmp/a"} ')).toEqual({ ok: true, args: { path: '/tmp/a' } });
    expect(parseArguments('{path}')).toMatchObject({ ok: false, message: expect.stringMatching(/^Arguments are not JSON: /) });
    expect(parseArguments('[1]')).toEqual({ ok: false, message: 'Arguments must be a JSON object, e.g. {"path": "/tmp/a.txt"}' });
    expect(parseArguments('null')).toMatchObject({ ok: false });
    expect(['100', ' 1 ', '10000'].map(parseLast)).toEqual([100, 1, 10000]);
    expect(['0', '10001', '2.5', '', 'ten', '-3'].map(parseLast)).toEqual([null, null, null, null, null, null]);
  });

  it('marks results that change and suite verdicts', () => {
    expect(decisionText(null)).toBe('—');
    expect(decisionText('ASK')).toBe('ASK');
    expect(outcomeText(row())).toBe('Same');
    expect(outcomeText(row({ changed: true }))).toBe('Changes');
    expect(outcomeText(row({ passed: true, expected: 'ALLOW' }))).toBe('PASS');
    expect(outcomeText(row({ passed: false, expected: 'ASK', changed: true }))).toBe('FAIL (expected ASK), Changes');
  });

  it('sums up a run above the table', () => {
    expect(benchSummary(result('try', [row()]))).toBe('The draft decides this call as the policy in force does');
    expect(benchSummary(result('try', [row({ changed: true })]))).toBe('The draft decides this call differently');
    expect(benchSummary(result('replay', [], { scanned: 40 }))).toBe('No recorded calls to replay (40 records read)');
    expect(benchSummary(result('replay', [row({ changed: true }), row()], { scanned: 2 }))).toBe('Replayed 2 recorded calls: 1 decision changes');
    expect(benchSummary(result('suite', [row({ passed: true }), row({ passed: false, changed: true }), row({ passed: false, changed: true })], { suitePath: '/p/f.suite.json' }))).toBe(
      'Suite /p/f.suite.json: 1 passed, 2 failed; 2 decisions change',
    );
  });

  it('labels history actions and the per-version buttons', () => {
    expect((['save', 'restore', 'adopt'] as const).map(historyActionLabel)).toEqual(['Saved', 'Restored', 'Adopted']);
    expect(restoreName(3)).toBe('Restore version 3');
    expect(diffName(3)).toBe('Diff version 3');
  });
});
