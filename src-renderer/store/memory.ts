import type { StateCreator } from 'zustand';
import type { MemoryItem } from '../../src-shared/silas/memory.js';
import type { CockpitState } from './cockpit-store.js';
import * as m from './memory-state.js';
import type { MemoryChange, MemoryFilters, MemoryHit, MemoryState, MemoryStatusValue } from './memory-state.js';
import * as t from './memory-transfer-state.js';
import type { MemoryImportMode, MemoryImportResult, MemoryTransferState } from './memory-transfer-state.js';

/** The Memory page's state in the cockpit store (spec 002 §6); the reducers are in memory-state.ts. */
export interface MemorySlice {
  memory: MemoryState;
  memoryDraftEdited(draft: string): void;
  memoryQuerySubmitted(): void;
  memoryFiltersChanged(change: Partial<MemoryFilters>): void;
  memorySearchLoading(): void;
  memorySearchLoaded(hits: readonly MemoryHit[]): void;
  memorySearchFailed(message: string): void;
  memoryStatusLoaded(value: MemoryStatusValue): void;
  memoryStatusFailed(message: string): void;
  memoryEditStarted(memoryId: string): void;
  memoryEditDrafted(draft: string): void;
  memoryEditCancelled(): void;
  memoryChangeSending(memoryId: string, change: MemoryChange): void;
  memoryChangeFailed(memoryId: string, change: MemoryChange, message: string): void;
  memoryUpdated(item: MemoryItem): void;
  memoryDeleted(memoryId: string): void;
  memoryPromotionAsked(memoryId: string): void;
  /** Export and import (memory-transfer-state.ts). */
  memoryTransfer: MemoryTransferState;
  memoryExportStarted(): void;
  memoryExportProgressed(done: number, total: number): void;
  memoryExportSaved(fileName: string, count: number): void;
  memoryExportFailed(message: string): void;
  memoryImportStarted(fileName: string, mode: MemoryImportMode, bytes: number): void;
  memoryImportUploaded(sent: number): void;
  memoryImportFinished(result: MemoryImportResult): void;
  memoryImportFailed(message: string): void;
}

export const createMemorySlice: StateCreator<CockpitState, [], [], MemorySlice> = (set) => {
  const update = (fn: (s: MemoryState) => MemoryState) => set((state) => ({ memory: fn(state.memory) }));
  const transfer = (fn: (s: MemoryTransferState) => MemoryTransferState) => set((state) => ({ memoryTransfer: fn(state.memoryTransfer) }));
  return {
    memory: m.initialMemory,
    memoryDraftEdited: (draft) => update((s) => m.draftEdited(s, draft)),
    memoryQuerySubmitted: () => update(m.querySubmitted),
    memoryFiltersChanged: (change) => update((s) => m.filtersChanged(s, change)),
    memorySearchLoading: () => update(m.searchLoading),
    memorySearchLoaded: (hits) => update((s) => m.searchLoaded(s, hits)),
    memorySearchFailed: (message) => update((s) => m.searchFailed(s, message)),
    memoryStatusLoaded: (value) => update((s) => m.statusLoaded(s, value)),
    memoryStatusFailed: (message) => update((s) => m.statusFailed(s, message)),
    memoryEditStarted: (memoryId) => update((s) => m.editStarted(s, memoryId)),
    memoryEditDrafted: (draft) => update((s) => m.editDrafted(s, draft)),
    memoryEditCancelled: () => update(m.editCancelled),
    memoryChangeSending: (memoryId, change) => update((s) => m.changeSending(s, memoryId, change)),
    memoryChangeFailed: (memoryId, change, message) => update((s) => m.changeFailed(s, memoryId, change, message)),
    memoryUpdated: (item) => update((s) => m.memoryUpdated(s, item)),
    memoryDeleted: (memoryId) => update((s) => m.memoryDeleted(s, memoryId)),
    memoryPromotionAsked: (memoryId) => update((s) => m.promotionAsked(s, memoryId)),
    memoryTransfer: t.initialMemoryTransfer,
    memoryExportStarted: () => transfer(t.exportStarted),
    memoryExportProgressed: (done, total) => transfer((s) => t.exportProgressed(s, done, total)),
    memoryExportSaved: (fileName, count) => transfer((s) => t.exportSaved(s, fileName, count)),
    memoryExportFailed: (message) => transfer((s) => t.exportFailed(s, message)),
    memoryImportStarted: (fileName, mode, bytes) => transfer((s) => t.importStarted(s, fileName, mode, bytes)),
    memoryImportUploaded: (sent) => transfer((s) => t.importUploaded(s, sent)),
    memoryImportFinished: (result) => transfer((s) => t.importFinished(s, result)),
    memoryImportFailed: (message) => transfer((s) => t.importFailed(s, message)),
  };
};
