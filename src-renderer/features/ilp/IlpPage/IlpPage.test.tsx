import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IlpRuntime } from '../../../testing/ilp-fixtures.js';
import { stubReactFlowDom } from '../../../testing/react-flow-dom.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderIlp } from '../../../testing/render-ilp.js';
import { IlpPage } from './IlpPage.js';

let restore: () => void;
beforeAll(() => (restore = stubReactFlowDom()));
afterAll(() => restore());
afterEach(cleanup);

describe('IlpPage', () => {
  it('lists the compositions on the left and inspects the one picked on the right', async () => {
    await renderIlp(<IlpPage />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('ILP');
    expect(screen.getByRole('region', { name: 'Composition' }).textContent).toBe('Pick a composition to inspect it.');
    fireEvent.click(screen.getByRole('button', { name: 'query 3' }));
    await flushAll();
    const hops = within(screen.getByRole('list', { name: 'Hops' })).getAllByRole('listitem');
    expect(hops.map((li) => li.textContent?.split(' ·')[0])).toEqual(['meta-agent (meta-agent)', 'financial (specialist)', 'biology (specialist)']);
    expect(screen.getByRole('button', { name: 'Replay' })).toBeTruthy();
    await screen.findByRole('figure', { name: 'Composition graph' });
    await within(screen.getByRole('figure', { name: 'Composition graph' })).findAllByText('meta-agent');
  });

  it('shows the learned slices below the inspector, read when the page is shown', async () => {
    const harness = await renderIlp(<IlpPage />);
    const learned = screen.getByRole('region', { name: 'Learned slices' });
    expect(within(learned).getByRole('heading', { level: 2 }).textContent).toBe('Learned slices');
    expect(within(learned).getByRole('button', { name: 'Distill now' })).toBeTruthy();
    expect(within(within(learned).getByRole('table', { name: 'Learned slices' })).getAllByRole('rowheader').map((th) => th.querySelector('code')?.textContent)).toEqual([
      'learned-budgeting',
      'learned-homeostasis',
    ]);
    expect(harness.transport.callsTo('ilp.slices')).toEqual([{}]);
  });

  it('explains how compositions arrive on a home that has none', async () => {
    const runtime = new IlpRuntime();
    runtime.stored = [];
    await renderIlp(<IlpPage />, runtime);
    expect(screen.getByText("silas ilp send 'ilp://meta-agent/insight?domain=meta&depth=0&budget_usd=0&max_budget_usd=0.05' --body query.json")).toBeTruthy();
  });
});
