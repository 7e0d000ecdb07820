import { readFileSync, statSync } from 'node:fs';
import type { Expectation, WorkItem } from '../../../src-shared/silas/work.js';
import { planHash } from '../../silas/work/hashes.js';
import { MAX_PLAN_BYTES, tryParsePlan, type PlanIssue } from '../../silas/work/plan-parser.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';

const usage = `Usage: silas plan check FILE [--json]

  silas plan check FILE [--json]
      Parse a Silas plan (markdown with YAML front matter, spec 002 §4.15) and print its plan hash
      (64 hex characters) and the approval card a person would be shown. Exit 0 when the plan is
      valid, 1 when it is not (every problem as FILE:LINE: field: message).

Options:
  --json       print {"plan_hash","work_item","card"}
  -h, --help   show this help`;

// ---------------------------------------------------------------------------------------------
// Reading a plan file (shared with `silas verify`)

export type PlanFileResult = { ok: true; item: WorkItem } | { ok: false; message: string; issues: readonly PlanIssue[] };

/** Reads and parses a plan file; refuses what is not a small regular UTF-8 file before parsing. */
export function readPlanFile(file: string): PlanFileResult {
  const refuse = (message: string): PlanFileResult => ({ ok: false, message, issues: [] });
  let size: number;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) return refuse(`${file} is a directory; name a plan file (.md)`);
    // A FIFO or device could block or never end; a plan is always a plain file.
    if (!stat.isFile()) return refuse(`${file} is not a regular file; name a plan file (.md)`);
    size = stat.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return refuse(`cannot read plan ${file}: no such file`);
    if (code === 'EACCES') return refuse(`cannot read plan ${file}: permission denied`);
    return refuse(`cannot read plan ${file}: ${(error as Error).message}`);
  }
  if (size > MAX_PLAN_BYTES) return refuse(`${file} is ${size} bytes; a plan is at most ${MAX_PLAN_BYTES} bytes (256 KiB)`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(file));
  } catch (error) {
    if (error instanceof TypeError) return refuse(`${file} is not UTF-8 text; save the plan as UTF-8`);
    return refuse(`cannot read plan ${file}: ${(error as Error).message}`);
  }
  const parsed = tryParsePlan(text, { file });
  return parsed.ok ? { ok: true, item: parsed.item } : { ok: false, message: parsed.error.message, issues: parsed.error.issues };
}

/**
 * Text from a plan or a command is shown on a person's terminal: control characters (escape
 * sequences could repaint or hide lines), bidirectional overrides and invisible characters (could
 * make text read differently from what it is) are shown as \u{…} escapes. Newlines and tabs
 * survive only where `multiline` allows them.
 */
export function terminalSafe(text: string, multiline = false): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const unsafe =
      code <= 0x1f ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x061c ||
      (code >= 0x200b && code <= 0x200f) ||
      (code >= 0x2028 && code <= 0x202e) ||
      (code >= 0x2060 && code <= 0x2069) ||
      code === 0xfeff ||
      (code >= 0xd800 && code <= 0xdfff);
    out += unsafe && !(multiline && (ch === '\n' || ch === '\t')) ? `\\u{${code.toString(16).padStart(4, '0')}}` : ch;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The approval card (spec 002 §0.5.3)

export type RiskLevel = 'low' | 'medium' | 'high' | 'irreversible';

export interface PlanCardAction {
  consequence_label: string;
  verdict: 'approved' | 'edit_requested' | 'declined';
  /** CTA order of §0.5.3: the recommended action first, alternatives, the decline last. */
  emphasis: 'recommended' | 'alternative' | 'decline';
}

export interface PlanCard {
  intent: string;
  risk_level: RiskLevel;
  risk_reasons: string[];
  rationale: string;
  /** What approving does, in one or two sentences. */
  approving: string;
  actions: PlanCardAction[];
  affected_items: { count: number; summary: string } | null;
  plan_hash: string;
  /** The first 8 characters of the plan hash, typed by the person to confirm this exact plan. */
  confirm_code: string;
  /** §0.5.3: expanded by default for high and irreversible risk. */
  details_expanded: boolean;
  details: {
    verify: Array<{ name: string; run: string; expect: string; timeout: number; network: boolean }>;
    budget: WorkItem['budget'];
    gates: Array<{ name: string; on: string; provider: string }>;
    skills: string[];
    access_levels: string[];
    agent: WorkItem['agent'];
    schedule: string | null;
    interaction_mode: WorkItem['interaction_mode'];
    tasks: string[];
    depends_on: string[];
    parent: string | null;
  };
}

