import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryItem, MemoryRuntime } from '../../../testing/memory-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryResults } from '../MemoryResults/MemoryResults.js';

afterEach(cleanup);

/** The list item of the memory whose content includes `text`. */
const entry = (text: string) => screen.getAllByRole('listitem').find((li) => li.textContent?.includes(text))!;
const button = (li: HTMLElement, name: string) => within(li).queryByRole('button', { name });

describe('MemoryEntry', () => {
  it('shows a working memory with its type, trust, whose words, when, recalls and how it was found, and offers its changes', async () => {
    await renderMemory(<MemoryResults />);
    const tabs = entry('The owner indents code with tabs');
    expect(within(tabs).getByText('Preference')).toBeTruthy();
    expect(within(tabs).getByText('Working')).toBeTruthy();
    expect(within(tabs).getByText('from your session')).toBeTruthy();
    expect(within(tabs).getByText('never recalled')).toBeTruthy();
    expect(within(tabs).getByText('newest')).toBeTruthy();
    expect(tabs.querySelector('time')!.getAttribute('datetime')).toBe('2026-01-01T09:01:00.000Z');
    for (const name of ['Edit', 'Delete', 'Ask to verify…']) expect(button(tabs, name)).toBeTruthy();
  });

  it('marks a memory from outside, and says why verified memory offers no changes', async () => {
    await renderMemory(<MemoryResults />);
    const outside = entry('The release is on Friday');
    expect(within(outside).getByText('from outside')).toBeTruthy();
    expect(within(outside).getByText('recalled 2 times')).toBeTruthy();
    const verified = entry('The owner lives in Lisbon');
    expect(within(verified).getByText('Verified')).toBeTruthy();
    expect(within(verified).getByText('Verified: changes only through Review')).toBeTruthy();
    expect(within(verified).queryAllByRole('button')).toEqual([]);
  });

  it('says a constitutional memory never changes, and renders content as text with invisible characters spelled out', async () => {
    const runtime = new MemoryRuntime();
    runtime.items = [memoryItem(7, { content: '<img src=x onerror=alert(1)>Never\u200b share keys', trust_level: 'constitutional', taint: 'owner' })];
    await renderMemory(<MemoryResults />, runtime);
    const rule = screen.getByRole('listitem');
    expect(within(rule).getByText('Constitutional: never changed at runtime')).toBeTruthy();
    expect(within(rule).queryAllByRole('button')).toEqual([]);
    expect(rule.querySelector('img')).toBeNull();
    expect(rule.querySelector('.memory-entry__content')!.textContent).toBe('<img src=x onerror=alert(1)>Never[U+200B] share keys');
  });

  it('edits inline, saves, and shows the new text', async () => {
    const harness = await renderMemory(<MemoryResults />);
    fireEvent.click(button(entry('tabs'), 'Edit')!);
    const field = screen.getByRole('textbox', { name: 'Memory text' });
    expect(document.activeElement).toBe(field);
    fireEvent.change(field, { target: { value: 'The owner indents code with tabs (width 4), never spaces' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await flushAll();
    expect(harness.runtime.updates).toEqual([{ memoryId: 'memory-1', content: 'The owner indents code with tabs (width 4), never spaces' }]);
    expect(screen.queryByRole('textbox', { name: 'Memory text' })).toBeNull();
    expect(entry('tabs (width 4)')).toBeTruthy();
  });

  it("keeps the editor and shows the runtime's message when the edit is refused", async () => {
    const harness = await renderMemory(<MemoryResults />);
    harness.transport.handle('memory.update', () => ({ ok: false, error: { code: 'E_MEMORY_PROTECTED', message: 'memory memory-1 became verified; it changes only through Review' } }));
    fireEvent.click(button(entry('tabs'), 'Edit')!);
    fireEvent.change(screen.getByRole('textbox', { name: 'Memory text' }), { target: { value: 'new words' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not save the edit: memory memory-1 became verified; it changes only through Review (E_MEMORY_PROTECTED)');
    expect((screen.getByRole('textbox', { name: 'Memory text' }) as HTMLTextAreaElement).value).toBe('new words');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(entry('The owner indents code with tabs, never spaces')).toBeTruthy();
  });

  it('asks before deleting: keeping it changes nothing, yes deletes it', async () => {
    const harness = await renderMemory(<MemoryResults />);
    fireEvent.click(button(entry('tabs'), 'Delete')!);
    const question = screen.getByRole('alertdialog', { name: 'Delete this memory' });
    expect(question.textContent).toContain('no longer recalled in any conversation');
    expect(document.activeElement).toBe(within(question).getByRole('button', { name: 'Keep it' }));
    fireEvent.click(within(question).getByRole('button', { name: 'Keep it' }));
    await flushAll();
    expect(harness.runtime.deletes).toEqual([]);
    fireEvent.click(button(entry('tabs'), 'Delete')!);
    fireEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
    await flushAll();
    expect(harness.runtime.deletes).toEqual(['memory-1']);
    expect(screen.queryByText('The owner indents code with tabs, never spaces')).toBeNull();
  });

  it('asks to verify with an optional reason, then says it waits for a signature in Review and links there', async () => {
    const harness = await renderMemory(<MemoryResults />);
    fireEvent.click(button(entry('tabs'), 'Ask to verify…')!);
    const form = screen.getByRole('form', { name: 'Ask to verify' });
    expect(form.textContent).toContain('A card waits in Review for your signature.');
    fireEvent.change(within(form).getByRole('textbox', { name: 'Why (optional, shown on the card)' }), { target: { value: 'It is how I work' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Send to Review' }));
    await flushAll();
    expect(harness.runtime.promotions).toEqual([{ memoryId: 'memory-1', reason: 'It is how I work' }]);
    const tabs = entry('tabs');
    expect(tabs.textContent).toContain('Waiting for your signature in Review');
    expect(button(tabs, 'Ask to verify…')).toBeNull();
    expect(button(tabs, 'Edit')).toBeTruthy();
    act(() => fireEvent.click(within(tabs).getByRole('link', { name: 'Open Review' })));
    expect(harness.store.getState().navigation.route).toBe('review');
  });

  it('offers only deletion for the raw record (what was said)', async () => {
    const runtime = new MemoryRuntime();
    runtime.items = [memoryItem(9, { content: 'you said: use tabs', reingestion_tier: 'low_reingestion', memory_type: 'episode', source_kind: 'conversation_raw' })];
    const harness = await renderMemory(<MemoryResults />, runtime);
    act(() => harness.cockpit.actions.filterMemory({ lane: 'raw' }));
    await flushAll();
    const raw = screen.getByRole('listitem');
    expect(within(raw).getByText('raw record')).toBeTruthy();
    expect(within(raw).getAllByRole('button').map((b) => b.textContent)).toEqual(['Delete']);
  });
});
