import type { BenchResult, BenchRow, TrialDecision } from '../../store/policy-bench-rows.js';
import type { PolicyDiagnostic, PolicyFileStatus, PolicyValidation, PolicyVersion } from '../../store/policy-editor-state.js';

/* Pure text for the policy editor on the Policies page, kept apart from components so it is tested on its own. */

/** `/home/ada/.silas/policies/files.yaml` → `files.yaml`. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;
}

export function openName(path: string): string {
  return `Open ${fileName(path)}`;
}

export function signatureLabel(signature: PolicyFileStatus['signature']): string {
  return signature === 'owner' ? 'Signed' : signature === 'invalid' ? 'Signature invalid' : 'Unsigned';
}

export function signatureTone(signature: PolicyFileStatus['signature']): 'ok' | 'warn' | 'bad' {
  return signature === 'owner' ? 'ok' : signature === 'invalid' ? 'bad' : 'warn';
}

export const CHANGED_OUTSIDE = 'Changed outside the cockpit';
export const ADOPT_CONSEQUENCE = 'Signs the file as it is now with your owner key';
export const REVERT_CONSEQUENCE = 'Writes the last saved version back over it';
export const NO_VERSION_TO_REVERT = 'No saved version to revert to';

/**
 * A file the owner did not put in force (unsigned, changed outside, an older copy put back): its
 * proxies keep the saved version in force, or do not start (docs/mcp-proxy.md "Signed policies").
 */
export function notInForceText(policy: Pick<PolicyFileStatus, 'exists' | 'inForce' | 'inForceSeq'>): string | null {
  if (!policy.exists || policy.inForce) return null;
  return policy.inForceSeq !== null
    ? `Not in force — the proxy keeps enforcing version ${policy.inForceSeq}. Adopt signs this file with your owner key; Revert puts version ${policy.inForceSeq} back.`
    : 'Not in force — no version of it is in force, so its proxy does not start. Adopt signs this file with your owner key.';
}
export const CONFLICT_TEXT = 'The file changed on disk; reload';

/** "3 saved versions", "No saved version". */
export function versionsText(count: number): string {
  return count === 0 ? 'No saved version' : `${count} saved ${count === 1 ? 'version' : 'versions'}`;
}

/** One problem in the Problems list: "line 7, column 3: unknown key …". */
export function problemText(diagnostic: PolicyDiagnostic): string {
  const text = `line ${diagnostic.line}, column ${diagnostic.column}: ${diagnostic.message}`;
  return diagnostic.severity === 'warning' ? `${text} (warning)` : text;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** What CodeMirror underlines now, under the editor. */
export function markedText(count: number): string {
  return count === 0 ? 'Nothing marked in the editor' : `${plural(count, 'problem', 'problems')} marked in the editor`;
}

/** The line under the editor: whether the draft in it loads, and how long the runtime took. */
export function validationText(validation: PolicyValidation | null, checking: boolean): string {
  if (!validation || checking) return 'Checking the draft…';
  const errors = validation.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = validation.diagnostics.length - errors;
  const took = `checked in ${validation.tookMs.toFixed(1)} ms`;
  if (validation.ok) return warnings === 0 ? `Loads, ${took}` : `Loads with ${plural(warnings, 'warning', 'warnings')}, ${took}`;
  return `Does not load: ${plural(errors, 'error', 'errors')}${warnings > 0 ? ` and ${plural(warnings, 'warning', 'warnings')}` : ''}, ${took}`;
}

export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/** The Arguments box: a JSON object (empty means none). */
export function parseArguments(text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `Arguments are not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'Arguments must be a JSON object, e.g. {"path": "/tmp/a.txt"}' };
  return { ok: true, args: value as Record<string, unknown> };
}

/** Most recorded calls one replay reads (policies.replay's limit). */
export const MAX_REPLAY = 10_000;

/** The Last N box: a whole number from 1 to MAX_REPLAY, or null. */
export function parseLast(text: string): number | null {
  if (!/^\s*\d+\s*$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 && value <= MAX_REPLAY ? value : null;
}

export function decisionText(decision: TrialDecision | null): string {
  return decision ?? '—';
}

/** The last cell of a result row: PASS/FAIL for a suite case, and "Changes" where the draft decides otherwise. */
export function outcomeText(row: BenchRow): string {
  const parts: string[] = [];
  if (row.passed !== null) parts.push(row.passed ? 'PASS' : `FAIL (expected ${row.expected ?? '?'})`);
  if (row.changed) parts.push('Changes');
  return parts.length > 0 ? parts.join(', ') : row.passed === null ? 'Same' : '';
}

/** One line above the results table. */
export function benchSummary(result: BenchResult): string {
  const changed = result.rows.filter((row) => row.changed).length;
  const changes = changed === 0 ? 'no decision changes' : `${plural(changed, 'decision changes', 'decisions change')}`;
  if (result.kind === 'try') return changed === 0 ? 'The draft decides this call as the policy in force does' : 'The draft decides this call differently';
  if (result.kind === 'replay') {
    if (result.rows.length === 0) return `No recorded calls to replay (${result.scanned ?? 0} records read)`;
    return `Replayed ${plural(result.rows.length, 'recorded call', 'recorded calls')}: ${changes}`;
  }
  const failed = result.rows.filter((row) => row.passed === false).length;
  return `Suite ${result.suitePath ?? ''}: ${result.rows.length - failed} passed, ${failed} failed; ${changes}`;
}

export function historyActionLabel(action: PolicyVersion['action']): string {
  return action === 'save' ? 'Saved' : action === 'restore' ? 'Restored' : 'Adopted';
}

export const restoreName = (seq: number) => `Restore version ${seq}`;
export const diffName = (seq: number) => `Diff version ${seq}`;
