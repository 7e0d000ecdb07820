import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src-shared/canonical.js';

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

/** hash = sha256(prev_hash ‖ canonical entry), both as UTF-8 text; hex output. */
export function entryHash(prevHash: string, body: EntryBody): string {
  return createHash('sha256').update(prevHash, 'utf8').update(canonicalEntryText(body), 'utf8').digest('hex');
}

/** Normalises caller data to canonical JSON text; rejects what JSON cannot carry. */
export function canonicalData(data: unknown): string {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new TypeError('audit data must be a JSON object');
  }
  return canonicalJson(JSON.parse(JSON.stringify(data)));
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
