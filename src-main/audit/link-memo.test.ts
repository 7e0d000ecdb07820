import { describe, expect, it, vi } from 'vitest';
import { AuditRepository, type EntryRow } from '../store/repositories/audit-repository.js';
import { testAuditEvents } from '../testing/audit-events.js';
import { createTestLedger } from '../testing/ledger.js';
import { useTempDirs } from '../testing/temp.js';
import { SqliteAuditLog } from './audit-log.js';
import { keyedEntryHash } from './chain.js';
import { LedgerTamperError } from './ledger-keys.js';
import { LinkMemo } from './link-memo.js';
import { attackedLedger } from './testing/tamper-attacks.js';

// A writer's checkpoint re-verifies every entry since the anchored checkpoint before it signs
// (DESIGN invariant 3). The links it computed itself are remembered, so that walk does not compute
// the same HMAC twice (a proxy pays it on every call) — but only a row byte-for-byte identical to
// such a link is spared; whatever a process that can write the database (not the keyring) changes
// is hashed again and refused.

const temp = useTempDirs('silas-link-memo-');

/**
 * A writer whose clock stands still unless advanced (so no checkpoint falls due by age), started
 * at the real time: another writer's checkpoints (real clock) are then never older than its own.
 */
function writerWithClock() {
  const ledger = createTestLedger(temp());
  let ms = Date.now();
  const repo = new AuditRepository(ledger.db);
  const audit = new SqliteAuditLog({ repository: repo, keys: ledger.keys, catalogue: testAuditEvents, now: () => new Date(ms) });
  return { ledger, repo, audit, advance: (by: number) => (ms += by) };
}

function row(db: ReturnType<typeof createTestLedger>['db'], index: number): EntryRow {
  return db.prepare('SELECT * FROM audit_entries WHERE idx = ?').get(index) as EntryRow;
}

describe('the link memo', () => {
  it('vouches for a row identical to a link it computed, and for no row differing in any column', () => {
    const ledger = createTestLedger(temp());
    const memo = new LinkMemo(ledger.keys, 100, 1_000_000);
    const prev = 'a'.repeat(64);
    const body = { index: 7, id: '0192aaaa-0000-7000-8000-000000000000', ts: '2026-11-25T00:00:00.000Z', event: 'test.entry', dataJson: '{"seq":7}' };
    const hash = memo.link(prev, body);
    // It links exactly as the chain does.
    expect(hash).toBe(keyedEntryHash(ledger.keys.chain, prev, body));
    const stored: EntryRow = { idx: 7, id: body.id, ts: body.ts, event: body.event, data: body.dataJson, prev_hash: prev, hash };
    expect(memo.vouches(stored)).toBe(true);
    const edits: Partial<EntryRow>[] = [
      { idx: 8 },
      { id: '0192aaaa-0000-7000-8000-000000000001' },
      { ts: '2020-01-01T00:00:00.000Z' },
      { event: 'test.first' },
      { data: '{"seq":8}' },
      { prev_hash: 'b'.repeat(64) },
      { hash: 'c'.repeat(64) },
    ];
    for (const edit of edits) expect(memo.vouches({ ...stored, ...edit }), JSON.stringify(edit)).toBe(false);
    memo.clear();
    expect(memo.vouches(stored)).toBe(false);
  });

  it('stays within its limits of entries and characters, and does not keep an entry larger than the latter', () => {
    const ledger = createTestLedger(temp());
    const link = (memo: LinkMemo, index: number, dataJson: string) => memo.link('0'.repeat(64), { index, id: `id-${index}`, ts: 't', event: 'test.entry', dataJson });
    const few = new LinkMemo(ledger.keys, 3, 1_000_000);
    for (let i = 0; i < 10; i += 1) link(few, i, '{}');
    expect(few.size).toBeLessThanOrEqual(3);
    const small = new LinkMemo(ledger.keys, 100, 100);
    for (let i = 0; i < 10; i += 1) link(small, i, `{"pad":"${'x'.repeat(30)}"}`);
    expect(small.size).toBeLessThanOrEqual(2);
    const hash = link(small, 10, `{"pad":"${'x'.repeat(200)}"}`);
    // Linked all the same, only not remembered.
    expect(hash).toBe(keyedEntryHash(ledger.keys.chain, '0'.repeat(64), { index: 10, id: 'id-10', ts: 't', event: 'test.entry', dataJson: `{"pad":"${'x'.repeat(200)}"}` }));
    expect(small.vouches({ idx: 10, id: 'id-10', ts: 't', event: 'test.entry', data: `{"pad":"${'x'.repeat(200)}"}`, prev_hash: '0'.repeat(64), hash })).toBe(false);
  });
});

