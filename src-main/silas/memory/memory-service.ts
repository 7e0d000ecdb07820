import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { MemorySearchArgs, MemorySearchHit, MemoryStatus, MemoryUpdateArgs } from '../../../src-shared/schemas/memory.js';
import { MemorySearchArgs as MemorySearchArgsSchema, MemoryUpdateArgs as MemoryUpdateArgsSchema } from '../../../src-shared/schemas/memory.js';
import { OWNER_MEMORY_SCOPE, type MemoryItem } from '../../../src-shared/silas/memory.js';
import type { MemoryPromotionRepository } from '../../store/repositories/memory-promotions.js';
import type { MemoryRepository } from '../../store/repositories/memory.js';
import type { MemoryRetriever } from './retriever.js';
import type { SemanticMemory } from './semantic-memory.js';

/*
 * The owner's memory as the cockpit's Memory page uses it (spec 002 §6, §3.8; docs/silas/
 * chronicle-and-memory.md "Memory page"): search across lanes with filters, edit and delete
 * within the trust rules (the store enforces them: a verified or constitutional memory is refused
 * here), and promotion to verified, which only asks: the owner's signed Review card decides.
 */

const OWNER_MEMORY = OWNER_MEMORY_SCOPE;

/** A request to verify a memory, as the promotion store keeps it. */
export interface PromotionRequest {
  id: string;
  scopeId: string;
  memoryId: string;
  requestedBy: string;
  reason: string;
  requestedAt: string;
}

/** What a `memory_promotion` card needs of memory (review/kinds/memory-promotion.ts). */
export interface MemoryPromotions {
  open(): PromotionRequest[];
  memory(scopeId: string, memoryId: string): MemoryItem | null;
  /** The owner signed "verify": the memory becomes verified (the store re-seals it). */
  promote(request: PromotionRequest): void;
  decline(request: PromotionRequest): void;
}

export interface MemoryServiceDeps {
  memory: MemoryRepository;
  retriever: MemoryRetriever;
  semantic: Pick<SemanticMemory, 'status' | 'notify'>;
  promotions: MemoryPromotionRepository;
  audit: { append(type: string, data: Record<string, unknown>): unknown };
  counter: { count(text: string): number };
  /** A new card: the decision queue looks again. */
  onPromotionsChanged: () => void;
}

export class MemoryService {
  constructor(private readonly deps: MemoryServiceDeps) {}

  async search(input: MemorySearchArgs): Promise<{ hits: MemorySearchHit[] }> {
    const args = MemorySearchArgsSchema.parse(input);
    const { memory, retriever, promotions } = this.deps;
    const since = args.since ? new Date(args.since) : null;
    const until = args.until ? new Date(args.until) : null;
    const keep = (item: MemoryItem) =>
      (args.types.length === 0 || args.types.includes(item.memory_type)) &&
      (args.trust.length === 0 || args.trust.includes(item.trust_level)) &&
      (args.taints.length === 0 || args.taints.includes(item.taint)) &&
      (!since || item.created_at >= since.toISOString()) &&
      (!until || item.created_at < until.toISOString());
    let found: { item: MemoryItem; relevance: number; via: string[] }[];
    if (args.query.trim() === '') {
      const tier = args.lane === 'all' ? undefined : args.lane === 'raw' ? ('low_reingestion' as const) : ('active' as const);
      found = memory.list(OWNER_MEMORY, { limit: args.limit, ...(tier ? { tier } : {}), types: args.types, trust: args.trust, taints: args.taints, since, until }).map((item) => ({ item, relevance: 0, via: ['recent'] }));
    } else {
      const depth = Math.min(100, args.limit * 2);
      const active =
        args.lane === 'raw'
          ? []
          : await retriever.retrieve(OWNER_MEMORY, { strategy: args.strategy === 'merged' ? 'semantic' : 'keyword', query: args.query, max_results: depth }, { sessionId: null });
      const raw = args.lane === 'active' ? [] : retriever.searchRaw(OWNER_MEMORY, args.query, depth).map((hit) => ({ ...hit, via: ['keyword'] }));
      found = [...active, ...raw].sort((a, b) => b.relevance - a.relevance);
    }
    const hits = found.filter((hit) => keep(hit.item)).slice(0, args.limit);
    return { hits: hits.map((hit) => ({ item: hit.item, relevance: hit.relevance, via: hit.via, promotionPending: promotions.openFor(OWNER_MEMORY, hit.item.memory_id) !== null })) };
  }

