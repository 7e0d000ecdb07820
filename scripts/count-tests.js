#!/usr/bin/env node
// Sums the runners' own JSON reports into the closing line CI reads. A report that is missing
// (its runner crashed before writing it) counts as a failure, never as zero tests.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let missing = false;

for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`count-tests: no report at ${file}; its runner did not finish`);
    missing = true;
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  if ('numPassedTests' in report) {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  } else if (report.stats) {
    passed += report.stats.expected + (report.stats.flaky ?? 0);
    failed += report.stats.unexpected;
    skipped += report.stats.skipped ?? 0;
  } else {
    console.error(`count-tests: ${file} is not a vitest or playwright JSON report`);
    missing = true;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || missing ? 1 : 0);
