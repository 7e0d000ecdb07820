import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { agentView, AlignmentRuntime, FILES, SILAS } from '../../../testing/alignment-fixtures.js';
import { flushAll, renderAlignment } from '../../../testing/render-alignment.js';
import { AgentList } from './AgentList.js';

afterEach(cleanup);

const agents = () => within(screen.getByRole('region', { name: 'Agents' })).getByRole('list', { name: 'Agents' });
const item = (agentId: string) => within(agents()).getAllByRole('listitem').find((li) => li.textContent?.startsWith(agentId))!;

describe('AgentList', () => {
  it('lists each governed agent with its card, where the card came from, and its counts', async () => {
    const runtime = new AlignmentRuntime();
    runtime.agents = [
      agentView(FILES, { traces: 1234, violations: 2, escalations: 40, alerts: 1, lastTs: '2026-01-01T12:00:00.000Z' }),
      agentView(SILAS, { cardSource: 'edited', cardId: 'ac-silas-7', traces: 1 }),
      agentView('mcp:new', { cardId: null, cardSource: null }),
    ];
    await renderAlignment(<AgentList />, runtime);
    const files = item(FILES);
    expect(within(files).getByText('ac-mcp-files-1')).toBeTruthy();
    expect(files.textContent).toContain('Derived from the policy');
    expect(files.textContent).toContain('1,234 traces · 2 violations · 40 escalations · 1 drift alert');
    expect(within(files).getByText(/^Last decision/)).toBeTruthy();
    expect(item(SILAS).textContent).toContain('Card ac-silas-7 · Edited in the cockpit');
    expect(item(SILAS).textContent).toContain('1 trace · 0 violations');
    expect(item('mcp:new').textContent).toContain('No card yet');
  });

  it('shows an agent when its button is pressed, and marks the one shown', async () => {
    const harness = await renderAlignment(<AgentList />);
    const show = screen.getByRole('button', { name: `Show ${FILES}` });
    expect(show.textContent).toBe('Show');
    fireEvent.click(show);
    await flushAll();
    expect(harness.store.getState().alignment.selected).toBe(FILES);
    expect(harness.transport.callsTo('alignment.series')).toEqual([{ agentId: FILES, afterSeq: 0, limit: 100_000, newest: 100_000 }]);
    expect(item(FILES).getAttribute('aria-current')).toBe('true');
    expect(screen.getByRole('button', { name: `Show ${FILES}` }).textContent).toBe('Shown');
    expect(item(SILAS).hasAttribute('aria-current')).toBe(false);
  });

  it('explains an empty list, and says why the agents could not be loaded', async () => {
    const runtime = new AlignmentRuntime();
    runtime.agents = [];
    const harness = await renderAlignment(<AgentList />, runtime);
    expect(screen.getByText(/No governed agent has decided anything yet/)).toBeTruthy();
    harness.transport.handle('alignment.agents', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime busy' } }));
    harness.transport.setState('reconnecting');
    harness.transport.setState('connected');
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not load the agents: runtime busy (E_UNAVAILABLE)');
  });
});
