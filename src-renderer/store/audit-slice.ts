import type { StateCreator } from 'zustand';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { appendOlder, insertLive, mayHaveOlder, reconcileFirstPage } from './audit-merge.js';
import type { CockpitState } from './cockpit-store.js';

interface AuditPage {
  entries: readonly AuditEntry[];
  total: number;
}

interface AuditLogState {
  /** Newest first, one entry per chain index. */
  entries: readonly AuditEntry[];
  /**
   * Entries in the runtime's chain (its head index + 1, never a row count), which may be more
   * than are loaded; live appends raise it between pages.
   */
  total: number;
  status: 'idle' | 'loading' | 'ready' | 'error';
  loadingMore: boolean;
  hasMore: boolean;
  error: string | null;
}

export interface AuditSlice {
  audit: AuditLogState;
  auditLoading(): void;
  auditFirstPageLoaded(page: AuditPage): void;
  auditOlderLoading(): void;
  auditOlderPageLoaded(page: AuditPage): void;
  auditFailed(message: string): void;
  auditOlderFailed(message: string): void;
  auditAppended(entry: AuditEntry): void;
}

const initialAudit: AuditLogState = { entries: [], total: 0, status: 'idle', loadingMore: false, hasMore: false, error: null };

export const createAuditSlice: StateCreator<CockpitState, [], [], AuditSlice> = (set) => {
  const update = (fn: (audit: AuditLogState) => AuditLogState) => set((s) => ({ audit: fn(s.audit) }));
  return {
    audit: initialAudit,
    auditLoading: () => update((a) => ({ ...a, status: 'loading', error: null })),
    auditFirstPageLoaded: (page) =>
      update((a) => {
        const entries = reconcileFirstPage(a.entries, page.entries);
        const total = Math.max(page.total, entries.length);
        return { ...a, entries, total, status: 'ready', loadingMore: false, hasMore: mayHaveOlder(entries, total), error: null };
      }),
    auditOlderLoading: () => update((a) => ({ ...a, loadingMore: true })),
    auditOlderPageLoaded: (page) =>
      update((a) => {
        const entries = appendOlder(a.entries, page.entries);
        const total = Math.max(page.total, entries.length);
        // An empty or fully overlapping page means the runtime has nothing older to give.
        const hasMore = entries !== a.entries && mayHaveOlder(entries, total);
        return { ...a, entries, total, loadingMore: false, hasMore };
      }),
    auditFailed: (message) => update((a) => ({ ...a, status: a.status === 'loading' ? 'error' : a.status, loadingMore: false, error: message })),
    // Stop paging until the next (re)load so a persistent failure cannot turn into a request loop.
    auditOlderFailed: (message) => update((a) => ({ ...a, loadingMore: false, hasMore: false, error: message })),
    auditAppended: (entry) =>
      update((a) => {
        const entries = insertLive(a.entries, entry);
        if (entries === a.entries) return a;
        return { ...a, entries, total: Math.max(a.total + 1, entries.length) };
      }),
  };
};
