import { auditCategory, canonicalAuditEvent } from '../../src-shared/audit/events.js';
import type { CallArgs, CallResult } from '../../src-shared/contract/index.js';
import type { MemoryType } from '../../src-shared/silas/agents.js';
import type { TaintLevel } from '../../src-shared/silas/execution.js';
import type { MemoryItem } from '../../src-shared/silas/memory.js';

/*
 * The Memory page's state (spec 002 §6, §3.8): what the person searches for and how it is
 * filtered, the memories found, how much memory holds and whether recall by meaning is ready, the
 * one memory being edited, and each change on its way or refused. Pure reducers over `memory`;
 * memory.ts puts them in the store and lib/cockpit/memory.ts does the I/O.
 */

export type MemoryHit = CallResult<'memory.search'>['hits'][number];
export type MemoryStatusValue = CallResult<'memory.status'>;
type MemoryTrust = MemoryItem['trust_level'];
export type MemoryLane = 'active' | 'raw' | 'all';

export interface MemoryFilters {
  lane: MemoryLane;
  /** Empty: every type (likewise trust and taints). */
  types: readonly MemoryType[];
  trust: readonly MemoryTrust[];
  taints: readonly TaintLevel[];
  /** Days as a date field holds them (`YYYY-MM-DD`, the viewer's day), or '' for no bound. */
  since: string;
  until: string;
}

/** A change the page asked for: an edit, a deletion or a promotion to verified. */
export type MemoryChange = 'edit' | 'delete' | 'promote';

interface MemoryPending {
  change: MemoryChange;
  phase: 'sending' | 'error';
  /** The runtime's message for a refused change; it names the fix. */
  error: string | null;
}

export interface MemoryState {
  /** The text in the search box, as typed. */
  draft: string;
  /** The search the results answer: the box's text when it was last submitted. */
  query: string;
  filters: MemoryFilters;
  results: {
    status: 'idle' | 'loading' | 'ready' | 'error';
    hits: readonly MemoryHit[];
    error: string | null;
  };
  status: { value: MemoryStatusValue | null; error: string | null };
  /** The one memory whose content is being edited, with the text so far. */
  editing: { memoryId: string; draft: string } | null;
  /** Changes on their way or refused, by memory id. */
  pending: Readonly<Record<string, MemoryPending>>;
}

const initialFilters: MemoryFilters = { lane: 'active', types: [], trust: [], taints: [], since: '', until: '' };

export const initialMemory: MemoryState = {
  draft: '',
  query: '',
  filters: initialFilters,
  results: { status: 'idle', hits: [], error: null },
  status: { value: null, error: null },
  editing: null,
  pending: {},
};

type S = MemoryState;

export const draftEdited = (s: S, draft: string): S => ({ ...s, draft });

export const querySubmitted = (s: S): S => ({ ...s, query: s.draft.trim() });

export const filtersChanged = (s: S, change: Partial<MemoryFilters>): S => ({ ...s, filters: { ...s.filters, ...change } });

/** Searching again keeps the memories shown meanwhile. */
export const searchLoading = (s: S): S => ({ ...s, results: { ...s.results, status: s.results.status === 'ready' ? 'ready' : 'loading', error: null } });

export const searchLoaded = (s: S, hits: readonly MemoryHit[]): S => ({ ...s, results: { status: 'ready', hits, error: null } });

export const searchFailed = (s: S, message: string): S => ({ ...s, results: { ...s.results, status: s.results.status === 'ready' ? 'ready' : 'error', error: message } });

export const statusLoaded = (s: S, value: MemoryStatusValue): S => ({ ...s, status: { value, error: null } });

export const statusFailed = (s: S, message: string): S => ({ ...s, status: { ...s.status, error: message } });

/** Opens the editor on a memory found (one at a time), starting from its content. */
export function editStarted(s: S, memoryId: string): S {
  const hit = s.results.hits.find((h) => h.item.memory_id === memoryId);
  if (!hit || !memoryControls(hit.item).edit) return s;
  return { ...s, editing: { memoryId, draft: hit.item.content }, pending: without(s.pending, memoryId) };
}

