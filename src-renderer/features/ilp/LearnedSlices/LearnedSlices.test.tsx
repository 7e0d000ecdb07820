import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { IlpRuntime, learnedSlice, sliceVersion } from '../../../testing/ilp-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderIlp } from '../../../testing/render-ilp.js';
import { LearnedSlices } from './LearnedSlices.js';

afterEach(cleanup);

const table = () => screen.getByRole('table', { name: 'Learned slices' });
/** Each slice's row as its cells read: slice (id and title), in force, latest. */
const rows = () =>
  within(table())
    .getAllByRole('row')
    .filter((row) => within(row).queryByRole('rowheader') !== null)
    .map((row) => Array.from((row as HTMLTableRowElement).cells, (cell) => cell.textContent).slice(0, 3));
const rollBack = (slice: string) => screen.getByRole('button', { name: `Roll back ${slice}` }) as HTMLButtonElement;
const outcome = () => screen.getByRole('status', { name: 'Rollback' });

describe('LearnedSlices', () => {
  it('lists each learned slice with the version in force and its newest status, and rolls back only one in force', async () => {
    await renderIlp(<LearnedSlices />);
    expect(screen.getByRole('region', { name: 'Learned slices' })).toBeTruthy();
    expect(rows()).toEqual([
      ['learned-budgetingBudgeting, version 2', 'v2', 'v2 deployed'],
      ['learned-homeostasisHomeostasis', 'not deployed', 'v1 proposed — waiting in Review'],
    ]);
    expect(rollBack('learned-budgeting').disabled).toBe(false);
    expect(rollBack('learned-homeostasis').disabled).toBe(true);
    expect(screen.queryByText(/changed outside Silas/)).toBeNull();
  });

  it('opens a slice\'s history, marks a version changed outside Silas, and warns how many are not used', async () => {
    const runtime = new IlpRuntime();
    runtime.learned = {
      slices: [learnedSlice('learned-budgeting', 1, [sliceVersion(1), sliceVersion(2, { status: 'superseded', trusted: false })])],
      untrusted: 1,
    };
    await renderIlp(<LearnedSlices />, runtime);
    expect(screen.getByText('1 version was changed outside Silas and is not used.')).toBeTruthy();
    const toggle = screen.getByRole('button', { name: 'History of learned-budgeting' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('list', { name: 'History of learned-budgeting' })).toBeNull();
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const versions = within(screen.getByRole('list', { name: 'History of learned-budgeting' })).getAllByRole('listitem');
    expect(versions).toHaveLength(2);
    expect(within(versions[0]!).getByText('Not trusted — changed outside Silas')).toBeTruthy();
    expect(within(versions[1]!).queryByText('Not trusted — changed outside Silas')).toBeNull();
  });

  it('says when the version in force was not loaded because it was changed outside Silas, and still offers the rollback', async () => {
    const runtime = new IlpRuntime();
    runtime.learned = { slices: [learnedSlice('learned-budgeting', 1, [sliceVersion(1)], 'the version in force of learned-budgeting is not the one Silas last deployed')], untrusted: 0 };
    await renderIlp(<LearnedSlices />, runtime);
    expect(rows()[0]![1]).toBe('v1 — not used: the version in force of learned-budgeting is not the one Silas last deployed');
    expect(rollBack('learned-budgeting').disabled).toBe(false);
  });

  it('asks before a rollback, then rolls back, reads the list again and says where the slice is', async () => {
    const harness = await renderIlp(<LearnedSlices />);
    fireEvent.click(rollBack('learned-budgeting'));
    const question = screen.getByRole('alertdialog', { name: 'Roll back learned-budgeting' });
    expect(question.textContent).toContain('Put learned-budgeting back to the version before v2 (or remove it if there is none)?');
    expect(document.activeElement).toBe(within(question).getByRole('button', { name: 'Keep v2' }));
    expect(harness.runtime.rollbacks).toEqual([]);
    fireEvent.click(within(question).getByRole('button', { name: 'Yes, roll back' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await flushAll();
    expect(harness.runtime.rollbacks).toEqual([{ slice_id: 'learned-budgeting' }]);
    expect(harness.transport.callsTo('ilp.slices')).toHaveLength(2);
    expect(outcome().textContent).toBe('learned-budgeting is back at v1');
    expect(rows()[0]).toEqual(['learned-budgetingBudgeting, version 1', 'v3', 'v3 deployed']);
    fireEvent.click(screen.getByRole('button', { name: 'History of learned-budgeting' }));
    const kinds = within(screen.getByRole('list', { name: 'History of learned-budgeting' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent?.split(' · ').slice(0, 3).join(' · '));
    expect(kinds).toEqual(['v3 · rolled back · deployed', 'v2 · updated · superseded', 'v1 · created · superseded']);
  });

  it('changes nothing when the person keeps the version, and says when a slice with no backup is removed', async () => {
    const runtime = new IlpRuntime();
    runtime.learned = { slices: [learnedSlice('learned-homeostasis', 1, [sliceVersion(1, { title: 'Homeostasis' })])], untrusted: 0 };
    const harness = await renderIlp(<LearnedSlices />, runtime);
    fireEvent.click(rollBack('learned-homeostasis'));
    fireEvent.click(screen.getByRole('button', { name: 'Keep v1' }));
    await flushAll();
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.transport.callsTo('ilp.rollback')).toEqual([]);
    fireEvent.click(rollBack('learned-homeostasis'));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, roll back' }));
    await flushAll();
    expect(outcome().textContent).toBe('learned-homeostasis was removed');
    expect(rows()).toEqual([['learned-homeostasisHomeostasis', 'not deployed', 'removed']]);
    expect(rollBack('learned-homeostasis').disabled).toBe(true);
  });

  it('shows why a rollback was refused, with the list read again', async () => {
    const harness = await renderIlp(<LearnedSlices />);
    harness.transport.handle('ilp.rollback', () => ({ ok: false, error: { code: 'E_CONFLICT', message: 'learned-budgeting has no trusted backup' } }));
    fireEvent.click(rollBack('learned-budgeting'));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, roll back' }));
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not roll back learned-budgeting: learned-budgeting has no trusted backup (E_CONFLICT)');
    expect(harness.transport.callsTo('ilp.slices')).toHaveLength(2);
  });

  it('reads the list again after a distillation, its proposals shown waiting', async () => {
    const runtime = new IlpRuntime();
    runtime.learned = { slices: [], untrusted: 0 };
    const harness = await renderIlp(<LearnedSlices />, runtime);
    expect(screen.getByText('No learned slices yet. Distillation proposes slices from answered queries; each waits for you in Review.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    harness.runtime.learned = { slices: [learnedSlice('learned-diversification', null, [sliceVersion(1, { status: 'proposed', title: 'Diversification', decided_at: null })])], untrusted: 0 };
    fireEvent.click(screen.getByRole('button', { name: 'Distill now' }));
    await flushAll();
    expect(rows()).toEqual([['learned-diversificationDiversification', 'not deployed', 'v1 proposed — waiting in Review']]);
  });

  it('says why the list could not be read again, and keeps showing what it read before', async () => {
    const harness = await renderIlp(<LearnedSlices />);
    harness.transport.handle('ilp.slices', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'the ILP service is not running in this runtime; restart Silas' } }));
    act(() => harness.cockpit.actions.navigate('ilp'));
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not load the learned slices: the ILP service is not running in this runtime; restart Silas (E_UNAVAILABLE)');
    expect(rows()).toHaveLength(2);
  });
});
