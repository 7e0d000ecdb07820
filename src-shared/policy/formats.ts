/*
 * Strict parsers for the string-typed values of an AgentPolicy: durations (§3.7, §3.8, §5.8),
 * sizes (§3.6.3), rate limits (§3.5.2), schema hashes (§3.5.4) and listen addresses (§3.8.2).
 * Each returns either a value or a message that says what was expected; nothing is guessed,
 * rounded or clamped. Pure, so the schema (schema.ts) runs them for the loader and the editor.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = <T>(message: string): Parsed<T> => ({ ok: false, message });

// ---------------------------------------------------------------------------------------------
// Durations

const DURATION_UNITS = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
  ['ms', 1],
] as const;

/** The longest duration any policy field may hold: 365 days. */
export const MAX_DURATION_MS = 365 * 86_400_000;

const DURATION_PART = /(\d+)(ms|d|h|m|s)/y;

/**
 * A duration such as "5m", "300s", "1h", "7d", "1h30m" or "250ms": one or more whole-number
 * components with units d, h, m, s, ms, largest first, each unit at most once. Go's
 * time.ParseDuration forms that are refused on purpose: fractions ("1.5h"), signs ("-5m",
 * "+5m"), a bare "0" and the units "us"/"µs"/"ns" (no policy field needs them). "d" is not Go
 * syntax but §5.8 uses "7d", so it is accepted.
 */
export function parseDuration(text: string): Parsed<number> {
  const hint = 'expected a duration such as "30s", "5m", "1h" or "7d" (whole numbers; units d, h, m, s, ms)';
  if (text.length === 0) return fail(`empty duration; ${hint}`);
  if (text.length > 64) return fail(`duration is too long; ${hint}`);
  if (/^\s|\s$/.test(text)) return fail(`"${text}" has surrounding whitespace; ${hint}`);
  if (/^[-+]/.test(text)) return fail(`"${text}": a duration cannot have a sign; ${hint}`);
  if (/\d[.,]\d|^[.,]\d/.test(text)) return fail(`"${text}": fractions are not accepted; ${hint} — e.g. write "90m" instead of "1.5h"`);
  if (/^\d+$/.test(text)) return fail(`"${text}" has no unit; ${hint} — e.g. "${text}s"`);
  let total = 0;
  let position = 0;
  let lastRank = -1;
  while (position < text.length) {
    DURATION_PART.lastIndex = position;
    const match = DURATION_PART.exec(text);
    if (!match) return fail(`"${text}" is not a duration; ${hint}`);
    const [, digits, unit] = match as unknown as [string, string, string];
    const rank = DURATION_UNITS.findIndex(([name]) => name === unit);
    if (rank <= lastRank) return fail(`"${text}": units must appear at most once, largest first (d, h, m, s, ms); ${hint}`);
    lastRank = rank;
    const amount = Number(digits);
    const factor = DURATION_UNITS[rank]![1];
    if (digits.length > 15 || amount * factor > MAX_DURATION_MS) return fail(`"${text}" is longer than the maximum of 365d`);
    total += amount * factor;
    position = DURATION_PART.lastIndex;
  }
  if (total > MAX_DURATION_MS) return fail(`"${text}" is longer than the maximum of 365d`);
  return ok(total);
}

/** Renders milliseconds back into the largest exact unit, for messages: 300000 → "5m". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const [unit, factor] of DURATION_UNITS) {
    if (ms % factor === 0) return `${ms / factor}${unit}`;
  }
  return `${ms}ms`;
}

// ---------------------------------------------------------------------------------------------
// Sizes

const SIZE_UNITS: Record<string, number> = {
  B: 1,
  KB: 1024,
  KiB: 1024,
  MB: 1024 ** 2,
  MiB: 1024 ** 2,
  GB: 1024 ** 3,
  GiB: 1024 ** 3,
};

/** The largest max_scan_size accepted: 64 MiB. */
const MAX_SCAN_SIZE_BYTES = 64 * 1024 ** 2;

/**
 * A size such as "1MB", "512KB" or "10MB". Units are binary (KB = 1024 bytes, MB = 1,048,576
 * bytes; KiB/MiB/GiB are accepted as synonyms), matching the 1 MB = 1,048,576 default of
 * §3.6.3 as this implementation reads it. Whole numbers only, no space, case as written.
 */
export function parseSize(text: string, max = MAX_SCAN_SIZE_BYTES): Parsed<number> {
  const hint = 'expected a size such as "512KB", "1MB" or "10MB" (whole number, then B, KB, MB or GB; 1KB = 1024 bytes)';
  const match = /^(\d{1,12})(B|KB|KiB|MB|MiB|GB|GiB)$/.exec(text);
  if (!match) {
    if (/^\d+(\.\d+)?\s+[A-Za-z]+$/.test(text)) return fail(`"${text}": no space between number and unit; ${hint}`);
    if (/^\d+\.\d+/.test(text)) return fail(`"${text}": fractions are not accepted; ${hint} — e.g. write "1536KB" instead of "1.5MB"`);
    if (/^-/.test(text)) return fail(`"${text}": a size cannot be negative; ${hint}`);
    if (/^\d+$/.test(text)) return fail(`"${text}" has no unit; ${hint}`);
    if (/^\d+(kb|mb|gb|k|m|g|b)$/i.test(text)) return fail(`"${text}": unknown unit (units are case-sensitive); ${hint}`);
    return fail(`"${text}" is not a size; ${hint}`);
  }
  const bytes = Number(match[1]) * SIZE_UNITS[match[2]!]!;
  if (bytes === 0) return fail(`"${text}": the size must be greater than zero`);
  if (bytes > max) return fail(`"${text}" is larger than the maximum of ${max / 1024 ** 2}MB`);
  return ok(bytes);
}