describe("a writer's checkpoint walk", () => {
  it('does not recompute the HMAC of entries this writer linked, and still verifies the chain', () => {
    const { ledger, audit } = writerWithClock();
    for (let i = 0; i < 50; i += 1) audit.append('test.entry', { seq: i });
    const mac = vi.spyOn(ledger.keys.chain, 'mac');
    const checkpoint = audit.writeCheckpoint()!;
    // Only the checkpoint's own entry is linked: none of the 50 is hashed again.
    expect(mac).toHaveBeenCalledTimes(1);
    mac.mockRestore();
    expect(checkpoint.index).toBe(50);
    expect(audit.verifyChain()).toMatchObject({ valid: true, firstInvalid: null });
  });

  it('recomputes the HMAC of entries another writer (another process) appended', () => {
    const { ledger, audit } = writerWithClock();
    const other = ledger.reopen();
    for (let i = 0; i < 10; i += 1) audit.append('test.entry', { seq: i });
    for (let i = 0; i < 5; i += 1) other.append('test.entry', { seq: 100 + i });
    const mac = vi.spyOn(ledger.keys.chain, 'mac');
    audit.writeCheckpoint();
    // Five foreign entries walked, plus the checkpoint's own link.
    expect(mac).toHaveBeenCalledTimes(6);
    mac.mockRestore();
    expect(audit.verifyChain()).toMatchObject({ valid: true });
  });

  // The attacker's side: the writer linked these rows itself, then the database was edited
  // behind its back before its next checkpoint. Each edit must be refused, nothing signed: the
  // shared ledger attacks on entries, then edits of the columns the memo compares one by one.
  for (const name of ['edited row', 'edited timestamp', 'hash recomputed without the key', 'deleted row', 'reordered rows', 'inserted row'] as const) {
    it(`refuses to checkpoint over its own entries after: ${name}`, () => {
      const ledger = attackedLedger(temp(), name);
      expect(() => ledger.audit.writeCheckpoint()).toThrow(LedgerTamperError);
      expect(ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_checkpoints').get()).toEqual({ n: 0 });
      expect(ledger.audit.verifyChain().valid).toBe(false);
    });
  }

  const columnEdits: Record<string, (db: ReturnType<typeof createTestLedger>['db']) => void> = {
    'event renamed': (db) => db.prepare(`UPDATE audit_entries SET event = 'test.first' WHERE idx = 4`).run(),
    'id replaced': (db) => db.prepare(`UPDATE audit_entries SET id = 'forged-id' WHERE idx = 4`).run(),
    "an entry's stored columns copied over the next one": (db) => {
      const r = row(db, 4);
      db.prepare('UPDATE audit_entries SET id = ?, ts = ?, event = ?, data = ?, prev_hash = ?, hash = ? WHERE idx = 5').run(`${r.id}x`, r.ts, r.event, r.data, r.prev_hash, r.hash);
    },
  };

  for (const [name, attack] of Object.entries(columnEdits)) {
    it(`refuses to checkpoint over its own entries after: ${name}`, () => {
      const { ledger, audit } = writerWithClock();
      for (let i = 0; i < 10; i += 1) audit.append('test.entry', { seq: i });
      attack(ledger.db);
      expect(() => audit.writeCheckpoint()).toThrow(LedgerTamperError);
      expect(ledger.db.prepare('SELECT COUNT(*) AS n FROM audit_checkpoints').get()).toEqual({ n: 0 });
      expect(audit.verifyChain().valid).toBe(false);
    });
  }
});

describe("a writer's checkpoint cadence", () => {
  it('reads the checkpoint rows again only when the head moved under another writer', () => {
    const { ledger, repo, audit } = writerWithClock();
    audit.append('test.entry', { seq: 0 });
    audit.writeCheckpoint();
    const reads = vi.spyOn(repo, 'latestCheckpoint');
    for (let i = 1; i <= 10; i += 1) audit.append('test.entry', { seq: i });
    expect(reads).not.toHaveBeenCalled();
    ledger.reopen().append('test.entry', { seq: 'other' });
    audit.append('test.entry', { seq: 11 });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it("counts from another writer's checkpoint once the head moved, as if it had read it", () => {
    const { ledger, repo, audit } = writerWithClock();
    audit.append('test.entry', { seq: 0 });
    audit.writeCheckpoint();
    for (let i = 1; i < 900; i += 1) audit.append('test.entry', { seq: i });
    ledger.reopen().writeCheckpoint();
    // 200 more: 1,100 since this writer's checkpoint, but fewer than 1,000 since the other's.
    for (let i = 0; i < 200; i += 1) audit.append('test.entry', { seq: 900 + i });
    expect(repo.checkpoints()).toHaveLength(2);
    expect(audit.verifyChain()).toMatchObject({ valid: true });
  });

  it('still refuses at its next checkpoint when the latest checkpoint row is deleted between appends', () => {
    const { ledger, repo, audit, advance } = writerWithClock();
    audit.append('test.entry', { seq: 0 });
    audit.writeCheckpoint();
    audit.append('test.entry', { seq: 1 });
    ledger.db.prepare('DELETE FROM audit_checkpoints').run();
    // Due by age: the writer's cadence, not a read of the deleted row, calls the checkpoint.
    advance(1000);
    expect(() => audit.append('test.entry', { seq: 2 })).toThrow(LedgerTamperError);
    expect(repo.checkpoints()).toHaveLength(0);
  });

  it('forgets what it learnt in a transaction that rolled back', () => {
    const { ledger, repo, audit } = writerWithClock();
    audit.append('test.entry', { seq: 0 });
    audit.writeCheckpoint();
    audit.append('test.entry', { seq: 1 });
    // The append joins a caller's transaction (as a consumed approval nonce does), which then fails.
    expect(() =>
      ledger.db.transaction(() => {
        audit.append('test.entry', { seq: 2 });
        throw new Error('caller failed');
      })(),
    ).toThrow('caller failed');
    const reads = vi.spyOn(repo, 'latestCheckpoint');
    const next = audit.append('test.entry', { seq: 3 });
    // The head is back where it was before the rolled-back append, so the rows are read again.
    expect(reads).toHaveBeenCalledTimes(1);
    expect(next.index).toBe(3);
    expect(audit.verifyChain()).toMatchObject({ valid: true });
  });
});
