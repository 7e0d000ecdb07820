import { isSuggestionChip, type DecisionChip, type ModelsStatus, type StreamEvent, type TurnUsage, type WorkProgressStatus } from '../../../src-shared/schemas/stream.js';
import type { z } from 'zod';
import { terminalSafe } from './plan.js';
import { UNSAFE_SHOWN_CHARS } from '../../../src-shared/text/unsafe-chars.js';

/*
 * What `silas chat` prints, as pure functions of the Stream's events (docs/architecture.md §4.8).
 * Every string that came from the runtime or a model goes through `terminalSafe` here, so a
 * model cannot move the cursor, retitle the window or hide text with bidi controls.
 */

type WorkEvent = Extract<StreamEvent, { type: 'work' }>;

/** A plan in one of these states will not change again on its own (the wait after stdin ends is over for it). */
const FINAL_WORK_STATUSES: ReadonlySet<WorkProgressStatus> = new Set(['done', 'failed', 'blocked', 'declined', 'stuck', 'verification_failed']);

export function isFinalWorkStatus(status: WorkProgressStatus): boolean {
  return FINAL_WORK_STATUSES.has(status);
}

export const SILAS_PREFIX = 'silas> ';

export const CHAT_HELP = [
  'Commands:',
  '  /stop   stop the running turn (Ctrl-C does the same; a second Ctrl-C quits)',
  '  /quit   leave; plans already announced keep running in the runtime',
  '  /help   this list',
  '  1, 2, … answer with the chip of that number, when the last answer offered chips',
  'Anything else is sent to Silas.',
];

export function formatHeader(scope: string, home: string, models: ModelsStatus): string[] {
  const configured = models.roles.filter((role) => role.configured && role.model !== null);
  const lines = [`Silas chat · scope ${scope} · ${terminalSafe(home)}`];
  if (configured.length > 0) lines.push(`models: ${configured.map((role) => `${role.role} ${terminalSafe(role.model ?? '')}`).join(', ')}`);
  lines.push('Type a message and press Enter; /help lists commands.');
  return lines;
}

/** Why no turn can run yet (§1.5 first run), role by role, and the two ways to fix it. */
export function formatModelProblems(models: ModelsStatus): string[] {
  const lines = ['no model is ready for a conversation:'];
  if (models.problem !== null) lines.push(`  ${terminalSafe(models.problem)}`);
  for (const role of models.roles) if (role.problem !== null) lines.push(`  ${role.role}: ${terminalSafe(role.problem)}`);
  if (lines.length === 1) lines.push('  the runtime reports the models as not ready without naming a problem');
  lines.push("set a model with `silas models set ROLE …` or in the cockpit's Stream page");
  return lines;
}

export function formatMessage(sender: 'person' | 'silas' | 'system', text: string): string {
  const prefix = sender === 'system' ? 'system> ' : sender === 'person' ? 'you> ' : SILAS_PREFIX;
  return `${prefix}${terminalSafe(text, true)}`;
}

/** Whether a chip is a suggestion someone else wrote (the executor, from tool output: external, §5.12). */
export function formatChips(chips: readonly z.infer<typeof DecisionChip>[]): string[] {
  const lines = chips.map((chip, index) => `  [${index + 1}] ${terminalSafe(chip.label)}`);
  if (chips.some(isSuggestionChip)) {
    lines.unshift('  suggestions from the executor (written after reading tool output, external); typing a number sends it unsigned, not as your words:');
  }
  return lines;
}

export function formatWork(event: WorkEvent): string[] {
  const detail = event.detail.trim() === '' ? '' : ` — ${terminalSafe(event.detail, true)}`;
  const from = event.detail_taint === 'external' && detail !== '' ? ' (written by the executor after reading tool output, external)' : '';
  const lines = [`plan ${terminalSafe(event.work_item_id)} “${terminalSafe(event.title)}”: ${event.status}${detail}${from}`];
  if (event.status === 'awaiting_approval') {
    lines.push(event.plan_hash === null ? '  approve it in the cockpit (Review)' : `  approve it in the cockpit (Review); plan hash ${terminalSafe(event.plan_hash.slice(0, 8))}…`);
  }
  return lines;
}

function formatCost(usd: number | null): string {
  if (usd === null) return 'not priced';
  return `cost $${usd.toFixed(usd > 0 && usd < 0.0001 ? 6 : 4)}`;
}

export function formatMeter(usage: TurnUsage): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return `tokens in/out ${count(usage.input_tokens)}/${count(usage.output_tokens)} · ${formatCost(usage.cost_usd)}`;
}

/** Faint on a colour terminal; plain text elsewhere (pipes, NO_COLOR). */
export function dim(text: string, colour: boolean): string {
  return colour ? `\x1b[2m${text}\x1b[22m` : text;
}

// JSON.stringify escapes C0 controls; the rest of the set it leaves as they are, and a terminal may act on them.
const JSON_UNSAFE = new RegExp(`[${UNSAFE_SHOWN_CHARS}]`, 'g');

/** One JSON line that is still the same JSON value, with nothing a terminal would interpret. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The list of plans still running, for the goodbye line. */
export function formatOpenWork(work: ReadonlyMap<string, { title: string; status: WorkProgressStatus }>): string {
  return [...work].map(([id, item]) => `${terminalSafe(id)} “${terminalSafe(item.title)}” (${item.status})`).join(', ');
}
