import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRuntime } from '../../../testing/memory-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryResults } from './MemoryResults.js';

afterEach(cleanup);

const contents = () => within(screen.getByRole('list', { name: 'Memories' })).getAllByRole('listitem').map((li) => li.querySelector('.memory-entry__content')!.textContent);

describe('MemoryResults', () => {
  it('lists the newest memories for an empty box, and the matches of a search, best first', async () => {
    const harness = await renderMemory(<MemoryResults />);
    expect(screen.getByText('The 3 newest memories')).toBeTruthy();
    expect(contents()).toEqual(['The owner indents code with tabs, never spaces', 'The owner lives in Lisbon', 'The release is on Friday']);
    act(() => {
      harness.cockpit.actions.editMemoryQuery('tabs');
      harness.cockpit.actions.searchMemory();
    });
    await flushAll();
    expect(screen.getByText('1 memory matching “tabs”, best first')).toBeTruthy();
    expect(contents()).toEqual(['The owner indents code with tabs, never spaces']);
    expect(screen.getByText('found by keyword')).toBeTruthy();
  });

  it('says when nothing matches', async () => {
    const runtime = new MemoryRuntime();
    runtime.items = [];
    await renderMemory(<MemoryResults />, runtime);
    expect(screen.getByText('No memories match. Silas stores what it should remember as you talk to it in the Stream.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Memories' })).toBeNull();
  });

  it("shows why a search failed, keeping what was found before", async () => {
    const harness = await renderMemory(<MemoryResults />);
    harness.transport.handle('memory.search', () => ({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'query: the search text has at most 2000 characters' } }));
    act(() => harness.cockpit.actions.searchMemory());
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not search memory: query: the search text has at most 2000 characters (E_INVALID_ARGS)');
    expect(contents()).toHaveLength(3);
  });
});
