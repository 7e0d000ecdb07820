import { cleanup, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compositionView, IlpRuntime } from '../../../testing/ilp-fixtures.js';
import { stubReactFlowDom } from '../../../testing/react-flow-dom.js';
import { renderIlp } from '../../../testing/render-ilp.js';
import { CompositionDetail } from './CompositionDetail.js';

let restore: () => void;
beforeAll(() => (restore = stubReactFlowDom()));
afterAll(() => restore());
afterEach(cleanup);

describe('CompositionDetail', () => {
  it('shows the inspected composition: outcome, answer, graph, influencers, messages and the replay form', async () => {
    await renderIlp(<CompositionDetail />, new IlpRuntime(), 'c-2');
    const detail = screen.getByRole('region', { name: 'query 2' });
    expect(detail.textContent).toContain('200 OK · PASSED · $0.0100 · 3 hops · depth 1 · ');
    expect(within(detail).getByLabelText('Answer').textContent).toContain('Keep a buffer');
    for (const name of ['Graph', 'Influencers', 'Messages', 'Replay']) expect(within(detail).getByRole('region', { name })).toBeTruthy();
    expect(within(detail).getAllByRole('listitem').filter((li) => li.closest('[aria-label="Hops"]'))).toHaveLength(3);
    await within(detail).findAllByText('meta-agent');
  });

  it('marks a replay and a composition that failed its seal', async () => {
    const runtime = new IlpRuntime();
    runtime.views.set('c-2', compositionView('c-2', { query: 'query 2', replay_of: 'c-1', trusted: false, answer: null }));
    await renderIlp(<CompositionDetail />, runtime, 'c-2');
    const detail = screen.getByRole('region', { name: 'query 2' });
    expect(detail.textContent).toContain('Replay of c-1');
    expect(detail.textContent).toContain('Not trusted — changed outside Silas');
    expect(within(detail).getByLabelText('Answer').textContent).toMatch(/^No answer/);
    await within(detail).findAllByText('meta-agent');
  });

  it('asks for a pick first, and says why a composition could not be read', async () => {
    const harness = await renderIlp(<CompositionDetail />);
    expect(screen.getByRole('region', { name: 'Composition' }).textContent).toBe('Pick a composition to inspect it.');
    cleanup();
    await renderIlp(<CompositionDetail />, harness.runtime, 'c-404');
    expect(screen.getByRole('alert').textContent).toBe('Could not load the composition: no ILP composition "c-404" is stored (E_NOT_FOUND)');
  });
});
