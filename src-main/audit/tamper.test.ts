import { describe, expect, it } from 'vitest';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger, ledgerWith as ledgerWithEntries, type TestLedger } from '../testing/ledger.js';
import { checkpointSigningBytes, entryHash } from './chain.js';

const tempDir = useTempDirs();

const ledgerWith = (count: number, checkpointAt?: number): TestLedger => ledgerWithEntries(tempDir(), count, checkpointAt);

describe('audit chain verification', () => {
  it('accepts an untouched chain with its checkpoints', () => {
    const ledger = ledgerWith(50, 30);
    ledger.audit.writeCheckpoint();
    // Each checkpoint is itself an entry of the chain: 50 entries and 2 checkpoint records.
    expect(ledger.audit.verifyChain()).toEqual({ valid: true, entries: 52, checkpoints: 2, firstInvalid: null });
    expect(ledger.reopen().verifyChain().valid).toBe(true);
  });

  it('writing a checkpoint twice on the same head adds nothing', () => {
    const ledger = ledgerWith(3);
    const first = ledger.audit.writeCheckpoint();
    expect(ledger.audit.writeCheckpoint()).toEqual(first);
    expect(ledger.audit.verifyChain().checkpoints).toBe(1);
  });

  it('detects an edited row at its index', () => {
    const ledger = ledgerWith(20);
    ledger.db.prepare("UPDATE audit_entries SET data = '{\"note\":\"forged\",\"seq\":7}' WHERE idx = 7").run();
    const result = ledger.reopen().verifyChain();
    expect(result.valid).toBe(false);
    expect(result.firstInvalid).toMatchObject({ index: 7, reason: expect.stringContaining('modified') });
  });

  it('detects an edited event name or timestamp', () => {
    const ledger = ledgerWith(10);
    ledger.db.prepare("UPDATE audit_entries SET ts = '2020-01-01T00:00:00.000Z' WHERE idx = 4").run();
    expect(ledger.audit.verifyChain().firstInvalid?.index).toBe(4);
  });

  it('detects a row whose hash was recomputed without the ledger key, at that row', () => {
    const ledger = ledgerWith(10);
    const row = ledger.db.prepare('SELECT * FROM audit_entries WHERE idx = 5').get() as { id: string; ts: string; event: string; prev_hash: string };
    const dataJson = '{"note":"forged","seq":5}';
    const forgedHash = entryHash(row.prev_hash, { index: 5, id: row.id, ts: row.ts, event: row.event, dataJson });
    ledger.db.prepare('UPDATE audit_entries SET data = ?, hash = ? WHERE idx = 5').run(dataJson, forgedHash);
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 5, reason: expect.stringContaining('keyed hash does not match') });
  });

  it('detects a deleted row at the missing index', () => {
    const ledger = ledgerWith(10);
    ledger.db.prepare('DELETE FROM audit_entries WHERE idx = 3').run();
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 3, reason: expect.stringContaining('missing') });
  });

  it('detects reordered rows', () => {
    const ledger = ledgerWith(10);
    const swap = ledger.db.transaction(() => {
      ledger.db.prepare('UPDATE audit_entries SET idx = -1 WHERE idx = 2').run();
      ledger.db.prepare('UPDATE audit_entries SET idx = 2 WHERE idx = 6').run();
      ledger.db.prepare('UPDATE audit_entries SET idx = 6 WHERE idx = -1').run();
    });
    swap();
    expect(ledger.audit.verifyChain().firstInvalid?.index).toBe(2);
  });

  it('detects an inserted row', () => {
    const ledger = ledgerWith(10);
    const shift = ledger.db.transaction(() => {
      ledger.db.prepare('UPDATE audit_entries SET idx = -idx - 100 WHERE idx >= 4').run();
      ledger.db.prepare('UPDATE audit_entries SET idx = -idx - 100 + 1 WHERE idx < -50').run();
      const prev = ledger.db.prepare('SELECT hash FROM audit_entries WHERE idx = 3').get() as { hash: string };
      const body = { index: 4, id: 'injected', ts: '2026-01-01T00:00:00.000Z', event: 'test.entry', dataJson: '{"note":"injected"}' };
      ledger.db.prepare('INSERT INTO audit_entries VALUES (?, ?, ?, ?, ?, ?, ?)').run(4, body.id, body.ts, body.event, body.dataJson, prev.hash, entryHash(prev.hash, body));
    });
    shift();
    expect(ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_entries').get()).toEqual({ n: 11 });
    const result = ledger.audit.verifyChain();
    expect(result.valid).toBe(false);
    expect(result.firstInvalid?.index).toBe(4);
  });

  it('detects truncation of entries that a signed checkpoint covers, at the first missing index', () => {
    const ledger = ledgerWith(20, 14);
    ledger.db.prepare('DELETE FROM audit_entries WHERE idx >= 12').run();
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 12, reason: expect.stringContaining('truncated') });
  });

  it('a rewritten chain (every hash recomputed without the key) is caught at its first entry', () => {
    const ledger = ledgerWith(10, 9);
    const rows = ledger.db.prepare('SELECT * FROM audit_entries ORDER BY idx').all() as { idx: number; id: string; ts: string; event: string; data: string }[];
    let prev = '0'.repeat(64);
    const rewrite = ledger.db.prepare('UPDATE audit_entries SET data = ?, prev_hash = ?, hash = ? WHERE idx = ?');
    for (const row of rows) {
      const data = row.idx === 2 ? '{"note":"rewritten history"}' : row.data;
      const hash = entryHash(prev, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: data });
      rewrite.run(data, prev, hash, row.idx);
      prev = hash;
    }
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 0, reason: expect.stringContaining('keyed hash does not match') });
  });

  it('detects a forged checkpoint signature and an edited checkpoint', () => {
    const forged = ledgerWith(5, 4);
    forged.db.prepare('UPDATE audit_checkpoints SET signature = ?').run(Buffer.alloc(64, 7).toString('base64'));
    // The checkpoint signs its own record, entry 5.
    expect(forged.audit.verifyChain().firstInvalid).toMatchObject({ index: 5, reason: expect.stringContaining('invalid signature') });

    const edited = ledgerWith(5, 4);
    edited.db.prepare('UPDATE audit_checkpoints SET idx = 2').run();
    expect(edited.audit.verifyChain().firstInvalid).toMatchObject({ index: 2, reason: expect.stringContaining('invalid signature') });
  });

  it('rejects a checkpoint an attacker signed with their own key, even if they register it in the database', () => {
    const ledger = ledgerWith(5);
    const attacker = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
    const body = { id: 'evil', index: 4, hash: (ledger.audit.head()!).hash, createdAt: new Date().toISOString(), keyFingerprint: attacker.fingerprint };
    ledger.db.prepare('INSERT INTO audit_checkpoints VALUES (?, ?, ?, ?, ?, ?)').run(body.id, body.index, body.hash, body.createdAt, body.keyFingerprint, attacker.sign(checkpointSigningBytes(body)).toString('base64'));
    ledger.db.prepare("INSERT INTO owner_keys VALUES (?, ?, 'silas', 'x', ?)").run(attacker.fingerprint, attacker.publicKey.toString('hex'), body.createdAt);
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ id: 'evil', reason: expect.stringContaining('unknown key') });
  });

  it('a replayed checkpoint signature on another index does not verify', () => {
    const ledger = ledgerWith(6, 2);
    ledger.audit.writeCheckpoint();
    const [first, second] = ledger.audit.verifyChain().valid ? (ledger.db.prepare('SELECT idx, signature FROM audit_checkpoints ORDER BY idx').all() as { idx: number; signature: string }[]) : [];
    ledger.db.prepare('UPDATE audit_checkpoints SET signature = ? WHERE idx = ?').run(first!.signature, second!.idx);
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: second!.idx, reason: expect.stringContaining('invalid signature') });
  });
});

