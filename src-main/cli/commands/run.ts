import { mkdtempSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ErrorCode, isSilasError } from '../../../src-shared/errors.js';
import type { ApprovalToken } from '../../../src-shared/silas/approval.js';
import { formatBudgetUsage, type WorkItem, type WorkItemResult } from '../../../src-shared/silas/work.js';
import { openRunSession, type RunSession } from '../../app/compose-run.js';
import { resolveHome } from '../../home/paths.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import type { RecordingAuditLog } from '../../silas/executor/audit.js';
import { ScriptParseError } from '../../silas/executor/scripted-agent.js';
import type { PlanApprover } from '../../silas/executor/plan-approver.js';
import { planApproverForHome } from '../../control/socket-asker.js';
import type { SandboxManager } from '../../sandbox/index.js';
import { planHash } from '../../silas/work/hashes.js';
import { planIdConflict, planIdRefusal } from '../../silas/store/plan-ids.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command } from '../io.js';
import { planApprovalCard } from '../../review/kinds/plan-card.js';
import { fileExistsOutside } from '../../silas/verify/file-confinement.js';
import { formatPlanCard, onePlanFile, readPlanFile, terminalSafe } from './plan.js';
import { parseAgentSpec, resolveAgent, type AgentSpec } from './run-agent.js';
import { APPROVE_HERE_NEEDS_TERMINAL, controllingTerminal, type ApprovalTerminalSource } from './approval-terminal.js';

const usage = `Usage: silas run FILE --agent llm|script:CALLS.json [--approve-here] [--home DIR] [--workdir DIR] [--json]

  Run a Silas task plan (spec 002 §5.2): show the plan, obtain an owner-signed approval bound to
  its plan hash, execute the agent's tool calls in the sandbox (network denied), then let only the
  plan's verify checks, run outside that sandbox, decide the outcome.
  Exit 0 only when the task is done; 1 when it was refused, declined, blocked, stuck or failed.

Options:
  --agent llm                the agent: the executor role's model (\`silas models set executor
                             …\`), answering one JSON turn at a time (a tool call, a step
                             report, or the end); its usage and cost are recorded in the ledger
  --agent script:CALLS.json  the agent: a JSON list of {"tool","args"} calls issued in order;
                             shell_exec takes {"command": [argv…]}, python_exec {"code": "…"}
  --approve-here             approve on this terminal: type the first 8 characters of the plan
                             hash on the controlling terminal (never standard input: a pipe is
                             refused); signs with the owner key. Without it the cockpit's Review
                             surface is asked.
  --home DIR                 data home with the ledger and keys (default: $SILAS_HOME, else the
                             platform's app-data directory)
  --workdir DIR              the task's work directory (default: a fresh directory, kept)
  --json                     print {"status","summary","verification_results","audit_ids"}
  -h, --help                 show this help`;

/** An approval request waits at most this long for the person. */
const APPROVAL_TIMEOUT_MS = 10 * 60_000;

export interface RunCommandDeps {
  /** The cockpit approver for a home; tests inject a fake. Default: the control-socket approver. */
  planApprover?: (home: string) => PlanApprover;
  /** The sandbox for tool calls and checks; tests swap in one whose bubblewrap is missing. */
  sandboxManager?: (workDir: string) => SandboxManager;
  approvalTimeoutMs?: number;
  /** Where `--approve-here` asks: the controlling terminal; tests inject a pseudo-terminal's side. */
  terminal?: ApprovalTerminalSource;
}

type RunOutput = Pick<WorkItemResult, 'status' | 'summary' | 'verification_results'> & { audit_ids: string[] };

function workDirectory(dir: string | undefined): string {
  if (dir === undefined) return realpathSync(mkdtempSync(join(tmpdir(), 'silas-run-')));
  try {
    const path = realpathSync(resolve(dir));
    if (!statSync(path).isDirectory()) throw new Error('not a directory');
    return path;
  } catch (error) {
    throw new UsageError(`--workdir ${dir}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist; create it, or leave --workdir out for a fresh directory' : (error as Error).message}`, usage);
  }
}

