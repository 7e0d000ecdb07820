import { readFileSync, statSync } from 'node:fs';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { planApprovalCard, type PlanCard } from '../../review/kinds/plan-card.js';
import { planHash } from '../../silas/work/hashes.js';
import { MAX_PLAN_BYTES, tryParsePlan, type PlanIssue } from '../../silas/work/plan-parser.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';
import { isUnsafeShownCodePoint } from '../../../src-shared/text/unsafe-chars.js';

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
    const unsafe = isUnsafeShownCodePoint(code) || (code >= 0xd800 && code <= 0xdfff);
    out += unsafe && !(multiline && (ch === '\n' || ch === '\t')) ? `\\u{${code.toString(16).padStart(4, '0')}}` : ch;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The approval card (spec 002 §0.5.3)

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
  usage,
  run: (argv, io, open) => runSubcommand('plan', usage, subcommands, argv, io, open),
};
