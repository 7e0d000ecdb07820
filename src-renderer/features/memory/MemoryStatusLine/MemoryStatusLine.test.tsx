import { act, cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStatus, MemoryRuntime } from '../../../testing/memory-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryStatusLine } from './MemoryStatusLine.js';

afterEach(cleanup);

const line = () => screen.getByRole('status', { name: 'Memory status' }).textContent;

describe('MemoryStatusLine', () => {
  it('counts what memory holds and says recall by meaning is ready with which embedder', async () => {
    await renderMemory(<MemoryStatusLine />);
    expect(line()).toBe('3 active memories (1 verified, 0 constitutional), 12 in the raw record. Recall by meaning: ready (local word vectors, 100 dimensions)');
  });

  it('says why recall by meaning is off', async () => {
    const runtime = new MemoryRuntime();
    runtime.status = memoryStatus({ semantic: { state: 'unavailable', embedder: null, dimensions: null, pending: 0, problem: 'the vector index is not available: sqlite-vec did not load' } });
    await renderMemory(<MemoryStatusLine />, runtime);
    expect(line()).toContain('Recall by meaning: off: the vector index is not available: sqlite-vec did not load');
    expect(screen.getByText(/^Recall by meaning: off/).className).toContain('memory-status__semantic--off');
  });

  it("shows the runtime's message when the status cannot be read again, keeping what it read before", async () => {
    const harness = await renderMemory(<MemoryStatusLine />);
    harness.transport.handle('memory.status', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'Silas memory is not running in this runtime; restart Silas' } }));
    act(() => harness.cockpit.actions.navigate('stream'));
    act(() => harness.cockpit.actions.navigate('memory'));
    await flushAll();
    expect(screen.getByRole('alert').textContent).toBe('Could not read what memory holds: Silas memory is not running in this runtime; restart Silas (E_UNAVAILABLE)');
    expect(line()).toContain('3 active memories');
  });
});
