import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ILP_PAGE } from '../../../store/ilp-state.js';
import { arrived, compositionSummary, IlpRuntime, summaries } from '../../../testing/ilp-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderIlp } from '../../../testing/render-ilp.js';
import { CompositionList } from './CompositionList.js';

afterEach(cleanup);

const rows = () => within(screen.getByRole('list', { name: 'Compositions' })).getAllByRole('listitem');

describe('CompositionList', () => {
  it('lists stored compositions newest first with status and reason, constitutional status, cost, hops and time', async () => {
    const runtime = new IlpRuntime();
    runtime.stored = [
      compositionSummary('c-2', { query: 'Replay with a tiny budget', status: 429, constitutional_status: 'VIOLATION', cost_usd: 0.0001, hops: 1, replay_of: 'c-1', started_at: '2026-01-01T12:05:00.000Z' }),
      compositionSummary('c-1', { trusted: false }),
    ];
    await renderIlp(<CompositionList />, runtime);
    const [replay, original] = rows();
    expect(within(replay!).getByRole('button', { name: 'Replay with a tiny budget' })).toBeTruthy();
    expect(replay!.textContent).toContain('429 Budget Exceeded · VIOLATION · $0.0001 · 1 hop · ');
    expect(replay!.querySelector('time')!.getAttribute('dateTime')).toBe('2026-01-01T12:05:00.000Z');
    expect(replay!.textContent).toContain('Replay of c-1');
    expect(replay!.textContent).not.toContain('Not trusted');
    expect(original!.textContent).toContain('200 OK · PASSED · $0.0100 · 3 hops');
    expect(original!.textContent).toContain('Not trusted — changed outside Silas');
    expect(screen.getByText('2 of 2 shown')).toBeTruthy();
  });

  it('shows one page of 10,000 stored compositions and loads older ones on request', async () => {
    const runtime = new IlpRuntime();
    runtime.stored = summaries(10_000);
    const harness = await renderIlp(<CompositionList />, runtime);
    expect(rows()).toHaveLength(ILP_PAGE);
    expect(screen.getByText(`${ILP_PAGE} of 10,000 shown`)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Load older compositions' }));
    await flushAll();
    expect(rows()).toHaveLength(2 * ILP_PAGE);
    expect(harness.transport.callsTo('ilp.list')).toEqual([{ limit: ILP_PAGE }, { before: `c-${10_000 - ILP_PAGE + 1}`, limit: ILP_PAGE }]);
  });

  it('inserts a composition as it is stored and updates one as it changes, and marks the one inspected', async () => {
    const harness = await renderIlp(<CompositionList />);
    act(() => harness.transport.emit('ilp.composition', arrived('c-4', { query: 'A new one', started_at: '2026-01-01T13:00:00.000Z' })));
    expect(rows()[0]!.textContent).toContain('A new one');
    act(() => harness.transport.emit('ilp.composition', arrived('c-4', { query: 'A new one', started_at: '2026-01-01T13:00:00.000Z', status: 207 })));
    expect(rows()).toHaveLength(4);
    expect(rows()[0]!.textContent).toContain('207 Multi-Status');
    fireEvent.click(within(rows()[1]!).getByRole('button'));
    await flushAll();
    expect(harness.store.getState().ilp.selected).toBe('c-3');
    expect(rows()[1]!.getAttribute('aria-current')).toBe('true');
    expect(rows()[0]!.hasAttribute('aria-current')).toBe(false);
  });

  it('explains how compositions arrive when there are none, and why the list could not be read', async () => {
    const runtime = new IlpRuntime();
    runtime.stored = [];
    const harness = await renderIlp(<CompositionList />, runtime);
    const region = screen.getByRole('region', { name: 'Compositions' });
    expect(region.textContent).toContain('No composition is stored yet');
    expect(within(region).getByText("silas ilp send 'ilp://meta-agent/insight?domain=meta&depth=0&budget_usd=0&max_budget_usd=0.05' --body query.json")).toBeTruthy();
    expect(region.textContent).toContain("the runtime's ILP endpoint");
    harness.transport.handle('ilp.list', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'the ILP service is not running in this runtime; restart Silas' } }));
    harness.transport.setState('reconnecting');
    harness.transport.setState('connected');
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not load the compositions: the ILP service is not running in this runtime; restart Silas (E_UNAVAILABLE)');
  });
});
