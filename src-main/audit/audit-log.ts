import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../src-shared/schemas/json.js';
import type { AuditCheckpoint, AuditEntry, ChainHead, ChainVerification } from '../../src-shared/schemas/audit.js';
import { AuditEventName } from '../../src-shared/schemas/audit.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import { canonicalData, checkpointSigningBytes } from './chain.js';
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

export class SqliteAuditLog implements AuditLog {
  private readonly repo: AuditRepository;
  private readonly now: () => Date;
  private readonly newId: () => string;

  constructor(private readonly deps: AuditLogDeps) {
    this.repo = deps.repository;
    this.now = deps.now ?? (() => new Date());
    this.newId = deps.newId ?? randomUUID;
  }

  append(event: string, data: JsonObject = {}): AuditEntry {
    return this.appendBatch([{ event, data }])[0]!;
  }

  appendBatch(items: readonly { event: string; data?: JsonObject }[]): AuditEntry[] {
    const prepared = items.map((item) => {
      const name = AuditEventName.safeParse(item.event);
      if (!name.success) {
        throw new SilasError(ErrorCode.InvalidArgs, `audit event "${item.event}": ${name.error.issues[0]?.message ?? 'invalid name'}`);
      }
      return { id: this.newId(), ts: this.now().toISOString(), event: item.event, dataJson: canonicalData(item.data ?? {}) };
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
