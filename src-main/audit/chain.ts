import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src-shared/canonical.js';
import type { JsonObject } from '../../src-shared/schemas/json.js';
import type { ChainKey } from '../keys/ledger-key.js';

export const GENESIS_HASH = '0'.repeat(64);

export interface EntryBody {
  index: number;
  id: string;
  ts: string;
  event: string;
  /** The entry's data as RFC 8785 canonical JSON text, exactly as stored. */
  dataJson: string;
}

/**
 * The canonical form of an entry: RFC 8785 over `{data, event, id, index, ts}`. Because the
 * stored data is already canonical, the object can be assembled from its text without a
 * re-parse; `canonicalEntry` in the tests proves the two forms are byte-identical.
 */
export function canonicalEntryText(body: EntryBody): string {
  return `{"data":${body.dataJson},"event":${JSON.stringify(body.event)},"id":${JSON.stringify(body.id)},"index":${body.index},"ts":${JSON.stringify(body.ts)}}`;
}

/**
 * The legacy, unkeyed link: sha256(prev_hash ‖ canonical entry), both as UTF-8 text; hex
 * output. Anyone can recompute it, so it only stands for entries written before a home's ledger
 * key existed (below `keyedFrom`), which the first keyed entry seals.
 */
export function entryHash(prevHash: string, body: EntryBody): string {
  return createHash('sha256').update(prevHash, 'utf8').update(canonicalEntryText(body), 'utf8').digest('hex');
}

/** The keyed link: HMAC-SHA256(ledger key, prev_hash ‖ canonical entry); hex output. */
export function keyedEntryHash(key: ChainKey, prevHash: string, body: EntryBody): string {
  return key.mac(prevHash, canonicalEntryText(body));
}

/** How the entry at `body.index` is linked: keyed from `keyedFrom` on, legacy sha256 below it. */
export function linkHash(key: ChainKey, keyedFrom: number, prevHash: string, body: EntryBody): string {
  return body.index >= keyedFrom ? key.mac(prevHash, canonicalEntryText(body)) : entryHash(prevHash, body);
}

/** The chain entry that records a checkpoint, so deleting a checkpoint row leaves a keyed trace. */
export const CHECKPOINT_EVENT = 'audit.checkpoint';
/** The first keyed entry of a home that had unkeyed (legacy) entries. */
export const CHAIN_KEYED_EVENT = 'audit.chain_keyed';

/** Normalises caller data to canonical JSON text; rejects what JSON cannot carry. */
export function canonicalData(data: unknown): string {
  return normaliseData(data).json;
}

/**
 * `canonicalData` plus the normalised value itself (what `JSON.parse` of the text would give,
 * up to key order), so an append need not parse its own output back. Plain JSON data — the
 * hot path — is serialised in one walk; anything else (toJSON, undefined in arrays, non-finite
 * numbers, exotic prototypes, deep nesting) takes the stringify → parse → canonicalize route.
 */
export function normaliseData(data: unknown): { json: string; value: JsonObject } {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new TypeError('audit data must be a JSON object');
  }
  const copy = sortedCopy(data, 0);
  if (copy !== NOT_PLAIN) return { json: JSON.stringify(copy), value: copy as JsonObject };
  const fast = plainCanonical(data, 0);
  if (fast) return { json: fast.json, value: fast.value as JsonObject };
  const value = JSON.parse(JSON.stringify(data)) as JsonObject;
  return { json: canonicalJson(value), value };
}

const MAX_FAST_DEPTH = 64;
const NOT_PLAIN = Symbol('not plain JSON');

/**
 * The hot path (every decision a proxy records): a fresh copy of plain JSON data whose objects
 * hold their keys in RFC 8785 order, so one native JSON.stringify of it is the canonical text
 * (strings and numbers are written as JSON.stringify writes them either way). Keys that look
 * like array indexes are refused here, since an object lists those first whatever the insertion
 * order; they, `__proto__` and anything not plain take `plainCanonical`. `chain.test.ts` holds
 * the routes to the same bytes.
 */
function sortedCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_PLAIN;
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_FAST_DEPTH) return NOT_PLAIN;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
        const copy: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i += 1) {
          const item = sortedCopy(value[i], depth + 1);
          if (item === NOT_PLAIN) return NOT_PLAIN;
          copy[i] = item;
        }
        return copy;
      }
      const record = plainRecord(value);
      if (record === null) return NOT_PLAIN;
      const keys = keysInOrder(record);
      const copy: Record<string, unknown> = {};
      for (const key of keys) {
        const first = key.charCodeAt(0);
        if ((first >= 0x30 && first <= 0x39) || key === '__proto__') return NOT_PLAIN;
        const raw = record[key];
        if (raw === undefined) continue;
        const item = sortedCopy(raw, depth + 1);
        if (item === NOT_PLAIN) return NOT_PLAIN;
        copy[key] = item;
      }
      return copy;
    }
    default:
      return NOT_PLAIN;
  }
}

/**
 * The record's keys in RFC 8785 order (UTF-16 code units, as `<` and the default sort compare
 * strings). Writers of the hot path (`aip/audit-record.ts`) set their fields in that order, and
 * checking that is a quarter of the cost of sorting.
 */
function keysInOrder(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i += 1) {
    if (keys[i - 1]! > keys[i]!) return keys.sort();
  }
  return keys;
}

/** `value` as a record when it is a plain object (no class, no toJSON), else null: others need JSON.stringify's full semantics. */
function plainRecord(value: object): Record<string, unknown> | null {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return null;
  const record = value as Record<string, unknown>;
  return typeof record.toJSON === 'function' ? null : record;
}

/** RFC 8785 text and a fresh copy of plain JSON data, or null when the value needs JSON.stringify's full semantics. */
function plainCanonical(value: unknown, depth: number): { json: string; value: unknown } | null {
  switch (typeof value) {
    case 'string':
      return { json: JSON.stringify(value), value };
    case 'boolean':
      return { json: value ? 'true' : 'false', value };
    case 'number':
      if (!Number.isFinite(value)) return null;
      return { json: JSON.stringify(value), value: value === 0 ? 0 : value };
    case 'object': {
      if (value === null) return { json: 'null', value: null };
      if (depth >= MAX_FAST_DEPTH) return null;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return null;
        const copy: unknown[] = new Array(value.length);
        let json = '[';
        for (let i = 0; i < value.length; i += 1) {
          const item = plainCanonical(value[i], depth + 1);
          if (!item) return null;
          if (i > 0) json += ',';
          json += item.json;
          copy[i] = item.value;
        }
        return { json: json + ']', value: copy };
      }
      const record = plainRecord(value);
      if (record === null) return null;
      const keys = Object.keys(record).sort();
      const copy: Record<string, unknown> = {};
      let json = '{';
      let first = true;
      for (const key of keys) {
        if (key === '__proto__') return null;
        const raw = record[key];
        if (raw === undefined) continue;
        const item = plainCanonical(raw, depth + 1);
        if (!item) return null;
        json += `${first ? '' : ','}${JSON.stringify(key)}:${item.json}`;
        first = false;
        copy[key] = item.value;
      }
      return { json: json + '}', value: copy };
    }
    default:
      // undefined at the top of an array slot, functions, symbols, bigints.
      return null;
  }
}

export interface CheckpointBody {
  id: string;
  index: number;
  hash: string;
  createdAt: string;
  keyFingerprint: string;
}

/** The exact bytes a checkpoint signature covers. The type tag keeps them from meaning anything else. */
export function checkpointSigningBytes(body: CheckpointBody): Buffer {
  const { id, index, hash, createdAt, keyFingerprint } = body;
  return Buffer.from(canonicalJson({ type: 'silas.audit.checkpoint/v1', id, index, hash, createdAt, keyFingerprint }), 'utf8');
}
