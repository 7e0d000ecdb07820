import type { CliIo } from '../io.js';

/** What every conformance runner returns (`silas aip|aap conformance --json` prints it as is). */
export interface ConformanceReport {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  results: ReadonlyArray<{ id: string; file: string; status: string; reason?: string | undefined }>;
}

/** Prints a conformance report (failures and skips, every case with --verbose) and returns the exit code: 1 when a case failed. */
export function printConformanceReport(io: CliIo, protocol: string, report: ConformanceReport, options: { json?: boolean | undefined; verbose?: boolean | undefined }): number {
  if (options.json) {
    io.out(JSON.stringify(report));
  } else {
    for (const r of report.results) {
      if (r.status === 'passed' && !options.verbose) continue;
      io.out(`${r.status.toUpperCase().padEnd(7)} ${r.file}#${r.id}${r.reason ? `: ${r.reason}` : ''}`);
    }
    io.out(`${protocol} conformance: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped of ${report.total}`);
  }
  return report.failed > 0 ? 1 : 0;
}
