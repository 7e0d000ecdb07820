import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryPage } from './MemoryPage.js';

afterEach(cleanup);

describe('MemoryPage', () => {
  it('shows the status, the search and the newest memories; a search, an edit and a promotion go through the runtime', async () => {
    const harness = await renderMemory(<MemoryPage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Memory' })).toBeTruthy();
    expect(screen.getByRole('status', { name: 'Memory status' }).textContent).toContain('Recall by meaning: ready');
    fireEvent.change(screen.getByRole('searchbox', { name: 'Search memory' }), { target: { value: 'tabs' } });
    fireEvent.submit(screen.getByRole('search', { name: 'Memory' }));
    await flushAll();
    const found = within(screen.getByRole('list', { name: 'Memories' })).getAllByRole('listitem');
    expect(found).toHaveLength(1);

    fireEvent.click(within(found[0]!).getByRole('button', { name: 'Edit' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Memory text' }), { target: { value: 'The owner indents code with tabs (width 4), never spaces' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await flushAll();
    const item = screen.getByRole('listitem');
    expect(item.textContent).toContain('The owner indents code with tabs (width 4), never spaces');

    fireEvent.click(within(item).getByRole('button', { name: 'Ask to verify…' }));
    fireEvent.click(screen.getByRole('button', { name: 'Send to Review' }));
    await flushAll();
    expect(screen.getByRole('listitem').textContent).toContain('Waiting for your signature in Review');

    // Signed in Review: the page reads again when it is opened, and the memory is verified.
    harness.runtime.verify('memory-1');
    act(() => harness.cockpit.actions.navigate('review'));
    act(() => harness.cockpit.actions.navigate('memory'));
    await flushAll();
    const verified = screen.getByRole('listitem');
    expect(within(verified).getByText('Verified')).toBeTruthy();
    expect(within(verified).getByText('Verified: changes only through Review')).toBeTruthy();
    expect(within(verified).queryByRole('button', { name: 'Edit' })).toBeNull();
  });
});