// ---------------------------------------------------------------------------------------------
// Rates

const RATE_PERIODS: Record<string, number> = {
  second: 1_000,
  sec: 1_000,
  s: 1_000,
  minute: 60_000,
  min: 60_000,
  m: 60_000,
  hour: 3_600_000,
  hr: 3_600_000,
  h: 3_600_000,
};

/** The largest count a rate limit may allow per period. */
const MAX_RATE_COUNT = 1_000_000;

export interface ParsedRate {
  count: number;
  periodMs: number;
}

/**
 * A rate limit "<count>/<period>" (§3.5.2): count a whole number from 1 to 1,000,000 without
 * sign, leading zeros, exponent or spaces; period one of second/sec/s, minute/min/m,
 * hour/hr/h, lowercase.
 */
export function parseRate(text: string): Parsed<ParsedRate> {
  const hint = 'expected "<count>/<period>" such as "10/minute", "100/hour" or "5/second" (periods: second, sec, s, minute, min, m, hour, hr, h)';
  const slash = text.indexOf('/');
  if (slash < 0 || text.indexOf('/', slash + 1) >= 0) return fail(`"${text}" is not a rate limit; ${hint}`);
  const count = text.slice(0, slash);
  const period = text.slice(slash + 1);
  if (/\s/.test(text)) return fail(`"${text}": no spaces allowed; ${hint}`);
  if (!/^\d+$/.test(count)) {
    if (/^[-+]/.test(count)) return fail(`"${text}": the count must be a whole number from 1 to ${MAX_RATE_COUNT}, without a sign`);
    if (/^\d*\.\d+$|^\d+\.$/.test(count)) return fail(`"${text}": the count must be a whole number, got ${count}`);
    if (/^\d+(\.\d+)?e/i.test(count)) return fail(`"${text}": the count must be written as plain digits, without an exponent`);
    return fail(`"${text}": the count "${count}" is not a number; ${hint}`);
  }
  if (/^0\d/.test(count)) return fail(`"${text}": the count must not have leading zeros`);
  if (count.length > 7 || Number(count) > MAX_RATE_COUNT) return fail(`"${text}": the count ${count} is larger than the maximum of ${MAX_RATE_COUNT} per period`);
  if (Number(count) === 0) return fail(`"${text}": the count must be at least 1 (to forbid the tool, use action: block)`);
  const periodMs = Object.hasOwn(RATE_PERIODS, period) ? RATE_PERIODS[period] : undefined;
  if (periodMs === undefined) {
    const lower = period.toLowerCase();
    if (Object.hasOwn(RATE_PERIODS, lower)) return fail(`"${text}": periods are lowercase; write "${count}/${lower}"`);
    return fail(`"${text}": unknown period "${period}"; ${hint}`);
  }
  return ok({ count: Number(count), periodMs });
}

// ---------------------------------------------------------------------------------------------
// Schema hashes

export interface SchemaHash {
  algorithm: 'sha256' | 'sha384' | 'sha512';
  /** Lowercase hex digest. */
  hex: string;
  /** As written: `sha256:…`. */
  source: string;
}

const HASH_LENGTHS = { sha256: 64, sha384: 96, sha512: 128 } as const;

/** `<sha256|sha384|sha512>:<hex>` (§3.5.4); the message on failure. */
export function parseSchemaHash(source: string): SchemaHash | string {
  const match = /^([A-Za-z0-9-]+):(.*)$/s.exec(source);
  const expected = 'expected "<algorithm>:<hex digest>" with algorithm sha256, sha384 or sha512, e.g. "sha256:" followed by 64 hex characters';
  if (!match) return `"${source}" is not a schema hash; ${expected}`;
  const algorithm = match[1]!;
  const hex = match[2]!;
  if (!Object.hasOwn(HASH_LENGTHS, algorithm)) return `unsupported schema hash algorithm "${algorithm}"; ${expected}`;
  const length = HASH_LENGTHS[algorithm as keyof typeof HASH_LENGTHS];
  if (!/^[0-9a-fA-F]*$/.test(hex)) return `the ${algorithm} digest must be hexadecimal (0-9, a-f); ${expected}`;
  if (hex.length !== length) return `a ${algorithm} digest has ${length} hex characters, got ${hex.length}`;
  return { algorithm: algorithm as SchemaHash['algorithm'], hex: hex.toLowerCase(), source };
}

// ---------------------------------------------------------------------------------------------
// Listen addresses

/** Parses `<host>:<port>`, `:<port>` or `[<ipv6>]:<port>`; the message on failure. */
export function parseListen(listen: string): { host: string; port: number } | string {
  const expected = 'expected "<host>:<port>" or ":<port>", e.g. "127.0.0.1:9443" (IPv6 in brackets: "[::1]:9443")';
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.*-]*)):(\d{1,5})$/.exec(listen);
  if (!match) {
    if (/^[0-9A-Fa-f:]+$/.test(listen) && listen.split(':').length > 2) return `"${listen}" looks like an IPv6 address without brackets; ${expected}`;
    return `"${listen}" is not a listen address; ${expected}`;
  }
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return `port ${match[3]} is out of range; expected 1 to 65535`;
  return { host: match[1] ?? match[2] ?? '', port };
}

/** Loopback per §3.8.5 (127.0.0.1, ::1) plus the name localhost. An empty host binds every interface. */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host.toLowerCase() === 'localhost';
}