export function describeExpectation(expect: Expectation): string {
  if (expect.exit_code !== null) return `exit code ${expect.exit_code}`;
  if (expect.equals !== null) return `output equals ${JSON.stringify(expect.equals)}`;
  if (expect.contains !== null) return `output contains ${JSON.stringify(expect.contains)}`;
  if (expect.regex !== null) return `output matches /${expect.regex}/`;
  if (expect.output_lt !== null) return `output < ${expect.output_lt}`;
  if (expect.output_gt !== null) return `output > ${expect.output_gt}`;
  if (expect.file_exists !== null) return `file exists: ${expect.file_exists}`;
  return 'output not empty';
}

/**
 * §0.5.2: the harness, not the agent, assigns risk, from the plan's structure only. Executing a
 * sandboxed plan is `medium`; a plan that acts outside one run is `high`. `irreversible` is never
 * inferred: reversibility cannot be read from a plan's structure.
 */
export function planRisk(item: WorkItem): { level: RiskLevel; reasons: string[] } {
  const reasons: string[] = [];
  if (item.agent === 'stream') reasons.push('configures the live Stream: it applies to every conversation while active');
  else if (item.type === 'goal') reasons.push(`recurring goal${item.schedule ? ` (${item.schedule})` : ''} under a standing approval`);
  if (Object.keys(item.access_levels).length > 0) reasons.push('grants tool access levels to the people it talks to');
  const level: RiskLevel = reasons.length > 0 ? 'high' : 'medium';
  if (level === 'medium') reasons.push(`an agent runs commands in a sandbox with the network denied${item.type === 'project' ? ', task by task' : ''}`);
  const networked = item.verify.filter((check) => check.network).length;
  if (networked > 0) reasons.push(`${networked} verify check${networked === 1 ? '' : 's'} use${networked === 1 ? 's' : ''} the network`);
  return { level, reasons };
}

