import { describe, expect, it } from 'vitest';
import { openDatabase } from '../database.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestLedger } from '../../testing/ledger.js';
import { NONCE_SAFETY_BUFFER_MS, NonceDomain, NonceReplayError, SqliteNonceStore, execBinding } from './nonce-store.js';
import { hashOf } from '../../approval/testing/engine.js';
import { sqliteConnection } from '../transaction.js';

const tempDir = useTempDirs();
const MINUTE = 60_000;

function store(start = new Date('2026-03-01T10:00:00.000Z')) {
  const ledger = createTestLedger(tempDir());
  const clock = { now: start };
  return { ledger, clock, nonces: new SqliteNonceStore(ledger.db, () => clock.now) };
}

describe('SqliteNonceStore', () => {
  it('detects a replay within a domain', () => {
    const { nonces } = store();
    expect(nonces.isUsed('msg', 'n-1')).toBe(false);
    nonces.record('msg', 'n-1');
    expect(nonces.isUsed('msg', 'n-1')).toBe(true);
    expect(() => nonces.record('msg', 'n-1')).toThrow(NonceReplayError);
    expect(() => nonces.record('msg', 'n-1')).toThrow(/already used in domain "msg"/);
  });

  it('keeps domains apart: the same nonce string in two domains does not collide', () => {
    const { nonces } = store();
    nonces.record(NonceDomain.Message, 'shared');
    expect(nonces.isUsed(NonceDomain.Execution, 'shared')).toBe(false);
    nonces.record(NonceDomain.Execution, 'shared');
    expect(nonces.isUsed(NonceDomain.Execution, 'shared')).toBe(true);
    nonces.record('approval', 'shared');
    expect(() => nonces.record(NonceDomain.Execution, 'shared')).toThrow(NonceReplayError);
  });

  it('binds execution nonces to token and content: token_id + plan/spawn hash + nonce', () => {
    const { nonces } = store();
    const tokenA = hashOf('token a');
    const planA = hashOf('plan a');
    expect(execBinding(tokenA, planA, 'e1')).toBe(`${tokenA}:${planA}:e1`);
    nonces.record('exec', execBinding(tokenA, planA, 'e1'));
    // The same execution nonce under another spawned task or another token is a different key.
    expect(nonces.isUsed('exec', execBinding(tokenA, hashOf('plan b'), 'e1'))).toBe(false);
    expect(nonces.isUsed('exec', execBinding(hashOf('token b'), planA, 'e1'))).toBe(false);
    expect(() => nonces.record('exec', execBinding(tokenA, planA, 'e1'))).toThrow(NonceReplayError);
  });

  it('prunes records older than a cut-off, and by the retention rule (max token TTL + 10 min buffer)', () => {
    const { nonces, clock } = store();
    nonces.record('msg', 'old');
    clock.now = new Date(clock.now.getTime() + 30 * MINUTE);
    nonces.record('msg', 'recent');
    clock.now = new Date(clock.now.getTime() + 30 * MINUTE + NONCE_SAFETY_BUFFER_MS);
    // Retention 30 min TTL + 10 min buffer: "old" (70 min) goes, "recent" (40 min) stays at the edge.
    expect(nonces.pruneByRetention(30 * MINUTE)).toBe(1);
    expect(nonces.isUsed('msg', 'old')).toBe(false);
    expect(nonces.isUsed('msg', 'recent')).toBe(true);
    expect(nonces.pruneExpired(new Date(clock.now.getTime() + 1))).toBe(1);
    expect(nonces.isUsed('msg', 'recent')).toBe(false);
  });

  it('refuses bad domains and empty or oversized nonces', () => {
    const { nonces } = store();
    expect(() => nonces.record('MSG', 'n')).toThrow(/nonce domain "MSG"/);
    expect(() => nonces.record('msg:exec', 'n')).toThrow(/nonce domain/);
    expect(() => nonces.record('msg', '')).toThrow(/1 to 512 characters/);
    expect(() => nonces.isUsed('msg', 'x'.repeat(513))).toThrow(/1 to 512 characters/);
  });

  it('a record inside a rolled-back transaction leaves nothing behind', () => {
    const { nonces, ledger } = store();
    const tx = ledger.db.transaction(() => {
      nonces.record('msg', 'n-1');
      throw new Error('later step failed');
    });
    expect(() => tx.immediate()).toThrow(/later step failed/);
    expect(nonces.isUsed('msg', 'n-1')).toBe(false);
  });

  it('is atomic across connections: a second connection cannot record the same nonce', () => {
    const { nonces, ledger } = store();
    const { db } = openDatabase(ledger.file, { create: false });
    new SqliteNonceStore(db).record('msg', 'n-1');
    sqliteConnection(db).close();
    expect(nonces.isUsed('msg', 'n-1')).toBe(true);
    expect(() => nonces.record('msg', 'n-1')).toThrow(NonceReplayError);
  });
});
