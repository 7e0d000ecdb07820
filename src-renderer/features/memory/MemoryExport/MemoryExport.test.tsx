import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { exportFileName } from '../../../lib/cockpit/memory-transfer.js';
import { MemoryRuntime } from '../../../testing/memory-fixtures.js';
import { flushAll } from '../../../testing/render-alignment.js';
import { renderMemory } from '../../../testing/render-memory.js';
import { MemoryExport } from './MemoryExport.js';

/** What the page handed the browser to download: the file's name and text. */
let saved: { name: string; blob: Blob }[] = [];

beforeEach(() => {
  saved = [];
  const blobs: Blob[] = [];
  URL.createObjectURL = (blob: Blob) => {
    blobs.push(blob);
    return `blob:test/${blobs.length - 1}`;
  };
  URL.revokeObjectURL = () => undefined;
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, blob: blobs[Number(this.href.split('/').pop())]! });
  });
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const text = (blob: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.readAsText(blob);
  });

describe('MemoryExport', () => {
  it('downloads the whole bundle built from its pages, the raw record included by default', async () => {
    const harness = await renderMemory(<MemoryExport />);
    const raw = screen.getByRole('checkbox', { name: 'Include the raw record (what was said)' }) as HTMLInputElement;
    expect(raw.checked).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Export memory' }));
    await flushAll();
    expect(harness.runtime.exportCalls).toEqual([{ cursor: null, includeRaw: true }, { cursor: '1' }]);
    expect(saved.map((s) => s.name)).toEqual([exportFileName(new Date())]);
    expect(await text(saved[0]!.blob)).toBe(harness.runtime.exportPages.join(''));
    expect(screen.getByRole('status', { name: 'Export progress' }).textContent).toBe(`Saved 2 memories as ${exportFileName(new Date())}.`);
  });

  it('leaves out the raw record when unticked', async () => {
    const harness = await renderMemory(<MemoryExport />);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Include the raw record (what was said)' }));
    fireEvent.click(screen.getByRole('button', { name: 'Export memory' }));
    await flushAll();
    expect(harness.runtime.exportCalls[0]).toEqual({ cursor: null, includeRaw: false });
  });

  it("shows the runtime's message when the export fails, and saves nothing", async () => {
    const runtime = new MemoryRuntime();
    const harness = await renderMemory(<MemoryExport />, runtime);
    harness.transport.handle('memory.exportPage', () => ({ ok: false, error: { code: 'E_CONFLICT', message: '2 memory exports are already in progress; let one finish' } }));
    fireEvent.click(screen.getByRole('button', { name: 'Export memory' }));
    await flushAll();
    expect(saved).toEqual([]);
    expect(screen.getByRole('alert').textContent).toBe('Could not export memory: 2 memory exports are already in progress; let one finish (E_CONFLICT)');
  });

  it('names the file after the day it was exported', () => {
    expect(exportFileName(new Date(2026, 2, 1, 23, 59))).toBe('silas-memory-2026-03-01.jsonl');
  });
});