  status(): MemoryStatus {
    const { memory } = this.deps;
    const trust = memory.countByTrust(OWNER_MEMORY);
    return {
      active: memory.count(OWNER_MEMORY, 'active'),
      raw: memory.count(OWNER_MEMORY, 'low_reingestion'),
      verified: trust.verified,
      constitutional: trust.constitutional,
      semantic: this.deps.semantic.status(),
    };
  }

  /** The owner's edit of a working memory; a verified or constitutional one is refused by the store (and audited). */
  update(input: MemoryUpdateArgs): MemoryItem {
    const args = MemoryUpdateArgsSchema.parse(input);
    const updated = this.guarded('edit', args.memoryId, () =>
      this.deps.memory.update(OWNER_MEMORY, args.memoryId, {
        content: args.content,
        token_count: this.deps.counter.count(args.content),
        // The cockpit is the owner's connection, unsigned: its words are `auth` (§5.12), like its messages.
        taint: 'auth',
        ...(args.memoryType ? { memory_type: args.memoryType } : {}),
        ...(args.tags ? { semantic_tags: args.tags } : {}),
      }),
    );
    this.deps.audit.append('silas.memory.changed', { memory_id: args.memoryId, change: 'edited', by: 'cockpit' });
    this.deps.semantic.notify();
    return updated;
  }

  delete(memoryId: string): { deleted: true } {
    this.guarded('delete', memoryId, () => (this.deps.memory.delete(OWNER_MEMORY, memoryId) ? true : null));
    this.deps.audit.append('silas.memory.changed', { memory_id: memoryId, change: 'deleted', by: 'cockpit' });
    return { deleted: true };
  }

  /** Asks the owner, in Review, to verify a working memory (§3.8); nothing changes until the card is signed. */
  promote(memoryId: string, reason: string, requestedBy = 'the owner, on the Memory page'): { cardId: string; memoryId: string } {
    const item = this.deps.memory.get(OWNER_MEMORY, memoryId);
    if (!item) throw new SilasError(ErrorCode.NotFound, `no memory ${memoryId} in the owner's memory; search again, it may have been deleted`);
    if (item.trust_level !== 'working') throw new SilasError(ErrorCode.Conflict, `memory ${memoryId} is already ${item.trust_level}; only working memory is promoted`);
    if (item.reingestion_tier !== 'active') throw new SilasError(ErrorCode.Conflict, `memory ${memoryId} is in the raw lane (a record of what was said); store what it says as a memory first`);
    const request = this.deps.promotions.propose(OWNER_MEMORY, memoryId, requestedBy, reason);
    this.deps.audit.append('silas.memory.promotion_requested', { memory_id: memoryId, card_id: request.id, requested_by: request.requestedBy });
    this.deps.onPromotionsChanged();
    return { cardId: request.id, memoryId };
  }

  /** The source of `memory_promotion` cards (review/kinds/memory-promotion.ts). */
  promotionSource(): MemoryPromotions {
    return {
      open: () => this.deps.promotions.open(),
      memory: (scopeId, memoryId) => this.deps.memory.get(scopeId, memoryId),
      promote: (request) => this.promoteSigned(request),
      decline: (request) => this.decline(request),
    };
  }

  private promoteSigned(request: PromotionRequest): void {
    // The decision queue verified the owner's signature on the card before calling: that is the confirmation.
    const item = this.deps.memory.promote(request.scopeId, request.memoryId, { ownerConfirmed: true });
    this.deps.promotions.close(request.id, item ? 'promoted' : 'withdrawn');
    this.deps.audit.append('silas.memory.changed', { memory_id: request.memoryId, change: item ? 'verified' : 'gone before it was verified', by: 'review' });
  }

  private decline(request: PromotionRequest): void {
    this.deps.promotions.close(request.id, 'declined');
    this.deps.audit.append('silas.memory.changed', { memory_id: request.memoryId, change: 'promotion declined', by: 'review' });
  }

  private guarded<T>(what: string, memoryId: string, change: () => T | null): T {
    let result: T | null;
    try {
      result = change();
    } catch (error) {
      if (error instanceof SilasError && error.code === 'E_MEMORY_PROTECTED') {
        this.deps.audit.append('silas.memory.change_refused', { memory_id: memoryId, change: what, reason: error.message.slice(0, 500) });
      }
      throw error;
    }
    if (result === null) throw new SilasError(ErrorCode.NotFound, `no memory ${memoryId} in the owner's memory; search again, it may have been deleted`);
    return result;
  }
}
