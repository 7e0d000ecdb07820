import { transferBusy, type MemoryImportMode } from '../../store/memory-transfer-state.js';
import { describeError } from '../client.js';
import type { FeatureDeps } from './feature.js';

/*
 * Export and import on the Memory page (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md
 * "From the cockpit"). A WebSocket message is bounded, so the bundle comes in pages
 * (`memory.exportPage`) and goes up in chunks (`memory.importBegin`, `memory.importChunk`,
 * `memory.importCommit`); the runtime checks the whole bundle before it writes anything.
 */

/** The bundle's file name: the viewer's day, as `silas-memory-YYYY-MM-DD.jsonl`. */
export function exportFileName(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `silas-memory-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.jsonl`;
}

/** Hands the bundle to the browser as a download (the Electron window saves it the same way). */
function saveFile(name: string, parts: readonly string[]): void {
  const url = URL.createObjectURL(new Blob(parts as string[], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has handed the URL over; revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Pages the export into one file, then saves it; progress counts the lines received. */
export async function exportMemory({ call, store }: FeatureDeps, includeRaw: boolean, now = new Date()): Promise<void> {
  const state = () => store.getState();
  if (transferBusy(state().memoryTransfer)) return;
  state().memoryExportStarted();
  const parts: string[] = [];
  let lines = 0;
  try {
    let page = await call('memory.exportPage', { cursor: null, includeRaw });
    for (;;) {
      parts.push(page.text);
      lines += page.text.split('\n').length - 1;
      // The header is the first line; memories follow.
      state().memoryExportProgressed(Math.min(Math.max(lines - 1, 0), page.count), page.count);
      if (page.next === null) break;
      page = await call('memory.exportPage', { cursor: page.next });
    }
    const name = exportFileName(now);
    saveFile(name, parts);
    state().memoryExportSaved(name, page.done?.count ?? page.count);
  } catch (error) {
    state().memoryExportFailed(describeError(error));
  }
}

function readBytes(file: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(new Error(`could not read the file: ${reader.error?.message ?? 'unknown error'}; pick it again`));
    reader.readAsArrayBuffer(file);
  });
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Uploads the picked file and imports it; `done` runs once it went in (the page reads memory
 * again). An upload that fails on its way is dropped at once, so its file does not wait for the
 * runtime's idle timeout.
 */
export async function importMemory({ call, store }: FeatureDeps, file: File, mode: MemoryImportMode, done: () => void): Promise<void> {
  const state = () => store.getState();
  if (transferBusy(state().memoryTransfer)) return;
  state().memoryImportStarted(file.name, mode, file.size);
  let uploadId: string | null = null;
  try {
    const begun = await call('memory.importBegin', { name: file.name, bytes: file.size });
    uploadId = begun.uploadId;
    for (let offset = 0; offset < file.size; offset += begun.chunkBytes) {
      const bytes = await readBytes(file.slice(offset, offset + begun.chunkBytes));
      const { received } = await call('memory.importChunk', { uploadId, offset, data: base64(bytes) });
      state().memoryImportUploaded(received);
    }
    const id = uploadId;
    uploadId = null; // the commit ends the upload, whatever its outcome
    state().memoryImportFinished(await call('memory.importCommit', { uploadId: id, mode }));
    done();
  } catch (error) {
    state().memoryImportFailed(describeError(error));
    if (uploadId !== null) call('memory.importAbort', { uploadId }).catch(() => undefined);
  }
}
