import type { CallResult } from '../../src-shared/contract/index.js';

/*
 * The test bench's three answers (policies.try, .replay, .suite) as the rows of one table: the
 * call, the decision under the policy in force and under the draft, the rule that decided, the
 * DLP matches, and whether the decision changes (or, for a suite case, whether it passed).
 */

export type TrialOutcome = CallResult<'policies.try'>['draft'];
export type TrialDecision = TrialOutcome['decision'];
export type BenchKind = 'try' | 'replay' | 'suite';

export interface BenchRow {
  key: string;
  /** The call as the table shows it: tool and arguments, or the suite case's name and tool. */
  call: string;
  /** The decision under the policy in force; null when none loads to compare with. */
  inForce: TrialDecision | null;
  draft: TrialDecision;
  /** The rule (or, without one, the reason) that decided under the draft, with the argument that failed its pattern. */
  rule: string | null;
  /** The DLP rules the draft matched, with what DLP did. */
  dlp: string | null;
  changed: boolean;
  /** A suite case's expectation and verdict; null for other rows. */
  expected: TrialDecision | null;
  passed: boolean | null;
}

export interface BenchResult {
  kind: BenchKind;
  rows: readonly BenchRow[];
  /** Replay: how many recorded calls were read. */
  scanned: number | null;
  /** Suite: the suite file that ran. */
  suitePath: string | null;
}

/** Longest argument text shown in the Call cell; the full call is the cell's title. */
export const MAX_CALL_TEXT = 160;

export function callText(tool: string, args: Readonly<Record<string, unknown>>): string {
  const json = JSON.stringify(args);
  const text = json === '{}' ? tool : `${tool} ${json}`;
  return text.length > MAX_CALL_TEXT ? `${text.slice(0, MAX_CALL_TEXT - 1)}…` : text;
}

/** The deciding rule, or the runtime's reason where no single rule decided (a tool not allowed at all). */
function ruleText(outcome: TrialOutcome): string | null {
  const rule = outcome.rule ?? (outcome.reason.trim() === '' ? null : outcome.reason);
  if (outcome.failedArg === null) return rule;
  return rule === null ? `argument ${outcome.failedArg}` : `${rule}, argument ${outcome.failedArg}`;
}

function dlpText(outcome: TrialOutcome): string | null {
  return outcome.dlp.rules.length === 0 ? null : `${outcome.dlp.action}: ${outcome.dlp.rules.join(', ')}`;
}

function row(key: string, call: string, draft: TrialOutcome, current: TrialOutcome | null, changed: boolean): BenchRow {
  return { key, call, inForce: current?.decision ?? null, draft: draft.decision, rule: ruleText(draft), dlp: dlpText(draft), changed, expected: null, passed: null };
}

export function tryResult(tool: string, args: Readonly<Record<string, unknown>>, result: CallResult<'policies.try'>): BenchResult {
  const changed = result.current !== null && result.current.decision !== result.draft.decision;
  return { kind: 'try', rows: [row('try', callText(tool, args), result.draft, result.current, changed)], scanned: null, suitePath: null };
}

export function replayResult(result: CallResult<'policies.replay'>): BenchResult {
  const rows = result.results.map((entry) => row(`replay-${entry.call.index}`, callText(entry.call.tool, entry.call.args), entry.draft, entry.current, entry.changed));
  return { kind: 'replay', rows, scanned: result.scanned, suitePath: null };
}

export function suiteResult(result: CallResult<'policies.suite'>): BenchResult {
  const rows = result.results.map((entry, index) => ({
    ...row(`suite-${index}`, entry.name, entry.draft, entry.current, entry.changed),
    expected: entry.expected,
    passed: entry.passed,
  }));
  return { kind: 'suite', rows, scanned: null, suitePath: result.suitePath };
}
