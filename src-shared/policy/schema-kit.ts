import { z } from 'zod';
import { parseDuration, parseRate, parseSchemaHash, parseSize } from './formats.js';

/*
 * Building blocks of the AgentPolicy schema (schema.ts). Their messages follow one convention,
 * which validate.ts relies on: a type error says only what was expected ("expected a tool
 * name"), and validate.ts finishes it with what the YAML holds (", got the number 1 (write it
 * in quotes…)"), because only the YAML node knows how the value was written. Every other
 * message is complete as it stands.
 */

export const API_VERSIONS = ['aip.io/v1alpha2', 'aip.io/v1alpha1'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const CURRENT_VERSION: ApiVersion = 'aip.io/v1alpha2';

/** Control and invisible characters, refused in names and paths. */
export const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const V2_ONLY = new WeakSet<object>();

/** A type error's message: what a missing key should hold, or what a present value should be. */
const expecting = (what: string, missing?: string) => (issue: { input?: unknown }) => `expected ${issue.input === undefined && missing ? missing : what}`;

/** Marks a field that exists only from aip.io/v1alpha2 on; v1alpha1 mappings leave it out. */
export function v2<T extends z.ZodType>(field: T): T {
  V2_ONLY.add(field);
  return field;
}

/**
 * A mapping with a closed set of keys (Appendix A): any other key is an error. `hints` replace
 * the generic message for keys people are known to try (`denied_tools`, `extends`…); `missing`
 * says what a required mapping should hold.
 */
export function closed<S extends z.ZodRawShape>(
  version: ApiVersion,
  shape: S,
  options: { hints?: Readonly<Record<string, string>>; missing?: string } = {},
): z.ZodObject<S, z.core.$strict> {
  // The v1alpha1 schema only validates (validate.ts takes the values from the v1alpha2 parse),
  // so its narrower shape may keep the wider type.
  const kept = version === CURRENT_VERSION ? shape : (Object.fromEntries(Object.entries(shape).filter(([, field]) => !V2_ONLY.has(field))) as S);
  const expected = expecting('a mapping', options.missing);
  const schema = z.strictObject(kept, { error: (issue) => (issue.code === 'invalid_type' ? expected(issue) : undefined) });
  return options.hints ? schema.meta({ unknownKeys: options.hints }) : schema;
}

/**
 * A string; `nonEmpty` refuses blank ones, `max` counts UTF-16 units as the loader always has.
 * `missing` says what a required key should hold, when that needs more words than its type.
 */
export function text(what: string, options: { nonEmpty?: boolean; max?: number; missing?: string } = {}) {
  let schema = z.string({ error: expecting(what, options.missing) });
  if (options.nonEmpty) schema = schema.refine((value) => value.trim() !== '', { error: `expected ${what}, got an empty string`, abort: true });
  const max = options.max;
  if (max !== undefined) {
    schema = schema.refine((value) => value.length <= max, { error: (issue) => `expected ${what} of at most ${max} characters, got ${String(issue.input).length}`, abort: true });
  }
  return schema;
}

export function flag() {
  return z.boolean({ error: 'expected true or false' });
}

export function list<T extends z.ZodType>(what: string, item: T, missing?: string) {
  return z.array(item, { error: expecting(`a list of ${what}`, missing) });
}

export function wholeNumber(min: number, max: number) {
  const expected = `expected a whole number from ${min} to ${max}`;
  return z
    .number({ error: expected })
    .refine((value) => Number.isSafeInteger(value) && value >= min && value <= max, { error: (issue) => `${expected}, got the number ${String(issue.input)}`, abort: true });
}

/** A string in one of the formats of formats.ts, parsed; the parser's message on failure. */
function formatted<T>(expected: string, parse: (value: string) => { ok: true; value: T } | { ok: false; message: string }) {
  return z.string({ error: expected }).transform((value, ctx) => {
    const parsed = parse(value);
    if (parsed.ok) return parsed.value;
    ctx.issues.push({ code: 'custom', message: parsed.message, input: value });
    return z.NEVER;
  });
}

/** A duration as written and in milliseconds. */
interface Duration {
  ms: number;
  text: string;
}

/** A Go-style duration; `positive` refuses "0s". */
export function duration(field: string, positive: boolean) {
  return formatted(`expected a duration such as "5m" (${field})`, (text) => {
    const parsed = parseDuration(text);
    if (!parsed.ok) return parsed;
    if (positive && parsed.value < 1) return { ok: false, message: `${field} must be greater than zero, got "${text}"` };
    return { ok: true, value: { ms: parsed.value, text } satisfies Duration };
  });
}

/** Bytes, from "512KB", "1MB"… */
export const size = () => formatted('expected a size such as "1MB"', (text) => parseSize(text));

export const rate = () =>
  formatted('expected a rate limit such as "10/minute"', (source) => {
    const parsed = parseRate(source);
    return parsed.ok ? { ok: true, value: { ...parsed.value, source } } : parsed;
  });

export const schemaHash = () =>
  formatted('expected a schema hash "sha256:<hex>"', (source) => {
    const parsed = parseSchemaHash(source);
    return typeof parsed === 'string' ? { ok: false, message: parsed } : { ok: true, value: parsed };
  });

/**
 * A mapping whose keys are free (allow_args), kept as a Map: a plain-object record would drop a
 * key named `__proto__`, which is a legitimate argument name.
 */
export function openMap<T extends z.ZodType>(expected: string, value: T) {
  const isPlainObject = (input: unknown): input is Record<string, unknown> => typeof input === 'object' && input !== null && !Array.isArray(input);
  return z.preprocess((input) => (isPlainObject(input) ? new Map(Object.entries(input)) : input), z.map(z.string(), value, { error: expected }));
}

// ---------------------------------------------------------------------------------------------
// Reading the schema back: the editor's hover text and validate.ts's unknown-key messages.

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
}

