import { describe, expect, it } from 'vitest';
import { distillResult, learnedSlice, learnedSlices, sliceVersion } from '../../testing/ilp-fixtures.js';
import * as f from './learned-format.js';

describe('learned slices wording', () => {
  it('names the version in force and the newest status', () => {
    const [budgeting, homeostasis] = learnedSlices().slices;
    expect(f.inForceText(2)).toBe('v2');
    expect(f.inForceText(null)).toBe('not deployed');
    expect(f.latestText(budgeting!)).toBe('v2 deployed');
    expect(f.latestText(homeostasis!)).toBe('v1 proposed — waiting in Review');
    expect(f.latestTitle(homeostasis!)).toBe('Homeostasis');
    const removed = learnedSlice('learned-x', null, [sliceVersion(1, { status: 'superseded' }), sliceVersion(2, { kind: 'removed' })]);
    expect(f.latestText(removed)).toBe('removed');
    expect(f.latestText({ slice_id: 'learned-y', deployed_version: null, history: [], problem: null })).toBe('no versions');
    expect(f.kindText('rollback')).toBe('rolled back');
    expect(f.statusText('superseded')).toBe('superseded');
  });

  it('says what a distillation proposed, or what it found and turned down, and what it left out', () => {
    expect(f.proposedLead(2)).toBe('2 slices proposed — decide on them in ');
    expect(f.proposedLead(1)).toBe('1 slice proposed — decide on it in ');
    expect(f.nothingProposedText(distillResult({ patterns: 4, proposed: [], rejected: [{ concepts: ['a'], reasons: ['b'] }] }))).toBe('No new slices: 4 patterns found, 1 rejected');
    expect(f.nothingProposedText(distillResult({ patterns: 1, proposed: [] }))).toBe('No new slices: 1 pattern found, 0 rejected');
    expect(f.distillNotes(distillResult())).toEqual([]);
    expect(f.distillNotes(distillResult({ skipped: 1, untrusted_episodes: 3 }))).toEqual([
      '1 pattern was skipped: already in force, declined, or waiting in Review.',
      '3 episodes changed outside Silas were not read.',
    ]);
    expect(f.distillNotes(distillResult({ skipped: 2, untrusted_episodes: 1 }))).toEqual([
      '2 patterns were skipped: already in force, declined, or waiting in Review.',
      '1 episode changed outside Silas was not read.',
    ]);
  });

  it('accepts a minimum frequency the runtime accepts', () => {
    for (const ok of ['2', '3', '1000']) expect(f.minFrequencyProblem(ok)).toBeNull();
    for (const bad of ['', ' ', '1', '1001', '2.5', 'three']) expect(f.minFrequencyProblem(bad)).toBe('A whole number from 2 to 1,000.');
  });

  it('asks before a rollback and says what it did', () => {
    expect(f.rollbackName('learned-budgeting')).toBe('Roll back learned-budgeting');
    expect(f.rollbackQuestion('learned-budgeting', 2)).toBe('Put learned-budgeting back to the version before v2 (or remove it if there is none)?');
    expect(f.rollbackOutcomeText({ slice_id: 'learned-budgeting', version: 3, kind: 'rollback', restored_version: 1 })).toBe('learned-budgeting is back at v1');
    expect(f.rollbackOutcomeText({ slice_id: 'learned-budgeting', version: 3, kind: 'removed', restored_version: null })).toBe('learned-budgeting was removed');
    expect(f.rollbackOutcomeText({ slice_id: 'learned-budgeting', version: 3, kind: 'rollback', restored_version: null })).toBe('learned-budgeting was rolled back (now v3)');
  });

  it('counts the versions changed outside Silas', () => {
    expect(f.untrustedText(1)).toBe('1 version was changed outside Silas and is not used.');
    expect(f.untrustedText(3)).toBe('3 versions were changed outside Silas and are not used.');
  });
});
