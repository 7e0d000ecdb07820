import { z } from 'zod';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { UtcInstant } from '../../../src-shared/silas/approval.js';
import { ScopeId } from '../../../src-shared/silas/context.js';
import { MemoryItem } from '../../../src-shared/silas/memory.js';

/*
 * The portable memory bundle of spec 002 §6.5 (docs/silas/memory-portability.md): JSON lines, a
 * header, one MemoryItem per line in RFC 8785 canonical JSON, and a trailer carrying the count and
 * the SHA-256 of every line before it, so a bundle cut short or changed after export is refused
 * rather than half imported. Versioned and self-describing (§4.2.3): nothing here names a table.
 */

export const BUNDLE_KIND = 'silas.memory.bundle';
/** The envelope (header, records, trailer). */
export const BUNDLE_VERSION = 1;
/** The record shape: the MemoryItem fields of `src-shared/silas/memory.ts`, without `embedding`. */
export const MEMORY_SCHEMA_VERSION = 1;
/** No record comes near this; a longer line is not part of a bundle, and is not read into memory whole. */
export const MAX_BUNDLE_LINE_BYTES = 16 * 1024 * 1024;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected 64 lowercase hex digits' });
const Count = z.number({ error: 'expected a whole number' }).int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * What the bundle covers as well as what it is: `scope` (null: every scope), `include_raw` (the
 * `low_reingestion` lane too) and `since` (only memories changed since then). A replace swaps
 * exactly that cover, so an empty bundle of one scope empties that scope and nothing else.
 */
export const BundleHeader = z.strictObject({
  kind: z.literal(BUNDLE_KIND),
  bundle_version: z.literal(BUNDLE_VERSION),
  schema_version: z.literal(MEMORY_SCHEMA_VERSION),
  exported_at: UtcInstant,
  count: Count,
  include_raw: z.boolean({ error: 'expected true or false' }),
  scope: ScopeId.nullable(),
  since: UtcInstant.nullable(),
  /** Vectors are derived from the content by this home's embedder and rebuilt after an import. */
  embedding: z.literal('omitted'),
});
export type BundleHeader = z.infer<typeof BundleHeader>;

export const BundleTrailer = z.strictObject({ end: z.literal(true), count: Count, sha256: Sha256 });
export type BundleTrailer = z.infer<typeof BundleTrailer>;

/** The record's keys in RFC 8785 order (UTF-16 code units, which is how `sort` compares). */
const ITEM_KEYS = Object.keys(MemoryItem.shape).sort();

/**
 * One record line: canonical, so the same memory always exports to the same bytes. A MemoryItem
 * holds only text, whole numbers, null and lists of text, for which RFC 8785 is JSON.stringify
 * with the keys in order; that is a quarter of the cost of the general serializer, which an
 * export of a million memories pays per line (bundle-format.test.ts holds them equal).
 */
export function itemLine(item: MemoryItem): string {
  const ordered: Record<string, unknown> = {};
  for (const key of ITEM_KEYS) ordered[key] = item[key as keyof MemoryItem];
  return JSON.stringify(ordered);
}

export function headerLine(header: BundleHeader): string {
  return canonicalJson(header);
}

export function trailerLine(trailer: BundleTrailer): string {
  return canonicalJson(trailer);
}

/** A bundle that cannot be imported: which file, which line, what is wrong and what to do. */
export class BundleProblem extends SilasError {
  constructor(
    code: string,
    message: string,
    readonly line: number | null,
  ) {
    super(code, message);
    this.name = 'BundleProblem';
  }
}

const NOTHING = 'nothing was imported';

export function invalidLine(file: string, line: number, field: string, message: string, fix = 'correct it, or export the bundle again'): BundleProblem {
  return new BundleProblem(ErrorCode.InvalidArgs, `${file}: line ${line}, field ${field}: ${message}; ${fix} (${NOTHING})`, line);
}

export function corruptBundle(file: string, line: number | null, message: string): BundleProblem {
  return new BundleProblem(ErrorCode.Corrupt, `${file}: ${message}; export the bundle again (${NOTHING})`, line);
}