describe('incremental verification from a checkpoint', () => {
  it('checks only what came after the latest checkpoint', () => {
    const ledger = ledgerWith(100, 89);
    const result = ledger.audit.verifyFromCheckpoint();
    expect(result).toMatchObject({ valid: true, entries: 11, checkpoints: 1 });
  });

  it('detects tampering after the checkpoint', () => {
    const ledger = ledgerWith(30, 19);
    ledger.db.prepare("UPDATE audit_entries SET data = '{}' WHERE idx = 25").run();
    expect(ledger.audit.verifyFromCheckpoint().firstInvalid?.index).toBe(25);
  });

  it('detects tampering of the anchored checkpoint entry itself', () => {
    const ledger = ledgerWith(30, 19);
    // Entry 20 is the checkpoint's own record, the one the keyring anchors.
    ledger.db.prepare("UPDATE audit_entries SET data = json_set(data, '$.entries_verified', 0) WHERE idx = 20").run();
    expect(ledger.audit.verifyFromCheckpoint().firstInvalid?.index).toBe(20);
  });

  it('detects truncation below the checkpoint and a named checkpoint that does not exist', () => {
    const ledger = ledgerWith(30, 19);
    ledger.db.prepare('DELETE FROM audit_entries WHERE idx >= 10').run();
    expect(ledger.audit.verifyFromCheckpoint().firstInvalid).toMatchObject({ index: 10 });
    expect(ledger.audit.verifyFromCheckpoint('nope').valid).toBe(false);
  });

  it('falls back to a full verification when no checkpoint exists yet', () => {
    const ledger = ledgerWith(12);
    expect(ledger.audit.verifyFromCheckpoint()).toMatchObject({ valid: true, entries: 12, checkpoints: 0 });
  });
});

describe('appending', () => {
  it('links entries from the genesis hash and returns them as stored', () => {
    const ledger = createTestLedger(tempDir());
    const a = ledger.audit.append('test.first', { x: 1 });
    const [b, c] = ledger.audit.appendBatch([{ event: 'test.second', data: {} }, { event: 'test.third', data: { y: [1, 2] } }]);
    expect(a).toMatchObject({ index: 0, prevHash: '0'.repeat(64) });
    expect(b!.prevHash).toBe(a.hash);
    expect(c!.prevHash).toBe(b!.hash);
    expect(ledger.audit.list(undefined, 10).entries.map((e) => e.index)).toEqual([2, 1, 0]);
    expect(ledger.audit.list(2, 10).entries.map((e) => e.index)).toEqual([1, 0]);
  });

  it('refuses a badly named event and data that is not a JSON object, writing nothing', () => {
    const ledger = createTestLedger(tempDir());
    // @ts-expect-error a name outside the catalogue does not compile; this checks the run-time refusal
    expect(() => ledger.audit.append('NotDotted', {})).toThrow(/dotted lowercase/);
    expect(() => ledger.audit.append('test.bad', [1] as never)).toThrow(/JSON object/);
    expect(ledger.audit.head()).toBeNull();
  });

  it('a failed batch leaves no partial entries behind', () => {
    const ledger = createTestLedger(tempDir());
    ledger.audit.append('test.ok', {});
    // @ts-expect-error a name outside the catalogue does not compile; this checks the run-time refusal
    expect(() => ledger.audit.appendBatch([{ event: 'test.fine', data: {} }, { event: 'Bad Name', data: {} }])).toThrow();
    expect(ledger.audit.list(undefined, 10).total).toBe(1);
  });
});
