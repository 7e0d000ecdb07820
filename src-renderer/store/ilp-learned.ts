import { auditCategory, canonicalAuditEvent } from '../../src-shared/audit/events.js';
import type { CallResult } from '../../src-shared/contract/index.js';

/*
 * The ILP page's learned slices (spec 004 §4.3; docs/ilp.md "Knowledge distillation"): the slices
 * distillation learned with their history, a distillation run and a rollback, each with its
 * outcome. Pure reducers over `ilp.learned`; ilp-slice.ts puts them in the store and
 * lib/cockpit/ilp.ts does the I/O.
 */

export type IlpLearnedSlice = CallResult<'ilp.slices'>['slices'][number];
export type IlpSliceVersion = IlpLearnedSlice['history'][number];
export type IlpDistillOutcome = CallResult<'ilp.distill'>;
export type IlpRollbackOutcome = CallResult<'ilp.rollback'>;

interface IlpDistillState {
  phase: 'idle' | 'running' | 'done' | 'error';
  result: IlpDistillOutcome | null;
  error: string | null;
}

interface IlpRollbackState {
  phase: 'idle' | 'sending' | 'done' | 'error';
  /** The slice being (or last) rolled back. */
  slice: string | null;
  result: IlpRollbackOutcome | null;
  error: string | null;
}

export interface IlpLearnedState {
  slices: readonly IlpLearnedSlice[];
  /** Versions changed outside Silas: listed, never deployed or restored. */
  untrusted: number;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  distill: IlpDistillState;
  rollback: IlpRollbackState;
}

export const initialLearned: IlpLearnedState = {
  slices: [],
  untrusted: 0,
  status: 'idle',
  error: null,
  distill: { phase: 'idle', result: null, error: null },
  rollback: { phase: 'idle', slice: null, result: null, error: null },
};

type S = IlpLearnedState;

/** Reading the list again keeps what is shown meanwhile. */
export const learnedLoading = (s: S): S => ({ ...s, status: s.status === 'ready' ? 'ready' : 'loading', error: null });

export const learnedLoaded = (s: S, result: CallResult<'ilp.slices'>): S => ({ ...s, slices: result.slices, untrusted: result.untrusted, status: 'ready', error: null });

export const learnedFailed = (s: S, message: string): S => ({ ...s, status: s.status === 'ready' ? 'ready' : 'error', error: message });

export const distillRunning = (s: S): S => ({ ...s, distill: { phase: 'running', result: null, error: null } });

export const distillDone = (s: S, result: IlpDistillOutcome): S => ({ ...s, distill: { phase: 'done', result, error: null } });

export const distillFailed = (s: S, message: string): S => ({ ...s, distill: { phase: 'error', result: null, error: message } });

export const rollbackSending = (s: S, slice: string): S => ({ ...s, rollback: { phase: 'sending', slice, result: null, error: null } });

export const rollbackDone = (s: S, result: IlpRollbackOutcome): S => ({ ...s, rollback: { phase: 'done', slice: result.slice_id, result, error: null } });

export const rollbackFailed = (s: S, slice: string, message: string): S => ({ ...s, rollback: { phase: 'error', slice, result: null, error: message } });

/** The version a rollback would replace: the one the navigator reads now, or null when there is nothing to roll back. */
export function rollbackTarget(slices: readonly IlpLearnedSlice[], sliceId: string): number | null {
  return slices.find((slice) => slice.slice_id === sliceId)?.deployed_version ?? null;
}

/** Events of the slice registry (decided in Review, proposed or rolled back by another session or the CLI). */
const REGISTRY_EVENTS: ReadonlySet<string> = new Set(['ilp.slice_proposed', 'ilp.slice_deployed', 'ilp.slice_declined', 'ilp.slice_rolled_back']);

/**
 * Audit entries after which the learned slices may have changed. Among the `ilp` category only the
 * registry's events: every composition writes `ilp` entries too, and those change no slice.
 */
export function affectsLearnedSlices(event: string): boolean {
  if (auditCategory(event) !== 'ilp') return false;
  const known = canonicalAuditEvent(event);
  return known !== null && REGISTRY_EVENTS.has(known);
}
