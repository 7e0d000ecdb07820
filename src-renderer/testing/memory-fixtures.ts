import type { CallArgs, CallResult, Envelope } from '../../src-shared/contract/index.js';
import type { MemoryItem } from '../../src-shared/silas/memory.js';
import type { MemoryHit, MemoryStatusValue } from '../store/memory-state.js';
import { FakeTransport } from './fake-transport.js';

/*
 * The owner's memory as the memory.* calls answer for it (spec 002 §6, §3.8), in memory: a search
 * that matches words and applies the filters as the runtime does, and the trust rules the store
 * enforces (verified and constitutional memory refused with E_MEMORY_PROTECTED).
 */

const ok = <T>(value: T): Envelope<T> => ({ ok: true, value });
const refused = (code: string, message: string): Envelope<never> => ({ ok: false, error: { code, message } });

/** Memory `n` of the owner's scope: a working preference from the owner's session, stored on 1 January 2026. */
export function memoryItem(n: number, overrides: Partial<MemoryItem> = {}): MemoryItem {
  const at = new Date(Date.UTC(2026, 0, 1, 9, n)).toISOString();
  return {
    memory_id: `memory-${n}`,
    scope_id: 'owner',
    content: `Memory number ${n}`,
    memory_type: 'preference',
    reingestion_tier: 'active',
    trust_level: 'working',
    taint: 'auth',
    source_kind: 'memory_op',
    token_count: 4,
    created_at: at,
    updated_at: at,
    valid_from: null,
    valid_until: null,
    access_count: 0,
    last_accessed: null,
    semantic_tags: [],
    entity_refs: [],
    causal_refs: [],
    temporal_next: null,
    temporal_prev: null,
    session_id: null,
    ...overrides,
  };
}

/** Three memories: a working preference, a verified fact, and a working fact from outside (recalled twice). */
export function ownerMemories(): MemoryItem[] {
  return [
    memoryItem(1, { content: 'The owner indents code with tabs, never spaces' }),
    memoryItem(2, { content: 'The owner lives in Lisbon', memory_type: 'fact', trust_level: 'verified', taint: 'owner' }),
    memoryItem(3, { content: 'The release is on Friday', memory_type: 'fact', taint: 'external', source_kind: 'tool_output_raw', access_count: 2 }),
  ];
}

export function memoryStatus(overrides: Partial<MemoryStatusValue> = {}): MemoryStatusValue {
  return {
    active: 3,
    raw: 12,
    verified: 1,
    constitutional: 0,
    semantic: { state: 'ready', embedder: 'local:wink-sg-100d@1.0.0:v1', dimensions: 100, pending: 0, problem: null },
    ...overrides,
  };
}

type SearchArgs = Required<Omit<CallArgs<'memory.search'>, 'strategy' | 'limit'>>;

/** The memory.* calls of a runtime over `items`, recording what was asked. */
export class MemoryRuntime {
  items: MemoryItem[] = ownerMemories();
  status: MemoryStatusValue = memoryStatus();
  /** Memory ids a promotion waits for in Review. */
  pending = new Set<string>();
  searches: SearchArgs[] = [];
  updates: CallArgs<'memory.update'>[] = [];
  deletes: string[] = [];
  promotions: CallArgs<'memory.promote'>[] = [];
  /** The bundle `memory.exportPage` hands out, one page per element (the last page ends it). */
  exportPages: string[] = ['{"count":2,"kind":"silas.memory.bundle"}\n{"memory_id":"a"}\n', '{"memory_id":"b"}\n{"count":2,"end":true,"sha256":"abc"}\n'];
  exportCalls: CallArgs<'memory.exportPage'>[] = [];
  /** The uploads begun (their bytes as received, decoded) and how each import was committed. */
  uploads: { name: string; bytes: number; received: string }[] = [];
  commits: CallArgs<'memory.importCommit'>[] = [];
  aborts: string[] = [];
  /** How `memory.importCommit` answers: counts, or the runtime's refusal. */
  importAnswer: Envelope<CallResult<'memory.importCommit'>> = ok({ mode: 'merge', count: 2, inserted: 1, updated: 1, unchanged: 0, removed: 0, sha256: 'abc', scope: null, includeRaw: true, exportedAt: '2026-03-01T09:00:00.000Z' });