export function foreignFile(file: string, what: string): BundleProblem {
  return new BundleProblem(ErrorCode.InvalidArgs, `${file} is not a Silas memory bundle: ${what}; a bundle is what \`silas memory export\` writes (${NOTHING})`, 1);
}

/** Which field of a parsed value zod found wrong, and why. */
function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0]!;
  const field = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(the record)');
  return { field, message: issue.code === 'unrecognized_keys' ? 'not a field of this record' : issue.message };
}

/** Line 1: a header of the kind and versions this Silas reads, or a refusal that says what the file is not. */
export function parseHeader(file: string, value: unknown): BundleHeader {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuseForeign(file, 'its first line is not a JSON object');
  const record = value as Record<string, unknown>;
  if (record.kind !== BUNDLE_KIND) return refuseForeign(file, describeForeign(record));
  for (const [field, known] of [['bundle_version', BUNDLE_VERSION], ['schema_version', MEMORY_SCHEMA_VERSION]] as const) {
    const version = record[field];
    if (typeof version === 'number' && Number.isInteger(version) && version > known) {
      throw invalidLine(file, 1, field, `the bundle was written by a newer Silas (${field} ${version}; this Silas reads ${known})`, 'update Silas to import it');
    }
  }
  const parsed = BundleHeader.safeParse(value);
  if (parsed.success) return parsed.data;
  const { field, message } = firstIssue(parsed.error);
  throw invalidLine(file, 1, field, message);
}

function refuseForeign(file: string, what: string): never {
  throw foreignFile(file, what);
}

/** What a first line that is not our header looks like, so the person learns what they picked up. */
function describeForeign(record: Record<string, unknown>): string {
  const base = `its first line has no "kind": "${BUNDLE_KIND}" header`;
  if (typeof record.kind === 'string') return `${base} (its kind is ${JSON.stringify(record.kind.slice(0, 80))})`;
  if ('audit_index' in record && 'hash' in record) return `${base} (it looks like an audit export, \`silas audit export\`)`;
  if ('memory_id' in record) return `${base} (it starts with a memory record: the header line was removed)`;
  return base;
}

/**
 * A record line as a MemoryItem inside the bundle's cover. An `embedding` (a bundle from a system
 * that exports vectors) is accepted and dropped: vectors are rebuilt by this home's embedder.
 */
export function parseItem(file: string, line: number, value: unknown, header: BundleHeader): MemoryItem {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidLine(file, line, '(the record)', 'expected a JSON object (one memory)');
  const record = { ...(value as Record<string, unknown>) };
  if ('embedding' in record) {
    const embedding = record.embedding;
    if (embedding !== null && !(Array.isArray(embedding) && embedding.every((x) => typeof x === 'number'))) {
      throw invalidLine(file, line, 'embedding', 'expected null or a list of numbers');
    }
    delete record.embedding;
  }
  const parsed = MemoryItem.safeParse(record);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error);
    throw invalidLine(file, line, field, message);
  }
  const item = parsed.data;
  if (header.scope !== null && item.scope_id !== header.scope) {
    throw invalidLine(file, line, 'scope_id', `${JSON.stringify(item.scope_id)} is outside the bundle's scope ${JSON.stringify(header.scope)} (its header)`);
  }
  if (!header.include_raw && item.reingestion_tier !== 'active') {
    throw invalidLine(file, line, 'reingestion_tier', 'the header says the bundle holds no raw lane (include_raw false), but this memory is low_reingestion');
  }
  // §5.12: external input never becomes constitutional memory; no Silas home holds such a row.
  if (item.trust_level === 'constitutional' && item.taint === 'external') {
    throw invalidLine(file, line, 'trust_level', 'a constitutional memory cannot carry taint external (spec 002 §5.12)', 'remove the line, or lower it to working');
  }
  return item;
}

/** Whether a line is the trailer rather than a record: records never carry `end`. */
export function isTrailer(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'end' in value;
}

export function parseTrailer(file: string, line: number, value: unknown): BundleTrailer {
  const parsed = BundleTrailer.safeParse(value);
  if (parsed.success) return parsed.data;
  const { field, message } = firstIssue(parsed.error);
  throw invalidLine(file, line, field, `${message} (the trailer)`);
}