export const editDrafted = (s: S, draft: string): S => (s.editing ? { ...s, editing: { ...s.editing, draft } } : s);

export const editCancelled = (s: S): S => (s.editing ? { ...s, editing: null, pending: without(s.pending, s.editing.memoryId) } : s);

export const changeSending = (s: S, memoryId: string, change: MemoryChange): S => ({ ...s, pending: { ...s.pending, [memoryId]: { change, phase: 'sending', error: null } } });

/** A refused change keeps the editor open, so nothing typed is lost. */
export const changeFailed = (s: S, memoryId: string, change: MemoryChange, message: string): S => ({ ...s, pending: { ...s.pending, [memoryId]: { change, phase: 'error', error: message } } });

/** The edit was saved: the memory as the runtime holds it now, the editor closed. */
export function memoryUpdated(s: S, item: MemoryItem): S {
  return {
    ...s,
    results: { ...s.results, hits: s.results.hits.map((hit) => (hit.item.memory_id === item.memory_id ? { ...hit, item } : hit)) },
    editing: s.editing?.memoryId === item.memory_id ? null : s.editing,
    pending: without(s.pending, item.memory_id),
  };
}

export function memoryDeleted(s: S, memoryId: string): S {
  return {
    ...s,
    results: { ...s.results, hits: s.results.hits.filter((hit) => hit.item.memory_id !== memoryId) },
    editing: s.editing?.memoryId === memoryId ? null : s.editing,
    pending: without(s.pending, memoryId),
  };
}

/** Asked to verify: the memory waits in Review until the owner signs it. */
export function promotionAsked(s: S, memoryId: string): S {
  return {
    ...s,
    results: { ...s.results, hits: s.results.hits.map((hit) => (hit.item.memory_id === memoryId ? { ...hit, promotionPending: true } : hit)) },
    pending: without(s.pending, memoryId),
  };
}

/**
 * What the page offers for a memory (§3.8): only working memory changes. A verified one changes
 * through Review, a constitutional one never at runtime. The raw record (what was said) is kept as
 * it was said: it can be deleted, not rewritten or verified.
 */
export function memoryControls(item: MemoryItem): { edit: boolean; delete: boolean; promote: boolean } {
  const working = item.trust_level === 'working';
  const active = item.reingestion_tier === 'active';
  return { edit: working && active, delete: working, promote: working && active };
}

/** The search the page shows, as `memory.search` takes it. */
export function searchArgs(s: S): CallArgs<'memory.search'> {
  const { filters } = s;
  return {
    query: s.query,
    lane: filters.lane,
    types: [...filters.types],
    trust: [...filters.trust],
    taints: [...filters.taints],
    since: dayStart(filters.since),
    until: dayAfter(filters.until),
  };
}

/** A date field's day (the viewer's) as the instant it starts; null when empty or not a date. */
export function dayStart(day: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(date.getTime()) || date.getMonth() !== Number(match[2]) - 1 ? null : date.toISOString();
}

/** The instant the day after starts: `until` is exclusive, so "until 2 January" includes that day. */
export function dayAfter(day: string): string | null {
  const start = dayStart(day);
  if (start === null) return null;
  const date = new Date(start);
  date.setDate(date.getDate() + 1);
  return date.toISOString();
}

/** Ledger entries after which what memory holds may have changed (all in the `stream` category). */
const MEMORY_EVENTS: ReadonlySet<string> = new Set([
  'silas.stream.memory_op',
  'silas.memory.changed',
  'silas.memory.promotion_requested',
  'silas.memory.imported',
  'silas.memory.vector_space',
  'silas.memory.embedder_failed',
  'silas.memory.embedding_failed',
]);

export function affectsMemory(event: string): boolean {
  if (auditCategory(event) !== 'stream') return false;
  const known = canonicalAuditEvent(event);
  return known !== null && MEMORY_EVENTS.has(known);
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!(key in record)) return record;
  const { [key]: _dropped, ...rest } = record;
  return rest;
}
