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

/*
 * Export and import from the Memory page (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md
 * "From the cockpit"): the bundle travels in pieces, because a WebSocket message is bounded.
 */

export const MemoryExportPageArgs = z.strictObject({
  /** Null starts an export; the previous page's `next` continues it. */
  cursor: z.string({ error: "expected null to start, or the previous page's next" }).min(1).max(100).nullable().default(null),
  /** The raw lane too (§4.2.3 `include_raw`, on by default); read when an export starts. */
  includeRaw: z.boolean({ error: 'expected true or false' }).default(true),
});
export type MemoryExportPageArgs = z.input<typeof MemoryExportPageArgs>;

export const MemoryExportPage = z.strictObject({
  /** The next part of the bundle, to be appended as it is (a page may end inside a line). */
  text: z.string(),
  /** The cursor of the next page; null when this page ends the bundle. */
  next: z.string().nullable(),
  /** The memories in the bundle (its header's count). */
  count: z.number().int().nonnegative(),
  /** On the last page: what was exported (and recorded as `silas.memory.exported`). */
  done: z.strictObject({ count: z.number().int().nonnegative(), bytes: z.number().int().nonnegative(), sha256: z.string() }).nullable(),
});
export type MemoryExportPage = z.infer<typeof MemoryExportPage>;

export const MemoryImportBeginArgs = z.strictObject({
  /** The file's name as the person picked it, used in messages instead of the runtime's copy. */
  name: z.string({ error: "expected the bundle file's name" }).min(1, { error: "expected the bundle file's name" }).max(300, { error: 'a file name has at most 300 characters' }),
  bytes: z.number({ error: "expected the bundle's size in bytes" }).int().nonnegative(),
});

export const MemoryImportBegun = z.strictObject({ uploadId: z.string(), chunkBytes: z.number().int().positive(), maxBytes: z.number().int().positive() });
export type MemoryImportBegun = z.infer<typeof MemoryImportBegun>;

export const MemoryUploadId = z.strictObject({ uploadId: z.string({ error: 'expected the uploadId importBegin returned' }).min(1).max(100) });

export const MemoryImportChunkArgs = MemoryUploadId.extend({
  /** Where this chunk starts in the file: the bytes sent so far. */
  offset: z.number({ error: 'expected the bytes sent so far' }).int().nonnegative(),
  /** The chunk's bytes in base64 (at most `chunkBytes` of them). */
  data: z
    .string({ error: 'expected the chunk in base64' })
    .max(700_000, { error: 'a chunk has at most 512 KiB (importBegin says chunkBytes)' })
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: 'expected the chunk in base64' }),
});

export const MemoryImportCommitArgs = MemoryUploadId.extend({
  mode: z.enum(['merge', 'replace'], { error: 'expected merge or replace' }).default('merge'),
});

export const MemoryImportResult = z.strictObject({
  mode: z.enum(['merge', 'replace']),
  count: z.number().int().nonnegative(),
  inserted: z.number().int().nonnegative(),
  updated: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  sha256: z.string(),
  scope: z.string().nullable(),
  includeRaw: z.boolean(),
  exportedAt: z.string(),
});
export type MemoryImportResult = z.infer<typeof MemoryImportResult>;