const def = (schema: z.ZodType): Def => schema._zod.def as unknown as Def;

/** The schemas a field is wrapped in (default, optional, transform…), outermost first. */
export function layers(schema: z.ZodType): z.ZodType[] {
  const out: z.ZodType[] = [schema];
  for (let current = def(schema); ; current = def(out[out.length - 1]!)) {
    const inner = current.innerType ?? (current.type === 'pipe' ? (def(current.in!).type === 'transform' ? current.out : current.in) : undefined);
    if (!inner) return out;
    out.push(inner);
  }
}

/** The schema of the field at `path` (keys and list indices), or null where the schema has none. */
export function schemaAt(root: z.ZodType, path: ReadonlyArray<PropertyKey>): z.ZodType | null {
  let current: z.ZodType = root;
  for (const segment of path) {
    const core = layers(current).at(-1)!;
    const { type, shape, element, valueType } = def(core);
    const next = type === 'object' ? (Object.hasOwn(shape!, String(segment)) ? shape![String(segment)] : undefined) : type === 'array' ? element : type === 'map' || type === 'record' ? valueType : undefined;
    if (!next) return null;
    current = next;
  }
  return current;
}

/** The keys of the mapping at `path`, with its unknown-key hints. */
export function mappingAt(root: z.ZodType, path: ReadonlyArray<PropertyKey>): { keys: string[]; hints: Readonly<Record<string, string>> } | null {
  const schema = schemaAt(root, path);
  const core = schema && layers(schema).find((layer) => def(layer).type === 'object');
  if (!core) return null;
  return { keys: Object.keys(def(core).shape!), hints: (core.meta()?.unknownKeys as Record<string, string> | undefined) ?? {} };
}

/** The `.describe()` text of a field, whichever wrapper carries it. */
export function descriptionOf(schema: z.ZodType | null): string | undefined {
  return schema ? layers(schema).find((layer) => layer.description !== undefined)?.description : undefined;
}