export function createRunCommand(deps: RunCommandDeps = {}): Command {
  async function run(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      { agent: { type: 'string' }, 'approve-here': { type: 'boolean' }, home: { type: 'string' }, workdir: { type: 'string' }, json: { type: 'boolean' } },
      usage,
      true,
    );
    if (values.help) {
      io.out(usage);
      return 0;
    }
    const file = onePlanFile(positionals, 'run', usage);
    const json = values.json === true;
    const approveHere = values['approve-here'] === true;
    const show = json ? io.err : io.out;
    const refuse = (message: string, auditIds: string[] = []): number => {
      io.err(`silas run: ${terminalSafe(message, true)}`);
      if (json) io.out(JSON.stringify({ status: 'blocked', summary: message, verification_results: [], audit_ids: auditIds } satisfies RunOutput));
      return 1;
    };

    const plan = readPlanFile(file);
    if (!plan.ok) return refuse(plan.message);
    const item = plan.item;
    if (item.type !== 'task') {
      return refuse(`${file} is a ${item.type}; silas run executes task plans (projects and goals run in the control center, where their tasks and standing approvals live)`);
    }
    let agentSpec: AgentSpec;
    try {
      agentSpec = parseAgentSpec(values.agent, usage);
    } catch (error) {
      if (error instanceof ScriptParseError) return refuse(error.message);
      throw error;
    }
    const workDir = workDirectory(values.workdir);
    const outside = fileExistsOutside(item.verify, workDir, [workDir]);
    if (outside) return refuse(`${file}: ${outside.field}: ${outside.reason}`);
    const hash = planHash(item);

    const home = resolveHome(values.home, io.env);
    const { secretStore } = await open(home);
    const agent = await resolveAgent(agentSpec, home, secretStore);
    if (!agent.ok) return refuse(agent.message);
    let session: RunSession;
    try {
      session = openRunSession(home, { secretStore, workDir, agent: agent.agent.agentFor, sandboxManager: deps.sandboxManager?.(workDir) });
    } catch (error) {
      // A tampered home (a foreign key among the owner keys) is refused, and was audited, before anything runs.
      if (isSilasError(error) && error.code === ErrorCode.LedgerTampered) return refuse(error.message);
      throw error;
    }
    const { audit, executor, approvals, store, committedIds } = session;
    try {
      show(`Plan: ${terminalSafe(file)} (${terminalSafe(item.id)}, ${item.type})`);
      show(`Plan hash: ${hash}`);
      if (agent.agent.description !== null) show(`Agent: ${terminalSafe(agent.agent.description)}`);
      show('');
      for (const line of formatPlanCard(planApprovalCard(item, hash))) show(line);
      show('');

      // Asked before anyone is asked to approve: an approval for a task that cannot run again would be wasted.
      const taken = planIdConflict(item, { stored: (id) => store.get(id) });
      if (taken) return refuse(`${file}: id: ${planIdRefusal(taken)}`, committedIds());
      const token = approveHere ? await approveOnTerminal(io, item, hash, audit, approvals, deps.terminal ?? io.approvalTerminal ?? controllingTerminal) : await approveInCockpit(io, home, item, hash, resolve(file), audit, deps);
      if ('refused' in token) return refuse(token.refused, committedIds());

      // §5.1.2 step 6: the consuming verification; a replayed or mismatched token stops here.
      const authorized = executor.authorize(item, token.token);
      if (!authorized.ok) return refuse(`the approval was refused: ${authorized.code}: ${authorized.reason}`, committedIds());
      show(`Approved (token ${token.token.token_id.slice(0, 12)}…); executing in ${workDir}`);
      // Ctrl-C stops the run: the attempt ends, the task fails with the reason, and the ledger says so.
      const interrupt = new AbortController();
      void io.stopSignal?.then((signal) => {
        io.err(`silas run: ${signal}: stopping the run…`);
        interrupt.abort();
      });
      const result = await executor.execute(authorized.item, { signal: interrupt.signal });
      const output: RunOutput = { status: result.status, summary: result.summary, verification_results: result.verification_results, audit_ids: committedIds() };
      if (json) io.out(JSON.stringify(output));
      else printResult(io, result, item, output.audit_ids.length);
      return result.status === 'done' ? 0 : 1;
    } finally {
      session.close();
    }
  }

  return { name: 'run', usage, run };
}

