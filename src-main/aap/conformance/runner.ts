import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readJsonFile } from '../files.js';
import { CaseFailure, checkCard, checkCoherenceCase, checkDrift, checkRecordedCoherence, checkSchema, checkTraces, checkVerify, type CaseContext } from './checks.js';
import { EXPECTED, type Expectation } from './expected.js';

/*
 * `silas aap conformance DIR`: every JSON file under DIR against the expected outputs in
 * expected.ts. A file we know nothing about is reported as skipped, a file we expect but cannot
 * find as failed, so a changed data folder never passes silently.
 */

type CaseStatus = 'passed' | 'failed' | 'skipped';

interface CaseResult {
  id: string;
  file: string;
  status: CaseStatus;
  reason: string;
}

export interface AapConformanceReport {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  results: CaseResult[];
}

/** The time card expiry and issuance are judged at: after every card in the data was issued. */
const CONFORMANCE_NOW = new Date('2026-03-01T00:00:00Z');

function jsonFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return jsonFiles(path);
      return name.endsWith('.json') ? [path] : [];
    });
}

function caseId(expectation: Expectation): string {
  if (expectation.kind === 'coherence') return expectation.id;
  if (expectation.kind === 'card' && expectation.member) return `card:${expectation.member}`;
  return expectation.kind === 'skip' ? 'data' : expectation.kind;
}

function runCase(document: unknown, expectation: Expectation, context: CaseContext): { status: CaseStatus; reason: string } {
  switch (expectation.kind) {
    case 'skip':
      return { status: 'skipped', reason: expectation.reason };
    case 'schema':
      return { status: 'passed', reason: checkSchema(document) };
    case 'card':
      return { status: 'passed', reason: checkCard(document, expectation, context) };
    case 'traces':
      return { status: 'passed', reason: checkTraces(document, expectation) };
    case 'verify':
      return { status: 'passed', reason: checkVerify(document, expectation, context) };
    case 'drift':
      return { status: 'passed', reason: checkDrift(document, expectation, context) };
    case 'coherence':
      return { status: 'passed', reason: checkCoherenceCase(document, expectation, context) };
    case 'recorded-coherence':
      return { status: 'passed', reason: checkRecordedCoherence(document, expectation, context) };
  }
}

export function runAapConformance(dir: string, now: Date = CONFORMANCE_NOW): AapConformanceReport {
  const context: CaseContext = { root: dir, now };
  const results: CaseResult[] = [];
  const seen = new Set<string>();
  for (const path of jsonFiles(dir)) {
    const file = relative(dir, path).split(sep).join('/');
    seen.add(file);
    const expectations = Object.hasOwn(EXPECTED, file) ? EXPECTED[file]! : null;
    if (!expectations) {
      results.push({ id: 'data', file, status: 'skipped', reason: 'no expected output is known for this file' });
      continue;
    }
    let document: unknown;
    try {
      document = readJsonFile(path);
    } catch (error) {
      for (const expectation of expectations) results.push({ id: caseId(expectation), file, status: 'failed', reason: (error as Error).message });
      continue;
    }
    for (const expectation of expectations) {
      try {
        results.push({ id: caseId(expectation), file, ...runCase(document, expectation, context) });
      } catch (error) {
        const reason = error instanceof CaseFailure ? error.message : `error: ${(error as Error).message}`;
        results.push({ id: caseId(expectation), file, status: 'failed', reason });
      }
    }
  }
  for (const [file, expectations] of Object.entries(EXPECTED)) {
    if (seen.has(file)) continue;
    for (const expectation of expectations) results.push({ id: caseId(expectation), file, status: 'failed', reason: `missing from ${dir}` });
  }
  const count = (status: CaseStatus) => results.filter((r) => r.status === status).length;
  return { total: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), results };
}
