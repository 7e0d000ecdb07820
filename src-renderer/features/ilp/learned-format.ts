import type { IlpDistillOutcome, IlpLearnedSlice, IlpRollbackOutcome, IlpSliceVersion } from '../../store/ilp-learned.js';

/*
 * How the ILP page words the slices knowledge distillation learned (spec 004 §4.3; docs/ilp.md
 * "Knowledge distillation"): versions, their kinds and statuses, a distillation's outcome and a
 * rollback's question and answer.
 */

export const DISTILL_PENDING_TEXT = 'Distilling — finding patterns in episodic memory and asking the planner model…';

export const LEARNED_EMPTY_TEXT = 'No learned slices yet. Distillation proposes slices from answered queries; each waits for you in Review.';

export const UNTRUSTED_VERSION_TEXT = 'Not trusted — changed outside Silas';

/** The range `ilp.distill` accepts for `min_frequency`, and its default. */
export const MIN_FREQUENCY = { min: 2, max: 1000, default: 3 } as const;

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

export const versionText = (version: number): string => `v${version}`;

/** The version the navigator reads now, or "not deployed" (proposed only, declined, or removed). */
export const inForceText = (deployed: number | null): string => (deployed === null ? 'not deployed' : versionText(deployed));

const STATUS_TEXT: Readonly<Record<IlpSliceVersion['status'], string>> = {
  proposed: 'proposed — waiting in Review',
  deployed: 'deployed',
  declined: 'declined',
  superseded: 'superseded',
};

const KIND_TEXT: Readonly<Record<IlpSliceVersion['kind'], string>> = {
  created: 'created',
  updated: 'updated',
  rollback: 'rolled back',
  removed: 'removed',
};

export const statusText = (status: IlpSliceVersion['status']): string => STATUS_TEXT[status];

export const kindText = (kind: IlpSliceVersion['kind']): string => KIND_TEXT[kind];

/** The newest version's status ("removed" when the newest version took the slice out of the navigator). */
export function latestText(slice: IlpLearnedSlice): string {
  const latest = slice.history[0];
  if (latest === undefined) return 'no versions';
  return latest.kind === 'removed' ? 'removed' : `${versionText(latest.version)} ${statusText(latest.status)}`;
}

/** The newest version's title: the model wrote it, so it is only ever shown as text. */
export const latestTitle = (slice: IlpLearnedSlice): string => slice.history[0]?.title ?? '';

export function untrustedText(count: number): string {
  return count === 1 ? '1 version was changed outside Silas and is not used.' : `${plural(count, 'version', 'versions')} were changed outside Silas and are not used.`;
}

/** "2 slices proposed — decide on them in " (followed by a link to Review). */
export function proposedLead(count: number): string {
  return `${plural(count, 'slice', 'slices')} proposed — decide on ${count === 1 ? 'it' : 'them'} in `;
}

/** A run that proposed nothing: what it found and turned down. */
export function nothingProposedText(result: IlpDistillOutcome): string {
  return `No new slices: ${plural(result.patterns, 'pattern', 'patterns')} found, ${result.rejected.length.toLocaleString('en-US')} rejected`;
}

/** What else the run left out, each only when it happened. */
export function distillNotes(result: IlpDistillOutcome): string[] {
  const notes: string[] = [];
  if (result.skipped > 0) notes.push(`${plural(result.skipped, 'pattern was', 'patterns were')} skipped: already in force, declined, or waiting in Review.`);
  if (result.untrusted_episodes > 0) notes.push(`${plural(result.untrusted_episodes, 'episode', 'episodes')} changed outside Silas ${result.untrusted_episodes === 1 ? 'was' : 'were'} not read.`);
  return notes;
}

/** Why `text` is not a `min_frequency` the runtime accepts, or null when it is. */
export function minFrequencyProblem(text: string): string | null {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < MIN_FREQUENCY.min || value > MIN_FREQUENCY.max) {
    return `A whole number from ${MIN_FREQUENCY.min} to ${MIN_FREQUENCY.max.toLocaleString('en-US')}.`;
  }
  return null;
}

export const rollbackName = (sliceId: string): string => `Roll back ${sliceId}`;

export const rollbackQuestion = (sliceId: string, deployed: number): string => `Put ${sliceId} back to the version before ${versionText(deployed)} (or remove it if there is none)?`;

export function rollbackOutcomeText(result: IlpRollbackOutcome): string {
  if (result.kind === 'removed') return `${result.slice_id} was removed`;
  return result.restored_version === null ? `${result.slice_id} was rolled back (now ${versionText(result.version)})` : `${result.slice_id} is back at ${versionText(result.restored_version)}`;
}
