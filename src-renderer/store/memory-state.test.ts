import { describe, expect, it } from 'vitest';
import { memoryItem, ownerMemories } from '../testing/memory-fixtures.js';
import * as m from './memory-state.js';

const found = (items = ownerMemories()) => m.searchLoaded(m.initialMemory, items.map((item) => ({ item, relevance: 1, via: ['keyword'], promotionPending: false })));
const ids = (s: m.MemoryState) => s.results.hits.map((hit) => hit.item.memory_id);

describe('memory reducers', () => {
  it('searches for the text submitted, not the text being typed', () => {
    const typed = m.draftEdited(m.initialMemory, '  tabs ');
    expect(m.searchArgs(typed).query).toBe('');
    const submitted = m.querySubmitted(typed);
    expect(submitted.query).toBe('tabs');
    expect(m.searchArgs(m.draftEdited(submitted, 'spaces')).query).toBe('tabs');
  });

  it('keeps the memories shown while the search runs again or fails', () => {
    const shown = found();
    expect(m.searchLoading(shown).results.status).toBe('ready');
    expect(m.searchFailed(shown, 'gone')).toMatchObject({ results: { status: 'ready', error: 'gone', hits: shown.results.hits } });
    expect(m.searchFailed(m.searchLoading(m.initialMemory), 'gone').results).toMatchObject({ status: 'error', error: 'gone' });
    expect(m.searchLoading(m.searchFailed(shown, 'gone')).results.error).toBeNull();
  });

  it('edits one working memory at a time, starting from its content, and closes the editor once saved', () => {
    const editing = m.editDrafted(m.editStarted(found(), 'memory-1'), 'The owner indents with tabs (width 4)');
    expect(editing.editing).toEqual({ memoryId: 'memory-1', draft: 'The owner indents with tabs (width 4)' });
    expect(m.editStarted(found(), 'memory-2').editing).toBeNull();
    expect(m.editStarted(found(), 'memory-404').editing).toBeNull();
    const sending = m.changeSending(editing, 'memory-1', 'edit');
    const saved = m.memoryUpdated(sending, memoryItem(1, { content: 'The owner indents with tabs (width 4)' }));
    expect(saved.editing).toBeNull();
    expect(saved.pending).toEqual({});
    expect(saved.results.hits[0]!.item.content).toBe('The owner indents with tabs (width 4)');
  });

  it('keeps the editor and what was typed when the edit is refused, and forgets the refusal on cancel', () => {
    const editing = m.editDrafted(m.editStarted(found(), 'memory-1'), 'new text');
    const failed = m.changeFailed(m.changeSending(editing, 'memory-1', 'edit'), 'memory-1', 'edit', 'memory-1 is verified (E_MEMORY_PROTECTED)');
    expect(failed.editing).toEqual({ memoryId: 'memory-1', draft: 'new text' });
    expect(failed.pending['memory-1']).toEqual({ change: 'edit', phase: 'error', error: 'memory-1 is verified (E_MEMORY_PROTECTED)' });
    const cancelled = m.editCancelled(failed);
    expect(cancelled.editing).toBeNull();
    expect(cancelled.pending).toEqual({});
    expect(m.editDrafted(cancelled, 'x')).toBe(cancelled);
  });

  it('drops a deleted memory, and marks a promoted one as waiting in Review', () => {
    expect(ids(m.memoryDeleted(m.changeSending(found(), 'memory-3', 'delete'), 'memory-3'))).toEqual(['memory-1', 'memory-2']);
    const promoted = m.promotionAsked(m.changeSending(found(), 'memory-1', 'promote'), 'memory-1');
    expect(promoted.results.hits.map((hit) => hit.promotionPending)).toEqual([true, false, false]);
    expect(promoted.pending).toEqual({});
  });

  it('offers changes only for working memory, and only deletion for the raw record', () => {
    expect(m.memoryControls(memoryItem(1))).toEqual({ edit: true, delete: true, promote: true });
    expect(m.memoryControls(memoryItem(1, { trust_level: 'verified' }))).toEqual({ edit: false, delete: false, promote: false });
    expect(m.memoryControls(memoryItem(1, { trust_level: 'constitutional' }))).toEqual({ edit: false, delete: false, promote: false });
    expect(m.memoryControls(memoryItem(1, { reingestion_tier: 'low_reingestion' }))).toEqual({ edit: false, delete: true, promote: false });
  });

  it('builds memory.search from the filters, days as local midnights and until including its day', () => {
    const s = m.filtersChanged(m.initialMemory, { lane: 'all', types: ['fact'], trust: ['verified'], taints: ['external'], since: '2026-01-02', until: '2026-01-03' });
    expect(m.searchArgs(s)).toEqual({
      query: '',
      lane: 'all',
      types: ['fact'],
      trust: ['verified'],
      taints: ['external'],
      since: new Date(2026, 0, 2).toISOString(),
      until: new Date(2026, 0, 4).toISOString(),
    });
    expect(m.searchArgs(m.filtersChanged(s, { since: '', until: 'not a day' }))).toMatchObject({ since: null, until: null });
    expect(m.dayStart('2026-02-30')).toBeNull();
    expect(m.dayAfter('2026-12-31')).toBe(new Date(2027, 0, 1).toISOString());
  });

  it("reacts to memory's ledger entries, not to every Stream entry", () => {
    for (const event of ['silas.stream.memory_op', 'silas.memory.changed', 'silas.memory.promotion_requested', 'silas.memory.vector_space']) expect(m.affectsMemory(event)).toBe(true);
    for (const event of ['silas.stream.turn_completed', 'ilp.slice_deployed', 'silas.memory.made_up']) expect(m.affectsMemory(event)).toBe(false);
  });
});
