import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { VerificationReport } from '../../../src-shared/silas/execution.js';
import { BubblewrapSandboxManager, type SandboxManager } from '../../sandbox/index.js';
import { VerificationRunner } from '../../silas/verify/index.js';
import { parseFlags } from '../args.js';
import type { CliIo, Command } from '../io.js';
import { onePlanFile, readPlanFile, reportPlanRefusal, terminalSafe } from './plan.js';

const usage = `Usage: silas verify FILE [--workdir DIR] [--json]

  Run only the verify checks of a Silas plan (spec 002 §4.10), each in a fresh sandbox of its own
  with the work directory mounted read-only, an empty private HOME, the system PATH, no Python
  user site or cwd on sys.path, no git/pip user configuration, and the network denied unless
  the check says network: true. Nothing else in the plan runs.
  Exit 0 only when every check passed; 1 when one failed, the plan is invalid or has no checks.

Options:
  --workdir DIR   the task's work directory the checks look at (default: a fresh empty
                  directory, removed afterwards)
  --json          print {"all_passed","results":[{"name","passed","reason","output","exit_code"}]}
  -h, --help      show this help

Checks fail closed when the sandbox (bubblewrap) is unavailable, or when the run's aggregate
process and memory limits (cgroups) cannot be enforced: their reason says why.`;

export interface VerifyCommandDeps {
  /** The sandbox each check runs in; tests swap in one whose bubblewrap is missing. */
  sandboxManager?: (workDir: string) => SandboxManager;
}

/** The `--json` shape of the issue: the report without `failed` and `timestamp`, fields in this order. */
export function verifyJson(report: VerificationReport): { all_passed: boolean; results: VerificationReport['results'] } {
  return {
    all_passed: report.all_passed,
    results: report.results.map((r) => ({ name: r.name, passed: r.passed, reason: r.reason, output: r.output, exit_code: r.exit_code })),
  };
}

export function formatReport(report: VerificationReport): string[] {
  const lines: string[] = [];
  for (const result of report.results) {
    const exit = result.exit_code === null ? '' : ` [exit ${result.exit_code}]`;
    lines.push(`  ${result.passed ? 'PASS' : 'FAIL'}  ${terminalSafe(result.name)}: ${terminalSafe(result.reason)}${exit}`);
    if (!result.passed && result.output.trim() !== '') {
      for (const line of terminalSafe(result.output.trimEnd(), true).split('\n')) lines.push(`        | ${line}`);
    }
  }
  const failed = report.results.filter((r) => !r.passed).length;
  const total = report.results.length;
  lines.push(`${total} check${total === 1 ? '' : 's'}: ${total - failed} passed, ${failed} failed${report.all_passed ? '' : ' — NOT verified'}`);
  return lines;
}

/** Resolves `--workdir`: it must name an existing directory; symlinks are resolved to what gets mounted. */
function existingDirectory(dir: string): { ok: true; path: string } | { ok: false; message: string } {
  try {
    const path = realpathSync(resolve(dir));
    if (!statSync(path).isDirectory()) return { ok: false, message: `--workdir ${dir} is not a directory` };
    return { ok: true, path };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, message: code === 'ENOENT' ? `--workdir ${dir} does not exist; create it or leave --workdir out for a fresh empty one` : `--workdir ${dir}: ${(error as Error).message}` };
  }
}

export function createVerifyCommand(deps: VerifyCommandDeps = {}): Command {
  const makeSandboxManager = deps.sandboxManager ?? ((workDir: string) => new BubblewrapSandboxManager({ baseDir: workDir }));

  async function run(argv: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseFlags(argv, { workdir: { type: 'string' }, json: { type: 'boolean' } }, usage, true);
    if (values.help) {
      io.out(usage);
      return 0;
    }
    const file = onePlanFile(positionals, 'verify', usage);
    const json = values.json === true;
    const plan = readPlanFile(file);
    if (!plan.ok) return reportPlanRefusal(plan, json, io, 'silas verify');
    const item = plan.item;
    if (item.verify.length === 0) {
      // Verifying nothing is not a pass: a script reading the exit code must not see success.
      io.err(`silas verify: ${terminalSafe(file)} has no verify checks; nothing can be verified (add a verify: list to the plan)`);
      if (json) io.out(JSON.stringify({ all_passed: false, results: [] }));
      return 1;
    }

    let workDir: string;
    let temporary = false;
    if (values.workdir !== undefined) {
      const dir = existingDirectory(values.workdir);
      if (!dir.ok) {
        io.err(`silas verify: ${terminalSafe(dir.message)}`);
        return 1;
      }
      workDir = dir.path;
    } else {
      workDir = realpathSync(mkdtempSync(join(tmpdir(), 'silas-verify-')));
      temporary = true;
    }
    try {
      const runner = new VerificationRunner({ sandboxManager: makeSandboxManager(workDir), workDir });
      // `main` turns SIGINT/SIGTERM into io.stopSignal instead of exiting, so a long check must not hold the process.
      const stopped = io.stopSignal?.then((signal) => ({ signal }));
      const outcome = await Promise.race([runner.runChecks(item.verify).then((report) => ({ report })), ...(stopped ? [stopped] : [])]);
      if ('signal' in outcome) {
        io.err(`silas verify: interrupted by ${outcome.signal}; nothing was verified`);
        return 130;
      }
      const { report } = outcome;
      if (json) {
        io.out(JSON.stringify(verifyJson(report)));
      } else {
        io.out(`Verifying ${terminalSafe(file)} (${terminalSafe(item.id)}) in ${terminalSafe(workDir)}${temporary ? ' (fresh, empty)' : ''}:`);
        for (const line of formatReport(report)) io.out(line);
      }
      return report.all_passed ? 0 : 1;
    } finally {
      if (temporary) rmSync(workDir, { recursive: true, force: true });
    }
  }

  return { name: 'verify', usage, run };
}

export const verifyCommand: Command = createVerifyCommand();