type Approval = { token: ApprovalToken } | { refused: string };

/**
 * `--approve-here`: the person confirms this exact plan by typing the start of its hash on the
 * controlling terminal (approval-terminal.ts), never on standard input, which any process can fill.
 */
async function approveOnTerminal(io: CliIo, item: WorkItem, hash: string, audit: RecordingAuditLog, approvals: { issueToken: (item: WorkItem, decision: unknown) => ApprovalToken }, source: ApprovalTerminalSource): Promise<Approval> {
  const terminal = source(io);
  if ('refused' in terminal) {
    const reason = `${APPROVE_HERE_NEEDS_TERMINAL} (${terminal.refused})`;
    audit.append('silas.run.approval_declined', { work_item_id: item.id, plan_hash: hash, source: 'terminal', reason });
    return { refused: `not approved: ${reason}; nothing ran` };
  }
  const answer = await Promise.race([terminal.ask(`Type the first 8 characters of the plan hash to approve (${hash.slice(0, 2)}…), anything else declines:\n`), io.stopSignal?.then(() => null) ?? new Promise<never>(() => undefined)]);
  const typed = answer?.trim().toLowerCase() ?? '';
  if (typed !== hash.slice(0, 8)) {
    const reason = answer === null ? 'no confirmation code was given' : 'the confirmation code does not match the plan hash';
    audit.append('silas.run.approval_declined', { work_item_id: item.id, plan_hash: hash, source: 'terminal', reason });
    return { refused: `not approved: ${reason}; nothing ran` };
  }
  audit.append('silas.run.approval_confirmed', { work_item_id: item.id, plan_hash: hash, source: 'terminal' });
  return { token: approvals.issueToken(item, { verdict: 'approved' }) };
}

/** Without --approve-here: the cockpit's Review surface, through the running control center. */
async function approveInCockpit(io: CliIo, home: string, item: WorkItem, hash: string, source: string, audit: RecordingAuditLog, deps: RunCommandDeps): Promise<Approval> {
  const approver = (deps.planApprover ?? planApproverForHome)(home);
  const timeoutMs = deps.approvalTimeoutMs ?? APPROVAL_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  void io.stopSignal?.then(() => controller.abort());
  io.err(`Waiting for approval in the Silas cockpit (Review), up to ${Math.round(timeoutMs / 1000)}s…`);
  try {
    let answer: Awaited<ReturnType<PlanApprover['request']>>;
    try {
      answer = await approver.request({ item, planHash: hash, source, timeoutMs }, controller.signal);
    } catch (error) {
      answer = { outcome: 'unreachable', reason: (error as Error).message };
    }
    if (answer.outcome === 'approve') return { token: answer.token };
    const reason = answer.outcome === 'timeout' ? 'no answer in time' : answer.reason;
    audit.append('silas.run.approval_declined', { work_item_id: item.id, plan_hash: hash, source: 'cockpit', outcome: answer.outcome, reason: reason.slice(0, 500) });
    return { refused: `not approved (${answer.outcome}): ${reason}; nothing ran` };
  } finally {
    clearTimeout(timer);
    approver.close?.();
  }
}

function printResult(io: CliIo, result: WorkItemResult, item: WorkItem, auditEntries: number): void {
  io.out('');
  io.out(`Status: ${result.status}`);
  io.out(terminalSafe(result.summary, true));
  for (const check of result.verification_results) {
    const exit = typeof check.exit_code === 'number' ? ` [exit ${check.exit_code}]` : '';
    io.out(`  ${check.passed === true ? 'PASS' : 'FAIL'}  ${terminalSafe(String(check.name))}: ${terminalSafe(String(check.reason))}${exit}`);
  }
  io.out(`Budget: ${formatBudgetUsage(result.budget_used, item.budget)}`);
  io.out(`Audit: ${auditEntries} entries in the ledger for this run`);
}

export const runCommand: Command = createRunCommand();