/** The first one or two sentences of the briefing's first paragraph that is not a heading. */
export function planRationale(body: string): string {
  const paragraph = body
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((line) => !/^\s*#/.test(line)).join(' ').replace(/\s+/g, ' ').trim())
    .find((block) => block.length > 0);
  if (!paragraph) return 'The plan gives no briefing; read it before approving.';
  const text = paragraph.split(/(?<=[.!?])\s+/).slice(0, 2).join(' ');
  return text.length > 280 ? `${text.slice(0, 279)}…` : text;
}

export function planApprovalCard(item: WorkItem, hash: string = planHash(item)): PlanCard {
  const code = hash.slice(0, 8);
  const checks = item.verify.length;
  const checkText = checks === 0 ? 'there are no verify checks, so one successful run counts as done' : `only the ${checks} verify check${checks === 1 ? '' : 's'} below can mark it done`;
  let intent: string;
  let approve: string;
  let approving: string;
  if (item.agent === 'stream') {
    intent = `Put goal "${item.title}" live on the Stream`;
    approve = 'Approve + go live';
    approving = `Signs an approval bound to plan ${code} that loads this configuration into the live Stream: its ${item.gates.length} gate(s) and ${Object.keys(item.access_levels).length} access level(s) apply to every conversation.`;
  } else if (item.type === 'goal') {
    intent = `Start recurring goal "${item.title}"${item.schedule ? ` (${item.schedule})` : ''}`;
    approve = 'Approve + start schedule';
    const onFailure = item.on_failure === 'spawn_task' ? 'a failure spawns a fix task, each verified against the standing approval and this goal\'s spawn policy' : `a failure triggers ${item.on_failure}`;
    approving = `Signs a standing approval bound to plan ${code}: the ${checks} check(s) run on schedule; ${onFailure}.`;
  } else if (item.type === 'project') {
    intent = `Run project "${item.title}" (${item.tasks.length} tasks)`;
    approve = `Approve + run ${item.tasks.length} tasks`;
    const projectChecks = checks === 0 ? 'with no project checks, it is done when every task is done' : `after the last task, only the ${checks} project check${checks === 1 ? '' : 's'} below can mark it done`;
    approving = `Signs a single-use approval bound to plan ${code}: the tasks run in dependency order, each sandboxed with the network denied; ${projectChecks}.`;
  } else {
    intent = `Run task "${item.title}"`;
    approve = 'Approve + execute';
    approving = `Signs a single-use approval bound to plan ${code}: an agent works through the briefing in a sandbox with the network denied, within the budget; ${checkText}.`;
  }
  const risk = planRisk(item);
  return {
    intent,
    risk_level: risk.level,
    risk_reasons: risk.reasons,
    rationale: planRationale(item.body),
    approving,
    actions: [
      { consequence_label: approve, verdict: 'approved', emphasis: 'recommended' },
      { consequence_label: 'Request edits', verdict: 'edit_requested', emphasis: 'alternative' },
      { consequence_label: 'Decline', verdict: 'declined', emphasis: 'decline' },
    ],
    affected_items: item.type === 'project' ? { count: item.tasks.length, summary: item.tasks.join(', ') } : null,
    plan_hash: hash,
    confirm_code: code,
    details_expanded: risk.level === 'high' || risk.level === 'irreversible',
    details: {
      verify: item.verify.map((check) => ({ name: check.name, run: check.run, expect: describeExpectation(check.expect), timeout: check.timeout, network: check.network })),
      budget: item.budget,
      gates: item.gates.map((gate) => ({ name: gate.name, on: gate.on, provider: gate.provider })),
      skills: [...item.skills],
      access_levels: Object.keys(item.access_levels),
      agent: item.agent,
      schedule: item.schedule,
      interaction_mode: item.interaction_mode,
      tasks: [...item.tasks],
      depends_on: [...item.depends_on],
      parent: item.parent,
    },
  };
}

/** The card as terminal text; every plan-supplied string is made terminal-safe. */
export function formatPlanCard(card: PlanCard): string[] {
  const s = (text: string) => terminalSafe(text);
  const d = card.details;
  const b = d.budget;
  const list = (items: string[]) => (items.length === 0 ? 'none' : items.map(s).join(', '));
  const lines = [
    s(card.intent),
    `Risk: ${card.risk_level} (${card.risk_reasons.map(s).join('; ')})`,
    `Why: ${s(card.rationale)}`,
    `Approving: ${s(card.approving)}`,
    ...(card.affected_items ? [`Affects ${card.affected_items.count} task(s): ${s(card.affected_items.summary)}`] : []),
    '',
    `Verify (${d.verify.length} check${d.verify.length === 1 ? '' : 's'}, run outside the agent's sandbox):`,
    ...(d.verify.length === 0 ? ['  none'] : d.verify.map((c, i) => `  ${i + 1}. ${s(c.name)}: ${s(c.run)} -> ${s(c.expect)} (timeout ${c.timeout}s, ${c.network ? 'network' : 'no network'})`)),
    `Budget: ${b.max_tokens.toLocaleString('en-US')} tokens · $${b.max_cost_usd.toFixed(2)} · ${b.max_wall_time_seconds}s wall time · ${b.max_attempts} attempts · ${b.max_planner_calls} planner calls`,
    `Gates: ${list(d.gates.map((g) => `${g.name} (${g.on}, ${g.provider})`))}`,
    `Skills: ${list(d.skills)}`,
    ...(d.access_levels.length > 0 ? [`Access levels: ${list(d.access_levels)}`] : []),
    ...(d.depends_on.length > 0 ? [`Depends on: ${list(d.depends_on)}`] : []),
    '',
    `Actions: ${card.actions.map((a) => `[${a.consequence_label}]`).join('  ')}`,
    `To approve, confirm the first 8 characters of the plan hash: ${card.confirm_code}`,
  ];
  return lines;
}

// ---------------------------------------------------------------------------------------------
// silas plan check

export function onePlanFile(positionals: string[], command: string, commandUsage: string): string {
  if (positionals.length === 0) throw new UsageError(`${command}: name the plan file`, commandUsage);
  if (positionals.length > 1) throw new UsageError(`${command}: expected one plan file, got ${positionals.length}`, commandUsage);
  return positionals[0]!;
}

/** Prints a refused plan: every `file:line: field: message` on stderr, and the issues as JSON on stdout with --json. */
export function reportPlanRefusal(result: Extract<PlanFileResult, { ok: false }>, json: boolean, io: CliIo, command: string): number {
  // Parser issues already read `file:line: field: message`; file-level refusals get the command's name.
  io.err(result.issues.length > 0 ? terminalSafe(result.message, true) : `${command}: ${terminalSafe(result.message)}`);
  if (json) io.out(JSON.stringify({ valid: false, error: result.message, issues: result.issues }));
  return 1;
}

async function check(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  const file = onePlanFile(positionals, 'plan check', usage);
  const result = readPlanFile(file);
  if (!result.ok) return reportPlanRefusal(result, values.json === true, io, 'silas plan check');
  const hash = planHash(result.item);
  const card = planApprovalCard(result.item, hash);
  if (values.json) {
    io.out(JSON.stringify({ plan_hash: hash, work_item: result.item, card }));
    return 0;
  }
  io.out(`Plan: ${terminalSafe(file)} (${terminalSafe(result.item.id)}, ${result.item.type})`);
  io.out(`Plan hash: ${hash}`);
  io.out('');
  for (const line of formatPlanCard(card)) io.out(line);
  return 0;
}

const subcommands: Record<string, Subcommand> = { check };

export const planCommand: Command = {
  name: 'plan',
  summary: 'check a Silas plan: its plan hash and approval card',
  usage,
  run: (argv, io) => runSubcommand('plan', usage, subcommands, argv, io),
};
