import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { TaintLevel } from '../../../src-shared/silas/execution.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import type { StreamScopeRepository, StreamWorkRecord, StreamWorkRepository } from '../../store/repositories/stream-scopes.js';

/*
 * The Stream's state in the database, sealed with the ledger key (docs/architecture.md §2 "Sealed
 * state", docs/silas/stream.md "Sealed state"). A process that can write the database but cannot
 * reach the keyring can change these rows, but not their seals:
 *
 * - a scope's resume-key hash (`scope-key`, id = scope id): a replaced hash fails its seal, so the
 *   conversation is not handed to whoever holds the new key; the session holding it keeps it;
 * - a dispatched work row (`stream-work`, id = work item id, over every field that decides what a
 *   restart resumes and shows): a planted or edited row is not resumed and nothing is announced.
 *
 * Refusals are reported by the seals (`state.seal_refused`); the caller fails closed.
 */

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export type ScopeResume = 'ok' | 'unknown' | 'wrong-key' | 'seal-refused';

export class SealedScopeKeys {
  constructor(
    private readonly repo: StreamScopeRepository,
    private readonly seals: Pick<StateSeals, 'seal' | 'check'>,
  ) {}

  /** A new scope: only the key's SHA-256 is stored, with its seal (sealing throws without the ledger key: nothing is written unsealed). */
  create(scopeId: string, key: string, at: Date): void {
    const keySha256 = sha256(key);
    this.repo.create(scopeId, keySha256, this.seals.seal('ledger', 'scope-key', scopeId, { key_sha256: keySha256 }), at);
  }

  /** Whether `key` resumes `scopeId`: the stored hash must carry its seal and match, compared in constant time. */
  resume(scopeId: string, key: string, at: Date): ScopeResume {
    const stored = this.repo.keyOf(scopeId);
    if (stored === null) return 'unknown';
    if (!this.seals.check('ledger', 'scope-key', scopeId, { key_sha256: stored.keySha256 }, stored.keySeal).ok) return 'seal-refused';
    const expected = Buffer.from(stored.keySha256, 'hex');
    const given = Buffer.from(sha256(key), 'hex');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'wrong-key';
    this.repo.touch(scopeId, at);
    return 'ok';
  }
}

/**
 * Where a plan came from: the channel of the conversation that proposed it and the taint of the
 * answer that carried it (§5.12), so its card can say so (docs/review.md "Sources").
 * `cockpit`: the person's cockpit; `local_conversation`: a conversation over the local socket
 * (`silas chat`, or any local process holding the ask credential), `signed` when its message was
 * owner-signed.
 */
export const PlanOrigin = z.strictObject({
  channel: z.enum(['cockpit', 'local_conversation']),
  taint: TaintLevel,
  signed: z.boolean(),
});
export type PlanOrigin = z.infer<typeof PlanOrigin>;

/** A plan the Stream dispatched, as it is kept across restarts. */
export interface DispatchedWork {
  workItemId: string;
  scopeId: string;
  planHash: string;
  itemJson: string;
  origin: PlanOrigin;
}

/** What the seal covers: every field that decides whether a row is resumed, into which conversation, and what it shows. */
function sealedValue(row: Omit<StreamWorkRecord, 'seal'>): Record<string, string | null> {
  return { work_item_id: row.workItemId, scope_id: row.scopeId, plan_hash: row.planHash, item_json: row.itemJson, status: row.status, origin_json: row.originJson };
}

export class SealedWorkLedger {
  constructor(
    private readonly repo: StreamWorkRepository,
    private readonly seals: Pick<StateSeals, 'seal' | 'check'>,
  ) {}

  record(work: DispatchedWork, status: string, at: Date): void {
    this.write({ workItemId: work.workItemId, scopeId: work.scopeId, planHash: work.planHash, itemJson: work.itemJson, status, originJson: JSON.stringify(work.origin) }, at);
  }

  /**
   * A new status, sealed again. A row whose seal already fails is left as it is: resealing it
   * would launder whatever was written into it (it is reported, and never resumed).
   */
  setStatus(workItemId: string, status: string, at: Date): void {
    const row = this.repo.get(workItemId);
    if (row === null) return;
    if (!this.seals.check('ledger', 'stream-work', workItemId, sealedValue(row), row.seal).ok) return;
    this.write({ ...row, status }, at);
  }

  /** Unfinished work whose seal holds, oldest first; `refused` counts the rows left out (each reported). */
  unfinished(): { work: (DispatchedWork & { status: string })[]; refused: number } {
    const work: (DispatchedWork & { status: string })[] = [];
    let refused = 0;
    for (const row of this.repo.unfinished()) {
      const origin = this.seals.check('ledger', 'stream-work', row.workItemId, sealedValue(row), row.seal).ok ? parseOrigin(row.originJson) : null;
      if (origin === null) {
        refused += 1;
        continue;
      }
      work.push({ workItemId: row.workItemId, scopeId: row.scopeId, planHash: row.planHash, itemJson: row.itemJson, origin, status: row.status });
    }
    return { work, refused };
  }

  private write(row: Omit<StreamWorkRecord, 'seal'>, at: Date): void {
    this.repo.record({ ...row, seal: this.seals.seal('ledger', 'stream-work', row.workItemId, sealedValue(row)) }, at);
  }
}

function parseOrigin(json: string | null): PlanOrigin | null {
  if (json === null) return null;
  try {
    const parsed = PlanOrigin.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
