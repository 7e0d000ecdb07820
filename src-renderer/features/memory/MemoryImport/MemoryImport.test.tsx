import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryRuntime } from '../../../testing/memory-fixtures.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryImport } from './MemoryImport.js';

afterEach(cleanup);

const BUNDLE = '{"kind":"silas.memory.bundle"}\n{"memory_id":"é"}\n';

function pick(content: string, name = 'silas-memory-2026-03-01.jsonl') {
  fireEvent.change(screen.getByLabelText('Bundle file'), { target: { files: [new File([content], name)] } });
}

const progress = () => screen.getByRole('status', { name: 'Import progress' }).textContent;

describe('MemoryImport', () => {
  it('uploads the picked file in chunks and shows what the import did', async () => {
    const harness = await renderMemory(<MemoryImport />);
    const start = screen.getByRole('button', { name: 'Import memory' }) as HTMLButtonElement;
    expect(start.disabled).toBe(true);
    pick(BUNDLE);
    fireEvent.click(start);
    await waitFor(() => expect(progress()).toBe('Imported silas-memory-2026-03-01.jsonl (merge): 2 memories: 1 new, 1 updated, 0 unchanged, 0 removed.'));
    const bytes = new TextEncoder().encode(BUNDLE);
    expect(harness.runtime.uploads).toEqual([{ name: 'silas-memory-2026-03-01.jsonl', bytes: bytes.length, received: String.fromCharCode(...bytes) }]);
    expect(harness.runtime.commits).toEqual([{ uploadId: '0', mode: 'merge' }]);
  });

  it('asks before a replace, and imports nothing when the person keeps their memory', async () => {
    const harness = await renderMemory(<MemoryImport />);
    pick(BUNDLE);
    fireEvent.click(screen.getByRole('radio', { name: /^Replace/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Import memory' }));
    const question = screen.getByRole('alertdialog', { name: 'Replace memory' });
    expect(question.textContent).toContain('every memory it covers that the file does not hold is removed');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Keep my memory' }));
    fireEvent.click(screen.getByRole('button', { name: 'Keep my memory' }));
    expect(screen.queryByRole('alertdialog')).toBeNull();
    expect(harness.runtime.uploads).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Import memory' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, replace' }));
    await waitFor(() => expect(harness.runtime.commits).toEqual([{ uploadId: '0', mode: 'replace' }]));
  });

  it("shows the runtime's refusal, which names the line and the rule", async () => {
    const runtime = new MemoryRuntime();
    runtime.importAnswer = {
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'cut.jsonl: the bundle is truncated: its last line (3) is cut short; export the bundle again (nothing was imported)' },
    };
    await renderMemory(<MemoryImport />, runtime);
    pick(BUNDLE, 'cut.jsonl');
    fireEvent.click(screen.getByRole('button', { name: 'Import memory' }));
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe(
        'Could not import cut.jsonl: cut.jsonl: the bundle is truncated: its last line (3) is cut short; export the bundle again (nothing was imported) (E_INVALID_ARGS)',
      ),
    );
  });

  it('drops the upload when a chunk is refused on its way', async () => {
    const harness = await renderMemory(<MemoryImport />);
    harness.transport.handle('memory.importChunk', () => ({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no memory upload 0 in progress' } }));
    pick(BUNDLE);
    fireEvent.click(screen.getByRole('button', { name: 'Import memory' }));
    await waitFor(() => expect(harness.runtime.aborts).toEqual(['0']));
    expect(harness.runtime.commits).toEqual([]);
    expect(screen.getByRole('alert').textContent).toContain('no memory upload 0 in progress');
  });
});
