import { randomFillSync } from 'node:crypto';
import type { JsonObject } from '../../src-shared/schemas/json.js';
import type { AuditCheckpoint, AuditEntry, ChainHead, ChainVerification } from '../../src-shared/schemas/audit.js';
import { AuditEventName } from '../../src-shared/schemas/audit.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import { checkpointSigningBytes, normaliseData } from './chain.js';
import { AuditRepository, rowToEntry } from './repository.js';
import { verifyFromCheckpoint, verifyWholeChain, type TrustedKeys } from './verify.js';

export interface AuditPage {
  entries: AuditEntry[];
  total: number;
  head: ChainHead | null;
}

/** The one ledger every decision goes through (DESIGN invariant 3). */
export interface AuditLog {
  append(event: string, data?: JsonObject): AuditEntry;
  appendBatch(items: readonly { event: string; data?: JsonObject }[]): AuditEntry[];
  writeCheckpoint(): AuditCheckpoint | null;
  verifyChain(): ChainVerification;
  verifyFromCheckpoint(checkpointId?: string): ChainVerification;
  list(before: number | undefined, limit: number): AuditPage;
  after(index: number, limit: number): AuditEntry[];
  tail(count: number): AuditEntry[];
  since(isoTime?: string): Iterable<AuditEntry>;
  head(): ChainHead | null;
}

export interface AuditLogDeps {
  repository: AuditRepository;
  /** Signs checkpoints; absent in read-only tools that only verify. */
  signer?: OwnerSigner;
  trustedKeys: TrustedKeys;
  now?: () => Date;
  newId?: () => string;
}

/** Event names already validated: a ledger sees a few dozen distinct names, so each is checked once. */
const validEventNames = new Set<string>();
const MAX_CACHED_EVENT_NAMES = 1024;

function checkEventName(event: string): void {
  if (validEventNames.has(event)) return;
  const name = AuditEventName.safeParse(event);
  if (!name.success) {
    throw new SilasError(ErrorCode.InvalidArgs, `audit event "${event}": ${name.error.issues[0]?.message ?? 'invalid name'}`);
  }
  if (validEventNames.size < MAX_CACHED_EVENT_NAMES) validEventNames.add(event);
}

const idBytes = Buffer.alloc(16);
// Random bytes are drawn in blocks (as randomUUID does): one getrandom per 409 ids, not per id.
const pool = Buffer.alloc(4090);
let poolOffset = pool.length;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * A random, time-ordered entry id (RFC 9562 UUIDv7: 48-bit Unix milliseconds, 74 random bits).
 * Ids are opaque and unique like v4 ones, but successive ids sort together, so the UNIQUE index
 * on `id` grows at its end instead of dirtying a random page per entry — a third of the cost of
 * an append was writing those pages to the WAL.
 */
export function timeOrderedId(ms: number = Date.now()): string {
  const b = idBytes;
  if (poolOffset + 10 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(b, 6, poolOffset, poolOffset + 10);
  poolOffset += 10;
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = (i: number) => HEX[b[i]!]!;
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

export class SqliteAuditLog implements AuditLog {
  private readonly repo: AuditRepository;
  private readonly now: () => Date;
  private readonly newId: () => string;

  constructor(private readonly deps: AuditLogDeps) {
    this.repo = deps.repository;
    this.now = deps.now ?? (() => new Date());
    this.newId = deps.newId ?? (() => timeOrderedId());
  }

  append(event: string, data: JsonObject = {}): AuditEntry {
    return this.appendBatch([{ event, data }])[0]!;
  }

  appendBatch(items: readonly { event: string; data?: JsonObject }[]): AuditEntry[] {
    const prepared = items.map((item) => {
      checkEventName(item.event);
      const data = normaliseData(item.data ?? {});
      return { id: this.newId(), ts: this.now().toISOString(), event: item.event, dataJson: data.json, data: data.value };
    });
    return this.repo.append(prepared);
  }

  writeCheckpoint(): AuditCheckpoint | null {
    const signer = this.deps.signer;
    if (!signer) throw new SilasError(ErrorCode.KeyMissing, 'cannot write an audit checkpoint without the owner key; unlock the OS keyring');
    const head = this.repo.head();
    if (!head) return null;
    const latest = this.repo.latestCheckpoint();
    if (latest && latest.index === head.index && latest.hash === head.hash) return latest;
    const body = { id: this.newId(), index: head.index, hash: head.hash, createdAt: this.now().toISOString(), keyFingerprint: signer.fingerprint };
    const checkpoint: AuditCheckpoint = { ...body, signature: signer.sign(checkpointSigningBytes(body)).toString('base64') };
    this.repo.insertCheckpoint(checkpoint);
    return checkpoint;
  }

  verifyChain(): ChainVerification {
    return verifyWholeChain(this.repo, this.deps.trustedKeys);
  }

  verifyFromCheckpoint(checkpointId?: string): ChainVerification {
    return verifyFromCheckpoint(this.repo, this.deps.trustedKeys, checkpointId);
  }

  list(before: number | undefined, limit: number): AuditPage {
    return { entries: this.repo.page(before, limit).map(rowToEntry), total: this.repo.count(), head: this.repo.head() };
  }

  after(index: number, limit: number): AuditEntry[] {
    return this.repo.after(index, limit).map(rowToEntry);
  }

  tail(count: number): AuditEntry[] {
    return this.repo.page(undefined, count).map(rowToEntry).reverse();
  }

  *since(isoTime?: string): Iterable<AuditEntry> {
    for (const row of this.repo.iterateSince(isoTime)) yield rowToEntry(row);
  }

  head(): ChainHead | null {
    return this.repo.head();
  }
}
