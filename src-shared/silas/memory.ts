import { z } from 'zod';
import { MemoryType } from './agents.js';
import { UtcInstant } from './approval.js';
import { ScopeId } from './context.js';
import { TaintLevel } from './execution.js';

/**
 * Memory models of spec 002 §3.8 as the memory store (§4.2, §6.1) persists them. Two fields the
 * spec's MemoryItem lacks: `scope_id`, because §5.1 keeps memory of one connection out of another's
 * (the retriever of §4.2.1 takes a scope), and `token_count`, counted once by the caller (§5.13) so
 * a retrieval can stop at `MemoryQuery.max_tokens` without recounting. `embedding` is left out
 * until vector retrieval exists. Field names keep the spec's snake_case (§6.5 exports them as JSON).
 */

/**
 * The owner's memory scope (§5.1: in single-user mode every owner message uses the connection id
 * `owner`): every owner conversation reads and writes it (docs/silas/chronicle-and-memory.md).
 */
export const OWNER_MEMORY_SCOPE = 'owner';

/** §3.8 ReingestionTier: `low_reingestion` is the raw lane of §5.1 steps 3.5 and 11.5. */
export const ReingestionTier = z.enum(['active', 'low_reingestion']);
export type ReingestionTier = z.infer<typeof ReingestionTier>;

/** §3.8 TrustLevel. */
const TrustLevel = z.enum(['working', 'verified', 'constitutional']);

/** `conversation_raw`, `tool_output_raw`, `memory_op`…: a short word, never free text. */
export const SourceKind = z
  .string({ error: 'expected a source kind such as conversation_raw' })
  .regex(/^[a-z][a-z0-9_:.-]{0,63}$/, { error: 'a source kind is a lowercase word of at most 64 characters, such as conversation_raw' });
export type SourceKind = z.infer<typeof SourceKind>;

const MemoryId = z.string({ error: 'expected a memory id (text)' }).min(1, { error: 'a memory id must not be empty' }).max(200, { error: 'a memory id has at most 200 characters' });

const refs = z.array(z.string().min(1).max(200)).max(100, { error: 'at most 100 entries' });
const tokenCount = z.number({ error: 'token_count must be a whole number >= 0' }).int().min(0).max(Number.MAX_SAFE_INTEGER);

/** §3.8 MemoryItem, with the scope and token count described above. */
export const MemoryItem = z.strictObject({
  memory_id: MemoryId,
  scope_id: ScopeId,
  content: z.string(),
  memory_type: MemoryType,
  reingestion_tier: ReingestionTier,
  trust_level: TrustLevel,
  taint: TaintLevel,
  source_kind: SourceKind,
  token_count: tokenCount,
  created_at: UtcInstant,
  updated_at: UtcInstant,
  valid_from: UtcInstant.nullable(),
  valid_until: UtcInstant.nullable(),
  access_count: z.number().int().min(0),
  last_accessed: UtcInstant.nullable(),
  semantic_tags: refs,
  entity_refs: refs,
  causal_refs: refs,
  temporal_next: MemoryId.nullable(),
  temporal_prev: MemoryId.nullable(),
  session_id: z.string().min(1).max(200).nullable(),
});
export type MemoryItem = z.infer<typeof MemoryItem>;

/**
 * What a caller supplies to store a memory; the store assigns the id, the lane and the times.
 * `taint` has no default (the spec's is `owner`): a raw capture that forgot it must not become
 * owner-trusted.
 */
export const MemoryDraft = z.strictObject({
  content: z.string({ error: 'expected the memory content (text)' }),
  memory_type: MemoryType.default('episode'),
  trust_level: TrustLevel.default('working'),
  taint: TaintLevel,
  source_kind: SourceKind,
  token_count: tokenCount,
  semantic_tags: refs.default([]),
  entity_refs: refs.default([]),
  session_id: z.string().min(1).max(200).nullable().default(null),
  valid_from: UtcInstant.nullable().default(null),
  valid_until: UtcInstant.nullable().default(null),
});
export type MemoryDraft = z.input<typeof MemoryDraft>;

/**
 * A §3.2 MemoryOp `update` as the store applies it: new content (with its count), and the fields
 * to replace; a field left out keeps its value. `taint` is the writer's: §5.12 lowers the item's.
 */
export const MemoryChange = z.strictObject({
  content: z.string({ error: 'expected the new memory content (text)' }),
  token_count: tokenCount,
  taint: TaintLevel,
  memory_type: MemoryType.optional(),
  semantic_tags: refs.optional(),
  entity_refs: refs.optional(),
});
export type MemoryChange = z.input<typeof MemoryChange>;

/**
 * Errors of the memory store beyond invalid arguments (`E_INVALID_ARGS`). The Stream tells a
 * refused memory operation from a bug by this code.
 */
export const MemoryErrorCode = {
  /** §3.8/§5.12: a constitutional memory, a verified one without the owner, or external input aiming at either. */
  Protected: 'E_MEMORY_PROTECTED',
} as const;
export type MemoryErrorCode = (typeof MemoryErrorCode)[keyof typeof MemoryErrorCode];

const TAINT_RANK: Record<TaintLevel, number> = { owner: 2, auth: 1, external: 0 };

/** §5.12: a memory influenced by less trusted input takes that input's taint; it is never raised. */
export function lowerTaint(a: TaintLevel, b: TaintLevel): TaintLevel {
  return TAINT_RANK[a] <= TAINT_RANK[b] ? a : b;
}