  search(args: SearchArgs): CallResult<'memory.search'> {
    const words = args.query.toLowerCase().split(/\s+/).filter(Boolean);
    const tier = args.lane === 'raw' ? 'low_reingestion' : args.lane === 'active' ? 'active' : null;
    const hits: MemoryHit[] = this.items
      .filter((item) => (tier === null || item.reingestion_tier === tier) && (words.length === 0 || words.some((word) => item.content.toLowerCase().includes(word))))
      .filter((item) => (args.types.length === 0 || args.types.includes(item.memory_type)) && (args.trust.length === 0 || args.trust.includes(item.trust_level)))
      .filter((item) => (args.taints.length === 0 || args.taints.includes(item.taint)) && (!args.since || item.created_at >= args.since) && (!args.until || item.created_at < args.until))
      .map((item) => ({ item, relevance: words.length === 0 ? 0 : 1, via: words.length === 0 ? ['recent'] : ['keyword'], promotionPending: this.pending.has(item.memory_id) }));
    return { hits };
  }

  serve(transport: FakeTransport = new FakeTransport('connected')): FakeTransport {
    const find = (id: string) => this.items.find((item) => item.memory_id === id) ?? null;
    const notFound = (id: string) => refused('E_NOT_FOUND', `no memory ${id} in the owner's memory; search again, it may have been deleted`);
    const protectedText = (item: MemoryItem) =>
      item.trust_level === 'verified' ? `memory ${item.memory_id} is verified: it changes only through a decision you sign in Review` : `memory ${item.memory_id} is constitutional: it never changes at runtime`;
    return transport
      .handle('memory.search', (args) => {
        this.searches.push(args as SearchArgs);
        return ok(this.search(args as SearchArgs));
      })
      .handle('memory.status', () => ok(this.status))
      .handle('memory.update', (args) => {
        const change = args as CallArgs<'memory.update'>;
        this.updates.push(change);
        const item = find(change.memoryId);
        if (!item) return notFound(change.memoryId);
        if (item.trust_level !== 'working') return refused('E_MEMORY_PROTECTED', protectedText(item));
        const updated = { ...item, content: change.content, taint: item.taint === 'owner' ? ('auth' as const) : item.taint, updated_at: '2026-01-02T10:00:00.000Z' };
        this.items = this.items.map((i) => (i.memory_id === item.memory_id ? updated : i));
        return ok(updated);
      })
      .handle('memory.delete', (args) => {
        const { memoryId } = args as { memoryId: string };
        this.deletes.push(memoryId);
        const item = find(memoryId);
        if (!item) return notFound(memoryId);
        if (item.trust_level !== 'working') return refused('E_MEMORY_PROTECTED', protectedText(item));
        this.items = this.items.filter((i) => i.memory_id !== memoryId);
        return ok({ deleted: true as const });
      })
      .handle('memory.promote', (args) => {
        const promotion = args as CallArgs<'memory.promote'>;
        this.promotions.push(promotion);
        const item = find(promotion.memoryId);
        if (!item) return notFound(promotion.memoryId);
        if (item.trust_level !== 'working') return refused('E_CONFLICT', `memory ${item.memory_id} is already ${item.trust_level}; only working memory is promoted`);
        this.pending.add(item.memory_id);
        return ok({ cardId: `promotion-${item.memory_id}`, memoryId: item.memory_id });
      })
      .handle('memory.exportPage', (args) => {
        const page = args as CallArgs<'memory.exportPage'>;
        this.exportCalls.push(page);
        const at = page.cursor === null || page.cursor === undefined ? 0 : Number(page.cursor);
        const last = at === this.exportPages.length - 1;
        const text = this.exportPages[at]!;
        return ok({ text, next: last ? null : String(at + 1), count: 2, done: last ? { count: 2, bytes: this.exportPages.join('').length, sha256: 'abc' } : null });
      })
      .handle('memory.importBegin', (args) => {
        const { name, bytes } = args as CallArgs<'memory.importBegin'>;
        if (bytes > 5 * 2 ** 20) return refused('E_INVALID_ARGS', `${name} is ${(bytes / 2 ** 20).toFixed(1)} MB; the cockpit imports bundles of at most 5.0 MB`);
        this.uploads.push({ name, bytes, received: '' });
        return ok({ uploadId: String(this.uploads.length - 1), chunkBytes: 4, maxBytes: 5 * 2 ** 20 });
      })
      .handle('memory.importChunk', (args) => {
        const chunk = args as CallArgs<'memory.importChunk'>;
        const upload = this.uploads[Number(chunk.uploadId)]!;
        upload.received += atob(chunk.data);
        return ok({ received: upload.received.length });
      })
      .handle('memory.importCommit', (args) => {
        this.commits.push(args as CallArgs<'memory.importCommit'>);
        return this.importAnswer;
      })
      .handle('memory.importAbort', (args) => {
        this.aborts.push((args as { uploadId: string }).uploadId);
        return ok({ aborted: true as const });
      });
  }

  /** The owner signed the card in Review: the memory is verified and nothing waits. */
  verify(memoryId: string): void {
    this.pending.delete(memoryId);
    this.items = this.items.map((item) => (item.memory_id === memoryId ? { ...item, trust_level: 'verified' } : item));
  }
}
