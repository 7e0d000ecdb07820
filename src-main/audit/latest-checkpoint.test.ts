import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.js';
import { AuditRepository } from '../store/repositories/audit-repository.js';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger } from '../testing/ledger.js';
import { sqliteConnection } from '../store/transaction.js';

const tempDir = useTempDirs('silas-latest-cp-');

/**
 * Every append reads the latest checkpoint (checkpointer.ts `beforeAppend`), so it is an index
 * lookup, not a scan of every checkpoint. These pin down which row it is: the highest index,
 * and of rows sharing that index (only a tampered database has them) the newest.
 */
describe('the latest checkpoint', () => {
  it('is the one at the highest index, the newest among rows with the same index, none when there are none', () => {
    const { db } = openDatabase(join(tempDir(), 'silas.db'), { create: true });
    const repo = new AuditRepository(db);
    expect(repo.latestCheckpoint()).toBeNull();
    const add = (id: string, index: number, createdAt: string) => repo.insertCheckpoint({ id, index, hash: 'a'.repeat(64), createdAt, keyFingerprint: 'fp', signature: 'sig' });
    for (let i = 0; i < 300; i += 1) add(`cp-${i}`, i * 1000 + 999, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString());
    expect(repo.latestCheckpoint()?.id).toBe('cp-299');
    // Inserted out of order: a lower index written later does not become the latest.
    add('late-low', 5, '2027-01-01T00:00:00.000Z');
    expect(repo.latestCheckpoint()?.id).toBe('cp-299');
    add('tie-newer', 299_999, '2026-06-01T00:00:00.000Z');
    add('tie-older', 299_999, '2025-06-01T00:00:00.000Z');
    expect(repo.latestCheckpoint()).toMatchObject({ id: 'tie-newer', index: 299_999, createdAt: '2026-06-01T00:00:00.000Z' });
    sqliteConnection(db).close();
  });

  it('is the checkpoint the ledger wrote last, after many checkpoints', () => {
    const ledger = createTestLedger(tempDir());
    let last = null;
    for (let i = 0; i < 50; i += 1) {
      ledger.audit.append('operator.note', { text: `note ${i}` });
      last = ledger.audit.writeCheckpoint();
    }
    expect(new AuditRepository(ledger.db).latestCheckpoint()).toEqual(last);
    expect(ledger.audit.verifyFromCheckpoint()).toMatchObject({ valid: true });
    ledger.db.close();
  });
});
