import { cleanup, render, screen, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hop, hopsOf } from '../../../testing/ilp-fixtures.js';
import { stubReactFlowDom } from '../../../testing/react-flow-dom.js';
import { CompositionGraph } from './CompositionGraph.js';

let restore: () => void;
beforeAll(() => (restore = stubReactFlowDom()));
afterAll(() => restore());
afterEach(cleanup);

const hopsList = () => screen.getByRole('list', { name: 'Hops' });

describe('CompositionGraph', () => {
  it('names the graph and says it in words, and draws a node per hop and per slice once React Flow has loaded', async () => {
    const { container } = render(<CompositionGraph hops={hopsOf()} />);
    const figure = screen.getByRole('figure', { name: 'Composition graph' });
    expect(within(figure).getByText('3 hops · 4 slices · depth 1')).toBeTruthy();
    expect(await within(figure).findByText('meta-agent')).toBeTruthy();
    expect(container.querySelectorAll('.react-flow__node-hop')).toHaveLength(3);
    expect(container.querySelectorAll('.react-flow__node-slice')).toHaveLength(4);
    expect(within(figure).getByText('finance/buffers.md')).toBeTruthy();
    expect(within(figure).getAllByText(/\$0\.0040 · confidence 0\.8/)).toHaveLength(2);
  });

  it('lists each hop in words: agent, kind, domain, depth, cost, confidence, status, who asked it and its slices', async () => {
    render(<CompositionGraph hops={hopsOf()} />);
    const items = within(hopsList()).getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual([
      'meta-agent (meta-agent) · meta · depth 0 · $0.0020 · confidence 0.89 · 200 OK · the query · slices: meta-agent/decomposition',
      'financial (specialist) · finance · depth 1 · $0.0040 · confidence 0.82 · 200 OK · asked by meta-agent · slices: finance/budgeting.md, finance/buffers.md',
      'biology (specialist) · biology · depth 1 · $0.0040 · confidence 0.88 · 200 OK · asked by meta-agent · slices: biology/homeostasis.md',
    ]);
    await screen.findAllByText('meta-agent');
  });

  it('names the principle and severity of a refused hop, and a hop without slices', async () => {
    render(<CompositionGraph hops={[...hopsOf(), hop('h-deep', { parent: 'h-finance', agent: 'systems', kind: 'remote', depth: 2, status: 429, principle: 'recursion_budget', severity: 'error', slices: [], confidence: null })]} />);
    const deep = within(hopsList()).getAllByRole('listitem')[3]!;
    expect(deep.textContent).toBe('systems (remote agent) · systems · depth 2 · $0.0040 · no confidence given · 429 Budget Exceeded · recursion_budget (error) · asked by financial · no slices');
    expect(deep.className).toContain('ilp-tone--bad');
    await screen.findAllByText('meta-agent');
  });
});
