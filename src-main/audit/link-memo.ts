import { linkHash, type EntryBody } from './chain.js';
import type { LedgerKeys } from './ledger-keys.js';
import type { EntryRow } from '../store/repositories/audit-repository.js';

/** What `linkHash` was given for one entry, and what it returned. */
interface Link {
  prevHash: string;
  id: string;
  ts: string;
  event: string;
  dataJson: string;
  hash: string;
}

/**
 * The links a writer computed itself, so that the checkpoint which re-verifies its entries (DESIGN
 * invariant 3: nothing is signed over a chain edited since it was written) need not compute each
 * HMAC a second time over the same bytes: half of the ledger's HMAC work on a busy proxy, which
 * pays it on every call it relays.
 *
 * This is a memo of a pure function and nothing more. A stored row is vouched for only when
 * every column `linkHash` reads (index, id, ts, event, data, prev_hash) and the stored hash are
 * identical to a link this process computed with the keyring's ledger key; recomputing the
 * HMAC over that row would then return that same hash, so the walk decides exactly what it
 * decides without the memo. Any edit of any column (the attacker's side: a process that can
 * write the database but not read the keyring) makes the row differ from the memo, and the
 * walk recomputes the HMAC as before (`link-memo.test.ts`). For the same reason it does not
 * matter whether the transaction that linked an entry committed: a row identical to a
 * rolled-back link still carries a valid HMAC.
 */
export class LinkMemo {
  private readonly links = new Map<number, Link>();
  /** Characters of data held (an entry may carry up to 64 KB of arguments). */
  private chars = 0;

  /**
   * `limit` entries and `maxChars` characters of data bound the memory it holds (it keeps strings
   * alive until the next checkpoint, and a writer that rarely checkpoints itself because another
   * process does would otherwise keep them all): past either it starts afresh, and an entry
   * larger than `maxChars` is not remembered. What is not remembered is hashed again, as before.
   */
  constructor(
    private readonly keys: LedgerKeys,
    private readonly limit: number,
    private readonly maxChars: number,
  ) {}

  /** `linkHash` under this ledger's keys, remembered for `vouches`. */
  link(prevHash: string, body: EntryBody): string {
    const hash = linkHash(this.keys.chain, this.keys.keyedFrom, prevHash, body);
    const size = body.dataJson.length;
    if (size > this.maxChars) return hash;
    if (this.links.size >= this.limit || this.chars + size > this.maxChars) this.clear();
    this.links.set(body.index, { prevHash, id: body.id, ts: body.ts, event: body.event, dataJson: body.dataJson, hash });
    this.chars += size;
    return hash;
  }

  /** True only when the stored row is byte-for-byte a link this memo computed, hash included. */
  vouches(row: EntryRow): boolean {
    const link = this.links.get(row.idx);
    return (
      link !== undefined &&
      link.hash === row.hash &&
      link.prevHash === row.prev_hash &&
      link.dataJson === row.data &&
      link.id === row.id &&
      link.ts === row.ts &&
      link.event === row.event
    );
  }

  /** After a checkpoint's walk: the next walk starts past every entry remembered so far. */
  clear(): void {
    this.links.clear();
    this.chars = 0;
  }

  get size(): number {
    return this.links.size;
  }
}
