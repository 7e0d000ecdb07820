import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger, ledgerWith as ledgerWithEntries, type TestLedger } from '../testing/ledger.js';
import { attackedLedger, type TamperAttack } from './testing/tamper-attacks.js';

const tempDir = useTempDirs();

const ledgerWith = (count: number, checkpointAt?: number): TestLedger => ledgerWithEntries(tempDir(), count, checkpointAt);
const attacked = (name: TamperAttack): TestLedger => attackedLedger(tempDir(), name);

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
    const ledger = attacked('edited row');
    const result = ledger.reopen().verifyChain();
    expect(result.valid).toBe(false);
    expect(result.firstInvalid).toMatchObject({ index: 7, reason: expect.stringContaining('modified') });
  });

  it('detects an edited event name or timestamp', () => {
    const ledger = attacked('edited timestamp');
    expect(ledger.audit.verifyChain().firstInvalid?.index).toBe(4);
  });

  it('detects a row whose hash was recomputed without the ledger key, at that row', () => {
    const ledger = attacked('hash recomputed without the key');
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 5, reason: expect.stringContaining('keyed hash does not match') });
  });

  it('detects a deleted row at the missing index', () => {
    const ledger = attacked('deleted row');
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 3, reason: expect.stringContaining('missing') });
  });

  it('detects reordered rows', () => {
    const ledger = attacked('reordered rows');
    expect(ledger.audit.verifyChain().firstInvalid?.index).toBe(2);
  });

  it('detects an inserted row', () => {
    const ledger = attacked('inserted row');
    expect(ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_entries').get()).toEqual({ n: 11 });
    const result = ledger.audit.verifyChain();
    expect(result.valid).toBe(false);
    expect(result.firstInvalid?.index).toBe(4);
  });

  it('detects truncation of entries that a signed checkpoint covers, at the first missing index', () => {
    const ledger = attacked('truncated below a checkpoint');
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 12, reason: expect.stringContaining('truncated') });
  });

  it('a rewritten chain (every hash recomputed without the key) is caught at its first entry', () => {
    const ledger = attacked('chain rewritten without the key');
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ index: 0, reason: expect.stringContaining('keyed hash does not match') });
  });

  it('detects a forged checkpoint signature and an edited checkpoint', () => {
    const forged = attacked('forged checkpoint signature');
    // The checkpoint signs its own record, entry 5.
    expect(forged.audit.verifyChain().firstInvalid).toMatchObject({ index: 5, reason: expect.stringContaining('invalid signature') });

    const edited = attacked('edited checkpoint');
    expect(edited.audit.verifyChain().firstInvalid).toMatchObject({ index: 2, reason: expect.stringContaining('invalid signature') });
  });

  it('rejects a checkpoint an attacker signed with their own key, even if they register it in the database', () => {
    const ledger = attacked('checkpoint signed by an attacker key');
    expect(ledger.audit.verifyChain().firstInvalid).toMatchObject({ id: 'evil', reason: expect.stringContaining('unknown key') });
  });

  it('a replayed checkpoint signature on another index does not verify', () => {
    const ledger = attacked('checkpoint signature replayed on another index');
    const second = ledger.db.prepare('SELECT idx FROM audit_checkpoints ORDER BY idx').all()[1] as { idx: number };
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
