import { z } from 'zod';
import { MemoryType } from '../silas/agents.js';
import { UtcInstant } from '../silas/approval.js';
import { TaintLevel } from '../silas/execution.js';
import { MemoryItem } from '../silas/memory.js';

/*
 * The cockpit's Memory page (spec 002 §6, §3.8; docs/silas/chronicle-and-memory.md "Memory page"):
 * search the owner's memory across lanes, edit or delete within the trust rules, ask to promote a
 * memory to verified (a Review card the owner signs), and see whether recall by meaning is ready.
 */

const TrustLevel = z.enum(['working', 'verified', 'constitutional']);

const MemoryLaneFilter = z.enum(['active', 'raw', 'all'], { error: 'expected active, raw or all' });

export const MemorySearchArgs = z.strictObject({
  /** Words or a sentence; empty lists the newest memories matching the filters. */
  query: z.string({ error: 'expected the search text' }).max(2_000, { error: 'the search text has at most 2000 characters' }).default(''),
  lane: MemoryLaneFilter.default('active'),
  /** `merged` is keyword, meaning and time together; `keyword` only the words. The raw lane is always keyword. */
  strategy: z.enum(['merged', 'keyword'], { error: 'expected merged or keyword' }).default('merged'),
  types: z.array(MemoryType).max(7).default([]),
  trust: z.array(TrustLevel).max(3).default([]),
  taints: z.array(TaintLevel).max(3).default([]),
  since: UtcInstant.nullable().default(null),
  until: UtcInstant.nullable().default(null),
  limit: z.number({ error: 'expected a whole number from 1 to 100' }).int().min(1).max(100).default(50),
});
export type MemorySearchArgs = z.input<typeof MemorySearchArgs>;

export const MemorySearchHit = z.strictObject({
  item: MemoryItem,
  relevance: z.number(),
  /** Which branches found it: keyword, semantic, temporal; `recent` for a listing without a query. */
  via: z.array(z.string()),
  /** A proposal to verify it waits in Review. */
  promotionPending: z.boolean(),
});
export type MemorySearchHit = z.infer<typeof MemorySearchHit>;

export const MemorySearchResult = z.strictObject({ hits: z.array(MemorySearchHit) });
export type MemorySearchResult = z.infer<typeof MemorySearchResult>;

export const MemoryId = z.strictObject({ memoryId: z.string({ error: 'expected a memory id' }).min(1).max(200) });

export const MemoryUpdateArgs = z.strictObject({
  memoryId: z.string({ error: 'expected a memory id' }).min(1).max(200),
  content: z.string({ error: 'expected the new content' }).min(1, { error: 'a memory cannot be empty; delete it instead' }).max(20_000, { error: 'a memory has at most 20000 characters' }),
  memoryType: MemoryType.optional(),
  tags: z.array(z.string().min(1).max(200)).max(100).optional(),
});
export type MemoryUpdateArgs = z.input<typeof MemoryUpdateArgs>;

export const MemoryPromoteArgs = z.strictObject({
  memoryId: z.string({ error: 'expected a memory id' }).min(1).max(200),
  reason: z.string().max(1_000).default(''),
});

export const MemoryPromoteResult = z.strictObject({ cardId: z.string(), memoryId: z.string() });

export const MemoryStatus = z.strictObject({
  active: z.number().int(),
  raw: z.number().int(),
  verified: z.number().int(),
  constitutional: z.number().int(),
  semantic: z.strictObject({
    state: z.enum(['starting', 'ready', 'reembedding', 'unavailable']),
    embedder: z.string().nullable(),
    dimensions: z.number().int().nullable(),
    pending: z.number().int(),
    problem: z.string().nullable(),
  }),
});
export type MemoryStatus = z.infer<typeof MemoryStatus>;

/** The details of a `memory_promotion` card: the memory as it is now, and who asked. */
export const MemoryPromotionCardDetails = z.strictObject({
  memoryId: z.string(),
  content: z.string(),
  memoryType: MemoryType,
  taint: TaintLevel,
  sourceKind: z.string(),
  accessCount: z.number().int(),
  createdAt: UtcInstant,
  requestedBy: z.string(),
  reason: z.string(),
});
