import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryEditor } from './MemoryEditor.js';

afterEach(cleanup);

async function editing() {
  const harness = await renderMemory(<MemoryEditor memoryId="memory-1" />);
  act(() => harness.cockpit.actions.startMemoryEdit('memory-1'));
  return harness;
}

const save = () => screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;

describe('MemoryEditor', () => {
  it('starts from the memory as it is and says whose words the saved text becomes', async () => {
    await editing();
    expect((screen.getByRole('textbox', { name: 'Memory text' }) as HTMLTextAreaElement).value).toBe('The owner indents code with tabs, never spaces');
    expect(screen.getByText('Saved as your words from this session.')).toBeTruthy();
  });

  it('does not save an empty memory, and says to delete it instead', async () => {
    const harness = await editing();
    fireEvent.change(screen.getByRole('textbox', { name: 'Memory text' }), { target: { value: '   ' } });
    expect(save().disabled).toBe(true);
    expect(screen.getByText('A memory cannot be empty; delete it instead.')).toBeTruthy();
    fireEvent.submit(save().closest('form')!);
    await flushAll();
    expect(harness.runtime.updates).toEqual([]);
  });

  it('waits while saving, and Escape or Cancel leave without saving', async () => {
    const harness = await editing();
    harness.transport.handle('memory.update', () => new Promise(() => undefined));
    fireEvent.click(save());
    expect(save().disabled).toBe(true);
    expect(save().getAttribute('aria-busy')).toBe('true');
    act(() => harness.store.getState().memoryChangeFailed('memory-1', 'edit', 'stopped'));
    fireEvent.keyDown(screen.getByRole('textbox', { name: 'Memory text' }), { key: 'Escape' });
    expect(harness.store.getState().memory.editing).toBeNull();
  });
});
