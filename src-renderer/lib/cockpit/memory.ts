import { affectsMemory, memoryControls, searchArgs, type MemoryFilters } from '../../store/memory-state.js';
import { describeError } from '../client.js';
import { refreshingLoader } from '../refreshing-loader.js';
import type { MemoryImportMode } from '../../store/memory-transfer-state.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { exportMemory, importMemory } from './memory-transfer.js';

/** The results and counts are read again once per burst of memory's ledger entries. */
export const MEMORY_REFRESH_DELAY_MS = 300;
/** While recall by meaning starts or catches up, the status line is read again this often (page open only). */
export const MEMORY_STATUS_POLL_MS = 2_000;

/** What the Memory page may ask for. */
export interface MemoryActions {
  /** The person typed in the search box (nothing is searched until it is submitted). */
  editMemoryQuery(text: string): void;
  /** Searches for the box's text; an empty box lists the newest memories matching the filters. */
  searchMemory(): void;
  /** Changes the filters and searches again with them. */
  filterMemory(change: Partial<MemoryFilters>): void;
  /** Opens the inline editor on a working memory (one at a time). */
  startMemoryEdit(memoryId: string): void;
  editMemoryDraft(text: string): void;
  cancelMemoryEdit(): void;
  /** Saves the editor's text (`memory.update`); refused, the editor stays open with the runtime's message. */
  saveMemoryEdit(): void;
  /** Deletes a working memory (`memory.delete`); the page asks first. */
  deleteMemory(memoryId: string): void;
  /** Asks to verify a working memory (`memory.promote`): a card waits in Review for the owner's signature. */
  promoteMemory(memoryId: string, reason: string): void;
  /** Downloads the whole memory as a bundle (`memory.exportPage`, page by page); the raw lane unless `includeRaw` is off. */
  exportMemory(includeRaw: boolean): void;
  /** Uploads a bundle and imports it (merge, or replace what it covers); the page asks before a replace. */
  importMemory(file: File, mode: MemoryImportMode): void;
}

/**
 * The Memory page's side of the wiring (docs/architecture.md §4.7; spec 002 §6): a search (the
 * owner's memory, filtered) and the status line, read when the page opens (or the cockpit connects
 * with it open), and again after memory's ledger entries while it is shown (a memory the agent stored, a
 * promotion signed in Review). Only the newest search's answer lands. Each change is sent once at
 * a time per memory, and the runtime's refusal is kept beside the memory it was for.
 */
export function connectMemory(deps: FeatureDeps): FeatureWiring<MemoryActions> {
  const { call, store } = deps;
  const state = () => store.getState();
  const page = () => state().memory;
  const shown = () => state().navigation.route === 'memory';

  const results = refreshingLoader(
    {
      fetch: () => call('memory.search', searchArgs(page())),
      loading: () => state().memorySearchLoading(),
      loaded: (result) => state().memorySearchLoaded(result.hits),
      failed: (error) => state().memorySearchFailed(describeError(error)),
    },
    MEMORY_REFRESH_DELAY_MS,
  );
  const status = refreshingLoader(
    {
      fetch: () => call('memory.status', {}),
      loading: () => undefined,
      loaded: (value) => {
        state().memoryStatusLoaded(value);
        // The status line follows recall by meaning as it starts and catches up, but only where it is seen.
        if (shown() && (value.semantic.state === 'starting' || value.semantic.state === 'reembedding')) status.schedule();
      },
      failed: (error) => state().memoryStatusFailed(describeError(error)),
    },
    MEMORY_STATUS_POLL_MS,
  );

  const readAll = () => {
    results.load();
    status.load();
  };

  const hit = (memoryId: string) => page().results.hits.find((h) => h.item.memory_id === memoryId) ?? null;
  const busy = (memoryId: string) => page().pending[memoryId]?.phase === 'sending';

  function saveMemoryEdit(): void {
    const editing = page().editing;
    if (editing === null || busy(editing.memoryId)) return;
    const { memoryId, draft } = editing;
    state().memoryChangeSending(memoryId, 'edit');
    call('memory.update', { memoryId, content: draft }).then(
      (item) => state().memoryUpdated(item),
      (error: unknown) => state().memoryChangeFailed(memoryId, 'edit', describeError(error)),
    );
  }

  function deleteMemory(memoryId: string): void {
    const found = hit(memoryId);
    if (found === null || !memoryControls(found.item).delete || busy(memoryId)) return;
    state().memoryChangeSending(memoryId, 'delete');
    call('memory.delete', { memoryId }).then(
      () => {
        state().memoryDeleted(memoryId);
        status.load();
      },
      (error: unknown) => state().memoryChangeFailed(memoryId, 'delete', describeError(error)),
    );
  }

  function promoteMemory(memoryId: string, reason: string): void {
    const found = hit(memoryId);
    if (found === null || !memoryControls(found.item).promote || found.promotionPending || busy(memoryId)) return;
    state().memoryChangeSending(memoryId, 'promote');
    call('memory.promote', { memoryId, reason: reason.trim() }).then(
      () => state().memoryPromotionAsked(memoryId),
      (error: unknown) => state().memoryChangeFailed(memoryId, 'promote', describeError(error)),
    );
  }

  return {
    // Memory changes with every conversation, in any tab or terminal: it is read where it is seen,
    // on connect while the page is shown and again whenever the page opens.
    reload() {
      if (shown()) readAll();
    },
    opened: { memory: readAll },
    entry(entry) {
      if (!shown() || !affectsMemory(entry.event)) return;
      results.schedule();
      status.schedule();
    },
    actions: {
      editMemoryQuery: (text) => state().memoryDraftEdited(text),
      searchMemory() {
        state().memoryQuerySubmitted();
        results.load();
      },
      filterMemory(change) {
        state().memoryFiltersChanged(change);
        results.load();
      },
      startMemoryEdit: (memoryId) => state().memoryEditStarted(memoryId),
      editMemoryDraft: (text) => state().memoryEditDrafted(text),
      cancelMemoryEdit: () => state().memoryEditCancelled(),
      saveMemoryEdit,
      deleteMemory,
      promoteMemory,
      exportMemory: (includeRaw) => void exportMemory(deps, includeRaw),
      importMemory: (file, mode) => void importMemory(deps, file, mode, readAll),
    },
    dispose() {
      results.cancel();
      status.cancel();
    },
  };
}
