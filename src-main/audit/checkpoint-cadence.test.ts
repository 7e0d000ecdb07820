import { describe, expect, it } from 'vitest';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { testAuditEvents } from '../testing/audit-events.js';
import { createTestLedger } from '../testing/ledger.js';
import { useTempDirs } from '../testing/temp.js';
import { SqliteAuditLog } from './audit-log.js';
import { CHECKPOINT_MAX_AGE_MS, CHECKPOINT_MAX_ENTRIES } from './checkpointer.js';

// docs/ledger.md "How often writers checkpoint": every writer leaves at most the last second or the
// last 1,000 entries without a signed, anchored checkpoint over them.

const temp = useTempDirs('silas-cadence-');

function ledgerWithClock() {
  const ledger = createTestLedger(temp());
  let ms = Date.parse('2026-11-24T12:00:00.000Z');
  const repo = new AuditRepository(ledger.db);
  const audit = new SqliteAuditLog({ repository: repo, keys: ledger.keys, catalogue: testAuditEvents, now: () => new Date(ms) });
  const unprotected = () => repo.head()!.index - (repo.latestCheckpoint()?.index ?? -1);
  return { audit, repo, unprotected, advance: (by: number) => (ms += by) };
}

describe('checkpoint cadence of a writer', () => {
  it('with the clock standing still, never leaves more than 1,000 entries unprotected', () => {
    const { audit, repo, unprotected } = ledgerWithClock();
    let most = 0;
    for (let i = 0; i < 2 * CHECKPOINT_MAX_ENTRIES + 10; i += 1) {
      audit.append('test.entry', { i });
      most = Math.max(most, unprotected());
    }
    expect(most).toBe(CHECKPOINT_MAX_ENTRIES - 1);
    expect(repo.checkpoints().length).toBe(2);
    expect(audit.verifyChain()).toMatchObject({ valid: true, firstInvalid: null });
  });

  it('checkpoints entries older than a second before the next entry is appended', () => {
    const { audit, repo, advance } = ledgerWithClock();
    const first = audit.append('test.first', {});
    const second = audit.append('test.second', {});
    expect(repo.checkpoints()).toHaveLength(0);
    advance(CHECKPOINT_MAX_AGE_MS);
    const third = audit.append('test.third', {});
    const [checkpoint] = repo.checkpoints();
    // The checkpoint entry sits between the old entries and the new one, which stays the newest.
    expect(checkpoint!.index).toBe(second.index + 1);
    expect(third.index).toBe(checkpoint!.index + 1);
    expect(first.index).toBe(0);
    expect(audit.verifyChain()).toMatchObject({ valid: true, firstInvalid: null });
  });
});
