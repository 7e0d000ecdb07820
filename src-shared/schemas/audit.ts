import { z } from 'zod';
import { JsonObject } from './json.js';

const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (sha256)');

/** Event names are dotted lowercase words, e.g. `runtime.started`, `aip.decision`. */
export const AuditEventName = z
  .string()
  .min(3)
  .max(128)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/, 'must be dotted lowercase words such as "runtime.started"');

/** One link of the hash chain (DESIGN invariant 3, spec 002 §4.16). */
export const AuditEntry = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().min(1),
  ts: z.string().min(1),
  event: AuditEventName,
  data: JsonObject,
  prevHash: Sha256Hex,
  hash: Sha256Hex,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const ChainHead = z.object({ index: z.number().int().nonnegative(), hash: Sha256Hex });
export type ChainHead = z.infer<typeof ChainHead>;

export const ChainBreak = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().nullable(),
  reason: z.string(),
});
export type ChainBreak = z.infer<typeof ChainBreak>;

export const ChainVerification = z.object({
  valid: z.boolean(),
  entries: z.number().int().nonnegative(),
  checkpoints: z.number().int().nonnegative(),
  firstInvalid: ChainBreak.nullable(),
});
export type ChainVerification = z.infer<typeof ChainVerification>;

export const AuditCheckpoint = z.object({
  id: z.string(),
  index: z.number().int().nonnegative(),
  hash: Sha256Hex,
  createdAt: z.string(),
  keyFingerprint: z.string(),
  signature: z.string(),
});
export type AuditCheckpoint = z.infer<typeof AuditCheckpoint>;
