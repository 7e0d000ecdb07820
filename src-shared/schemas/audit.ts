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

/**
 * Whether `value` is JSON as `JSON.parse` gives it: finite numbers, plain objects and arrays.
 * The same rule as `JsonValue`, walked directly: the recursive zod union cost three times the
 * query it checked on a 500-row `audit.list` page, and rows read from the ledger are parsed JSON.
 */
function isJson(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(isJson);
      return isPlainObject(value) && Object.values(value).every(isJson);
    default:
      return false;
  }
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An entry as `audit.list` answers with it: `AuditEntry`, its data checked by `isJson` and passed through uncopied. */
export const ListedAuditEntry = AuditEntry.extend({
  data: z.custom<JsonObject>((value) => typeof value === 'object' && value !== null && !Array.isArray(value) && isJson(value), {
    message: 'must be a JSON object (finite numbers, plain objects and arrays)',
  }),
});

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

/** `new`: only what was appended since the last verified entry; `full`: every entry from genesis. */
export const VerifyMode = z.enum(['new', 'full']);
export type VerifyMode = z.infer<typeof VerifyMode>;

/** A finished verification run (docs/ledger.md, "Verifying only what is new"). */
export const ChainVerified = ChainVerification.extend({
  mode: VerifyMode,
  /** First entry this run checked itself; entries below it were checked by an earlier run or are under the anchored checkpoint. */
  fromIndex: z.number().int().nonnegative(),
  /** Entries this run hashed. */
  checked: z.number().int().nonnegative(),
  /** The last entry the chain is verified up to, with its hash then; null for an empty or broken chain. */
  verifiedUpTo: ChainHead.nullable(),
  verifiedAt: z.string(),
});
export type ChainVerified = z.infer<typeof ChainVerified>;

/** A verification running in the runtime's worker. */
export const VerifyRun = z.object({
  mode: VerifyMode,
  fromIndex: z.number().int().nonnegative(),
  checked: z.number().int().nonnegative(),
  /** Entries this run will check. */
  total: z.number().int().nonnegative(),
  startedAt: z.string(),
});
export type VerifyRun = z.infer<typeof VerifyRun>;

/** What the runtime knows at once: the last result (if any), the run in progress, the last run's failure. */
export const ChainVerifyStatus = z.object({
  last: ChainVerified.nullable(),
  running: VerifyRun.nullable(),
  /** Why the last run produced no verdict (keyring locked, database unreadable, cancelled). */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type ChainVerifyStatus = z.infer<typeof ChainVerifyStatus>;

export const AuditCheckpoint = z.object({
  id: z.string(),
  index: z.number().int().nonnegative(),
  hash: Sha256Hex,
  createdAt: z.string(),
  keyFingerprint: z.string(),
  signature: z.string(),
});
export type AuditCheckpoint = z.infer<typeof AuditCheckpoint>;
