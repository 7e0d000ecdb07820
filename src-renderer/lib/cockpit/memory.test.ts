import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Route } from '../routes.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { memoryStatus, MemoryRuntime } from '../../testing/memory-fixtures.js';
import { connectCockpit } from './connect.js';
import { MEMORY_REFRESH_DELAY_MS, MEMORY_STATUS_POLL_MS } from './memory.js';

afterEach(() => {
  vi.useRealTimers();
});

async function drain(): Promise<void> {
  for (let i = 0; i < 6; i += 1) await settle();
}

async function connected(route: Route = 'memory', runtime = new MemoryRuntime()) {
  const transport = runtime.serve(new FakeTransport());
  const store = createCockpitStore({ route });
  const cockpit = connectCockpit({ transport, store });
  transport.setState('connected');
  await drain();
  return { runtime, transport, store, page: () => store.getState().memory, actions: cockpit.actions };
}

describe('connectCockpit: memory', () => {
  it('reads nothing until the page is shown', async () => {
    const { transport, store, actions } = await connected('stream');
    expect(transport.callsTo('memory.search')).toEqual([]);
    expect(transport.callsTo('memory.status')).toEqual([]);
    actions.navigate('memory');
    await drain();
    expect(transport.callsTo('memory.search')).toHaveLength(1);
    expect(store.getState().memory.results.hits).toHaveLength(3);
  });

  it('lists the newest memories and reads the status on connect with the page shown', async () => {
    const { transport, page } = await connected();
    expect(transport.callsTo('memory.search')).toEqual([{ query: '', lane: 'active', types: [], trust: [], taints: [], since: null, until: null }]);
    expect(transport.callsTo('memory.status')).toEqual([{}]);
    expect(page().results.hits.map((hit) => hit.item.memory_id)).toEqual(['memory-1', 'memory-2', 'memory-3']);
    expect(page().status.value).toEqual(memoryStatus());
  });

  it('searches for the submitted text with the filters, and again at once when a filter changes', async () => {
    const { runtime, page, actions } = await connected();
    actions.editMemoryQuery('tabs');
    expect(runtime.searches).toHaveLength(1);
    actions.searchMemory();
    await drain();
    expect(runtime.searches.at(-1)).toMatchObject({ query: 'tabs', lane: 'active' });
    expect(page().results.hits.map((hit) => hit.item.memory_id)).toEqual(['memory-1']);
    actions.filterMemory({ lane: 'all', trust: ['verified'] });
    await drain();
    expect(runtime.searches.at(-1)).toMatchObject({ query: 'tabs', lane: 'all', trust: ['verified'] });
    expect(page().results.hits).toEqual([]);
  });

  it("reads again after memory's ledger entries, once per burst, and only while the page is shown", async () => {
    const { transport, store } = await connected();
    vi.useFakeTimers();
    transport.emit('audit.appended', auditEntry(100, { event: 'silas.stream.memory_op' }));
    transport.emit('audit.appended', auditEntry(101, { event: 'silas.memory.changed' }));
    transport.emit('audit.appended', auditEntry(102, { event: 'policies.saved' }));
    vi.advanceTimersByTime(MEMORY_REFRESH_DELAY_MS);
    expect(transport.callsTo('memory.search')).toHaveLength(2);
    vi.advanceTimersByTime(MEMORY_STATUS_POLL_MS);
    expect(transport.callsTo('memory.status')).toHaveLength(2);
    store.getState().setRoute('stream');
    transport.emit('audit.appended', auditEntry(103, { event: 'silas.memory.changed' }));
    vi.advanceTimersByTime(MEMORY_STATUS_POLL_MS);
    expect(transport.callsTo('memory.search')).toHaveLength(2);
  });

  it('follows recall by meaning while it catches up, and stops once it is ready', async () => {
    const runtime = new MemoryRuntime();
    runtime.status = memoryStatus({ semantic: { state: 'reembedding', embedder: 'local:x', dimensions: 100, pending: 40, problem: null } });
    vi.useFakeTimers();
    const { transport, page } = await connected('memory', runtime);
    expect(page().status.value?.semantic.pending).toBe(40);
    runtime.status = memoryStatus();
    vi.advanceTimersByTime(MEMORY_STATUS_POLL_MS);
    await drain();
    expect(page().status.value?.semantic.state).toBe('ready');
    vi.advanceTimersByTime(MEMORY_STATUS_POLL_MS * 3);
    await drain();
    expect(transport.callsTo('memory.status')).toHaveLength(2);
  });

  it('saves an edit, deletes and promotes working memory, once at a time, and refuses nothing it was not offered', async () => {
    const { runtime, page, actions } = await connected();
    actions.startMemoryEdit('memory-1');
    actions.editMemoryDraft('The owner indents code with tabs (width 4), never spaces');
    actions.saveMemoryEdit();
    actions.saveMemoryEdit();
    await drain();
    expect(runtime.updates).toEqual([{ memoryId: 'memory-1', content: 'The owner indents code with tabs (width 4), never spaces' }]);
    expect(page().editing).toBeNull();
    expect(page().results.hits[0]!.item.content).toBe('The owner indents code with tabs (width 4), never spaces');

    actions.promoteMemory('memory-1', '  how I work  ');
    actions.promoteMemory('memory-1', 'again');
    await drain();
    expect(runtime.promotions).toEqual([{ memoryId: 'memory-1', reason: 'how I work' }]);
    expect(page().results.hits[0]!.promotionPending).toBe(true);

    actions.deleteMemory('memory-2');
    actions.deleteMemory('memory-3');
    await drain();
    expect(runtime.deletes).toEqual(['memory-3']);
    expect(page().results.hits.map((hit) => hit.item.memory_id)).toEqual(['memory-1', 'memory-2']);
  });

  it("keeps the runtime's refusal beside the memory it was for", async () => {
    const { transport, page, actions } = await connected();
    transport.handle('memory.delete', () => ({ ok: false, error: { code: 'E_MEMORY_PROTECTED', message: 'memory-1 became verified meanwhile; it changes only through Review' } }));
    actions.deleteMemory('memory-1');
    await drain();
    expect(page().pending['memory-1']).toEqual({ change: 'delete', phase: 'error', error: 'memory-1 became verified meanwhile; it changes only through Review (E_MEMORY_PROTECTED)' });
    expect(page().results.hits).toHaveLength(3);
  });
});
