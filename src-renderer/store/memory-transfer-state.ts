import type { CallResult } from '../../src-shared/contract/index.js';

/*
 * Export and import on the Memory page (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md
 * "From the cockpit"): how far each has got, and how it ended (the bundle saved, the import's
 * counts, or the runtime's message, which names the line and the rule). Pure reducers; memory.ts
 * puts them in the store and lib/cockpit/memory-transfer.ts does the I/O.
 */

export type MemoryImportResult = CallResult<'memory.importCommit'>;
export type MemoryImportMode = MemoryImportResult['mode'];

export interface MemoryExportState {
  phase: 'idle' | 'running' | 'done' | 'error';
  /** Memories received so far, of `total` (the bundle header's count). */
  done: number;
  total: number | null;
  /** The file saved, once done. */
  fileName: string | null;
  error: string | null;
}

export interface MemoryImportState {
  phase: 'idle' | 'uploading' | 'importing' | 'done' | 'error';
  fileName: string | null;
  mode: MemoryImportMode;
  sent: number;
  bytes: number;
  result: MemoryImportResult | null;
  error: string | null;
}

export interface MemoryTransferState {
  exporting: MemoryExportState;
  importing: MemoryImportState;
}

export const initialMemoryTransfer: MemoryTransferState = {
  exporting: { phase: 'idle', done: 0, total: null, fileName: null, error: null },
  importing: { phase: 'idle', fileName: null, mode: 'merge', sent: 0, bytes: 0, result: null, error: null },
};

export const exportStarted = (s: MemoryTransferState): MemoryTransferState => ({ ...s, exporting: { phase: 'running', done: 0, total: null, fileName: null, error: null } });

export const exportProgressed = (s: MemoryTransferState, done: number, total: number): MemoryTransferState => ({ ...s, exporting: { ...s.exporting, done, total } });

export const exportSaved = (s: MemoryTransferState, fileName: string, count: number): MemoryTransferState => ({
  ...s,
  exporting: { phase: 'done', done: count, total: count, fileName, error: null },
});

export const exportFailed = (s: MemoryTransferState, error: string): MemoryTransferState => ({ ...s, exporting: { ...s.exporting, phase: 'error', error } });

export const importStarted = (s: MemoryTransferState, fileName: string, mode: MemoryImportMode, bytes: number): MemoryTransferState => ({
  ...s,
  importing: { phase: 'uploading', fileName, mode, sent: 0, bytes, result: null, error: null },
});

export const importUploaded = (s: MemoryTransferState, sent: number): MemoryTransferState => ({
  ...s,
  importing: { ...s.importing, sent, phase: sent >= s.importing.bytes ? 'importing' : 'uploading' },
});

export const importFinished = (s: MemoryTransferState, result: MemoryImportResult): MemoryTransferState => ({ ...s, importing: { ...s.importing, phase: 'done', result, error: null } });

export const importFailed = (s: MemoryTransferState, error: string): MemoryTransferState => ({ ...s, importing: { ...s.importing, phase: 'error', error } });

/** A transfer is on its way: the page offers no second one meanwhile. */
export const transferBusy = (s: MemoryTransferState): boolean => s.exporting.phase === 'running' || s.importing.phase === 'uploading' || s.importing.phase === 'importing';
