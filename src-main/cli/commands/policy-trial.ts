import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { parseSuite } from '../../aip/trial/suite.js';
import { replay, runSuite, type ReplayResult, type SuiteResult, type TrialOutcome } from '../../aip/trial/trial.js';
import type { AgentPolicy } from '../../aip/policy/types.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { resolveHome } from '../../home/paths.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo } from '../io.js';
import { formatPolicyError, keyFlags, loadForCli } from './policy-loading.js';
import { terminalSafe } from './plan.js';

/*
 * `silas policy test` and `silas policy replay`: the cockpit's test bench from the terminal
 * (docs/policy-editor.md "Test bench"). A draft is evaluated beside the policy in force; exit 1
 * when an expectation fails (test) or when a recorded call would be decided differently (replay).
 */

export const policyTestUsage = `Usage: silas policy test --policy DRAFT --suite FILE [--current POLICY] [--json]

Runs a test suite ({"calls": [{"name","tool","args","expect"}…]}, JSON) against the draft and
prints, per call, the expected decision, the draft's, the rule that decided, DLP matches and the
rate-limit state; with --current, also the decision of the policy in force and whether it changes.
Exit 0 when every call gets its expected decision, 1 otherwise or when a file does not load.`;

export const policyReplayUsage = `Usage: silas policy replay --policy DRAFT --server NAME [--last N] [--current POLICY] [--home DIR] [--json]

Replays the last N tool calls (default 100) that the proxy of server NAME decided, from the audit
chain of the data home (arguments as recorded, DLP-redacted where they were), under the draft,
and shows every call whose decision would change. Exit 0 when none changes, 1 otherwise.`;

const MAX_LAST = 100_000;

async function loadPolicy(usage: string, file: string, values: Record<string, unknown>, io: CliIo, open: OpenForCommand): Promise<AgentPolicy | null> {
  const loaded = await loadForCli(usage, file, values as Parameters<typeof loadForCli>[2], io, open);
  if (!loaded.ok) {
    for (const error of loaded.errors) io.err(formatPolicyError(file, error));
    io.err(`${file}: does not load; fix the errors above (\`silas policy validate ${file}\`)`);
    return null;
  }
  return loaded.policy;
}

function describe(outcome: TrialOutcome): string {
  const parts: string[] = [outcome.decision];
  if (outcome.rule) parts.push(`rule ${outcome.rule}`);
  if (outcome.dlp.rules.length > 0) parts.push(`DLP ${outcome.dlp.action}: ${outcome.dlp.rules.join(', ')}`);
  if (outcome.rateLimitRemaining !== null) parts.push(`${outcome.rateLimitRemaining} left in the rate-limit window`);
  return parts.join(' · ');
}

export async function policyTest(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { ...keyFlags, policy: { type: 'string' }, suite: { type: 'string' }, current: { type: 'string' }, json: { type: 'boolean' } }, policyTestUsage);
  if (values.help) {
    io.out(policyTestUsage);
    return 0;
  }
  if (!values.policy) throw new UsageError('--policy DRAFT is required', policyTestUsage);
  if (!values.suite) throw new UsageError('--suite FILE is required', policyTestUsage);
  let text: string;
  try {
    text = readFileSync(values.suite, 'utf8');
  } catch (error) {
    io.err(`${values.suite}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return 1;
  }
  const suite = parseSuite(text, values.suite);
  if (!suite.ok) {
    io.err(suite.problem);
    return 1;
  }
  const draft = await loadPolicy(policyTestUsage, values.policy, values, io, open);
  if (!draft) return 1;
  const current = values.current ? await loadPolicy(policyTestUsage, values.current, values, io, open) : null;
  if (values.current && !current) return 1;
  const results = runSuite(suite.suite, draft, current, { homeDir: homedir(), cwd: process.cwd() });
  const failed = results.filter((result) => !result.passed).length;
  if (values.json) io.out(JSON.stringify({ passed: results.length - failed, failed, results }));
  else printSuite(io, results, failed);
  return failed === 0 ? 0 : 1;
}

function printSuite(io: CliIo, results: SuiteResult[], failed: number): void {
  for (const result of results) {
    const mark = result.passed ? 'PASS' : 'FAIL';
    const current = result.current ? `  (in force: ${result.current.decision}${result.changed ? ', CHANGES' : ''})` : '';
    io.out(`${mark}  ${terminalSafe(result.name)}: expected ${result.expected}, draft ${terminalSafe(describe(result.draft))}${current}`);
    if (!result.passed) io.out(`      ${terminalSafe(result.draft.reason)}`);
  }
  io.out(`${results.length - failed} passed, ${failed} failed`);
}

export async function policyReplay(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { ...keyFlags, policy: { type: 'string' }, server: { type: 'string' }, last: { type: 'string' }, current: { type: 'string' }, json: { type: 'boolean' } }, policyReplayUsage);
  if (values.help) {
    io.out(policyReplayUsage);
    return 0;
  }
  if (!values.policy) throw new UsageError('--policy DRAFT is required', policyReplayUsage);
  if (!values.server) throw new UsageError('--server NAME is required (the name its proxy records, `silas proxy --name`)', policyReplayUsage);
  const last = values.last === undefined ? 100 : Number(values.last);
  if (!Number.isInteger(last) || last < 1 || last > MAX_LAST) throw new UsageError(`--last: expected a whole number from 1 to ${MAX_LAST}, got "${values.last}"`, policyReplayUsage);
  const draft = await loadPolicy(policyReplayUsage, values.policy, values, io, open);
  if (!draft) return 1;
  const current = values.current ? await loadPolicy(policyReplayUsage, values.current, values, io, open) : null;
  if (values.current && !current) return 1;
  const home = resolveHome(values.home, io.env);
  const { calls, scanned } = (await (await open(home)).database()).recordedCalls(values.server, last);
  if (calls.length === 0) {
    io.err(`no recorded tool calls of server "${terminalSafe(values.server)}" in ${home} (${scanned} entries read); check --server against the names on the Servers page`);
    return 1;
  }
  const results = replay(calls, draft, current, { homeDir: homedir(), cwd: process.cwd(), dataHome: home });
  const changed = results.filter((result) => result.changed).length;
  if (values.json) io.out(JSON.stringify({ replayed: results.length, changed, results }));
  else printReplay(io, results, changed);
  return changed === 0 ? 0 : 1;
}

function printReplay(io: CliIo, results: ReplayResult[], changed: number): void {
  for (const result of results) {
    if (!result.changed) continue;
    const { call } = result;
    io.out(`CHANGES  #${call.index} ${call.ts} ${terminalSafe(call.tool)}: recorded ${call.recorded}, draft ${terminalSafe(describe(result.draft))}`);
    io.out(`      ${terminalSafe(result.draft.reason)}`);
  }
  io.out(`${results.length} recorded call(s) replayed; ${changed} would be decided differently`);
}
