import { describe, expect, it } from 'vitest';
import { distillResult, learnedSlices } from '../testing/ilp-fixtures.js';
import * as l from './ilp-learned.js';

describe('learned slices reducers', () => {
  it('holds the list as read, and keeps it shown while it is read again or fails to be', () => {
    const loaded = l.learnedLoaded(l.learnedLoading(l.initialLearned), { ...learnedSlices(), untrusted: 2 });
    expect(loaded).toMatchObject({ status: 'ready', untrusted: 2, error: null });
    expect(loaded.slices.map((s) => s.slice_id)).toEqual(['learned-budgeting', 'learned-homeostasis']);
    expect(l.learnedLoading(loaded).status).toBe('ready');
    expect(l.learnedFailed(loaded, 'gone')).toMatchObject({ status: 'ready', error: 'gone', slices: loaded.slices });
    expect(l.learnedFailed(l.learnedLoading(l.initialLearned), 'gone')).toMatchObject({ status: 'error', error: 'gone' });
  });

  it('keeps one distillation outcome: running clears the last, then its result or its error', () => {
    const done = l.distillDone(l.distillRunning(l.initialLearned), distillResult());
    expect(done.distill).toMatchObject({ phase: 'done', error: null, result: { patterns: 2 } });
    expect(l.distillRunning(done).distill).toEqual({ phase: 'running', result: null, error: null });
    expect(l.distillFailed(done, 'no planner model').distill).toEqual({ phase: 'error', result: null, error: 'no planner model' });
  });

  it('keeps the last rollback with the slice it was for', () => {
    const sending = l.rollbackSending(l.initialLearned, 'learned-budgeting');
    expect(sending.rollback).toEqual({ phase: 'sending', slice: 'learned-budgeting', result: null, error: null });
    const done = l.rollbackDone(sending, { slice_id: 'learned-budgeting', version: 3, kind: 'rollback', restored_version: 1 });
    expect(done.rollback).toMatchObject({ phase: 'done', slice: 'learned-budgeting', result: { restored_version: 1 } });
    expect(l.rollbackFailed(done, 'learned-x', 'busy').rollback).toEqual({ phase: 'error', slice: 'learned-x', result: null, error: 'busy' });
  });

  it('rolls back only a slice with a version in force', () => {
    const { slices } = learnedSlices();
    expect(l.rollbackTarget(slices, 'learned-budgeting')).toBe(2);
    expect(l.rollbackTarget(slices, 'learned-homeostasis')).toBeNull();
    expect(l.rollbackTarget(slices, 'learned-unknown')).toBeNull();
  });

  it("reacts to the slice registry's audit events, not to every ILP entry", () => {
    for (const event of ['ilp.slice_proposed', 'ilp.slice_deployed', 'ilp.slice_declined', 'ilp.slice_rolled_back']) expect(l.affectsLearnedSlices(event)).toBe(true);
    for (const event of ['ilp.distillation', 'ilp.composition', 'aap.trace', 'ilp.slice_made_up']) expect(l.affectsLearnedSlices(event)).toBe(false);
  });
});
