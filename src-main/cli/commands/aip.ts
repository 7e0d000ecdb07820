import { existsSync } from 'node:fs';
import { printConformanceReport } from './conformance-report.js';
import { runConformance } from '../../aip/conformance/runner.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand } from '../io.js';

const usage = `Usage: silas aip conformance PATH… [--json] [--verbose]

Runs AIP conformance vectors (the upstream YAML suites) from the files or folders given.
Identity and server suites are reported as skipped until identity tokens land. Vectors that
contradict the specification's text are skipped with their reason (docs/conformance.md).
Exit 0 when no vector failed, 1 otherwise.

Options:
  --json      print {"total","passed","failed","skipped","results":[{"id","file","status","reason"}]}
  --verbose   list every vector, not only failures and skips`;

async function conformance(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, verbose: { type: 'boolean' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('aip conformance: give at least one vector file or folder, e.g. ../shared/conformance/aip', usage);
  const missing = positionals.filter((p) => !existsSync(p));
  if (missing.length > 0) throw new UsageError(`aip conformance: no such file or folder: ${missing.join(', ')}`, usage);
  return printConformanceReport(io, 'AIP', runConformance(positionals), values);
}

export const aipCommand: Command = {
  name: 'aip',
  usage,
  run: (argv, io, open) => runSubcommand('aip', usage, { conformance }, argv, io, open),
};
