import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush } from '../../../testing/render-cockpit.js';
import { emitStream, renderStream } from '../../../testing/render-stream.js';
import { contextItem, contextView, lastEviction, withContext } from '../../../testing/stream-context-fixtures.js';
import { event, opened, usage } from '../../../testing/stream-fixtures.js';
import { StreamPage } from '../StreamPage/StreamPage.js';

afterEach(cleanup);

const panel = () => screen.getByRole('region', { name: 'Context inspector' });
const zone = (name: string) => within(panel()).getByRole('region', { name });
const items = (name: string) => within(zone(name)).getAllByRole('listitem');
const facts = (root: HTMLElement) => Array.from(root.querySelectorAll('dl > div')).map((row) => [row.querySelector('dt')?.textContent, row.querySelector('dd')?.textContent]);

async function openPanel(view = () => contextView(), transport = new FakeTransport('connected')) {
  const harness = await renderStream(<StreamPage />, opened(), withContext(transport, view));
  fireEvent.click(screen.getByRole('button', { name: 'Show context' }));
  await flush();
  return harness;
}

describe('ContextInspector', () => {
  it('opens and closes beside the conversation from the page header', async () => {
    const harness = await openPanel();
    expect(screen.getByRole('button', { name: 'Hide context' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('button', { name: 'Hide context' }).getAttribute('aria-controls')).toBe(panel().id);
    expect(screen.getByRole('log', { name: 'Conversation' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Hide context' }));
    expect(screen.queryByRole('region', { name: 'Context inspector' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Show context' }).getAttribute('aria-expanded')).toBe('false');
    expect(harness.transport.callsTo('stream.context')).toHaveLength(1);
  });

  it('shows the window against its eviction threshold, and each zone against its budget under the profile', async () => {
    await openPanel();
    expect(facts(panel()).slice(0, 4)).toEqual([
      ['In context', '433 of 100,000 tokens (0%)'],
      ['Eviction above', '80,000 tokens (80%)'],
      ['Profile', 'default'],
      ['Turns', '2'],
    ]);
    expect(within(panel()).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(['System', 'Chronicle', 'Memory', 'Workspace', 'Kept in context', 'Last eviction']);
    expect(zone('Chronicle').textContent).toContain('23 of 40,000 tokens (40% share)');
    expect(zone('System').textContent).toContain('400 of 2,000 tokens (fixed system budget)');
    expect(within(zone('Workspace')).getByText('Nothing here yet.')).toBeTruthy();
    expect(within(zone('Last eviction')).getByText('Nothing has been evicted from this conversation yet.')).toBeTruthy();
  });

  it('lists each item with its kind, source, taint, tokens, markers and turn; a memory with its relevance', async () => {
    await openPanel();
    const [said, answered] = items('Chronicle');
    expect(said!.textContent).toContain('message');
    expect(said!.textContent).toContain('channel:cockpit');
    expect(within(said!).getByText('from your session')).toBeTruthy();
    expect(said!.textContent).toContain('14 tokens');
    expect(said!.textContent).toContain('turn 1');
    expect(said!.textContent).toContain('[auth] owner: I always indent with tabs, never spaces');
    expect(said!.textContent).not.toContain('relevance');
    expect(answered!.textContent).toContain('agent:proxy');

    const [memory] = items('Memory');
    expect(memory!.textContent).toContain('memory:agent_memory_op');
    expect(memory!.textContent).toContain('relevance 0.82');
    expect(memory!.textContent).toContain('The owner indents code with tabs');

    const [system] = items('System');
    expect(within(system!).getByText('pinned')).toBeTruthy();
    expect(within(system!).queryByText('masked')).toBeNull();
  });

  it('marks text from outside, spells out invisible characters and renders markup as text', async () => {
    const view = contextView();
    view.zones[3] = {
      ...view.zones[3]!,
      tokens: 50,
      items: [contextItem('tool-1', { kind: 'tool_result', source: 'tool:web_fetch:succeeded', taint: 'external', tokens: 50, masked: true, excerpt: '<img src=x onerror=alert(1)>\u202Eevil' })],
      omitted: 3,
    };
    await openPanel(() => view);
    const [tool] = items('Workspace');
    expect(within(tool!).getByText('from outside')).toBeTruthy();
    expect(within(tool!).getByText('masked')).toBeTruthy();
    expect(tool!.textContent).toContain('<img src=x onerror=alert(1)>[U+202E]evil');
    expect(tool!.querySelector('img')).toBeNull();
    expect(zone('Workspace').textContent).toContain('3 older items not listed');
  });

  it('says what the last eviction took, which tier decided and why', async () => {
    await openPanel(() => contextView({ last_eviction: lastEviction() }));
    const rows = facts(zone('Last eviction'));
    expect(rows[0]![1]).toMatch(/^turn 7, \d{4}-\d{2}-\d{2} /);
    expect(rows.slice(1)).toEqual([
      ['Tier', 'scorer: the scorer model'],
      ['Evicted', '3 items: 2 from Chronicle, 1 from Memory'],
      ['Reasons', '2 chosen by the scorer, 1 a trivial acknowledgement'],
      ['Why', 'over the threshold after Tier 1; the scorer grouped the oldest exchanges'],
    ]);
  });

  it('reads again when a turn finishes, and shows a refusal in the runtime’s words', async () => {
    let turns = 2;
    const harness = await openPanel(() => contextView({ turns }));
    turns = 3;
    emitStream(harness, event('turn_finished', { turn_id: 't3', outcome: 'answered', usage: usage(), error: null }));
    await flush();
    expect(facts(panel())[3]).toEqual(['Turns', '3']);

    harness.transport.handle('stream.context', () => ({ ok: false, error: { code: 'E_FORBIDDEN', message: 'this conversation belongs to another session; open your own' } }));
    fireEvent.click(within(panel()).getByRole('button', { name: 'Refresh' }));
    await flush();
    expect(within(panel()).getByRole('alert').textContent).toBe('Could not read the context: this conversation belongs to another session; open your own (E_FORBIDDEN)');
    expect(facts(panel())[3]).toEqual(['Turns', '3']);
  });
});
