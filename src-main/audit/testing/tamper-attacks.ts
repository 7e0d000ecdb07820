import { OwnerKeyVault } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { ledgerWith, type TestLedger } from '../../testing/ledger.js';
import { checkpointSigningBytes, entryHash } from '../chain.js';

/**
 * The attacks on a stored ledger that verification must catch, as a process that can write the
 * database but not the keyring would make them: each names the ledger it starts from (entries,
 * and where a checkpoint is written) and what it does to the rows. `tamper.test.ts` asserts
 * where each is caught; `chain-verifier.test.ts` that the worker finds the same.
 */
export const tamperAttacks = {
  untouched: { entries: 50, checkpointAt: 30, attack: () => {} },
  'edited row': {
    entries: 20,
    attack: (l: TestLedger) => l.db.prepare("UPDATE audit_entries SET data = '{\"note\":\"forged\",\"seq\":7}' WHERE idx = 7").run(),
  },
  'edited timestamp': { entries: 10, attack: (l: TestLedger) => l.db.prepare("UPDATE audit_entries SET ts = '2020-01-01T00:00:00.000Z' WHERE idx = 4").run() },
  'hash recomputed without the key': {
    entries: 10,
    attack: (l: TestLedger) => {
      const row = l.db.prepare('SELECT * FROM audit_entries WHERE idx = 5').get() as { id: string; ts: string; event: string; prev_hash: string };
      const dataJson = '{"note":"forged","seq":5}';
      l.db.prepare('UPDATE audit_entries SET data = ?, hash = ? WHERE idx = 5').run(dataJson, entryHash(row.prev_hash, { index: 5, id: row.id, ts: row.ts, event: row.event, dataJson }));
    },
  },
  'deleted row': { entries: 10, attack: (l: TestLedger) => l.db.prepare('DELETE FROM audit_entries WHERE idx = 3').run() },
  'reordered rows': {
    entries: 10,
    attack: (l: TestLedger) =>
      l.db.transaction(() => {
        l.db.prepare('UPDATE audit_entries SET idx = -1 WHERE idx = 2').run();
        l.db.prepare('UPDATE audit_entries SET idx = 2 WHERE idx = 6').run();
        l.db.prepare('UPDATE audit_entries SET idx = 6 WHERE idx = -1').run();
      })(),
  },
  'inserted row': {
    entries: 10,
    attack: (l: TestLedger) =>
      l.db.transaction(() => {
        l.db.prepare('UPDATE audit_entries SET idx = -idx - 100 WHERE idx >= 4').run();
        l.db.prepare('UPDATE audit_entries SET idx = -idx - 100 + 1 WHERE idx < -50').run();
        const prev = l.db.prepare('SELECT hash FROM audit_entries WHERE idx = 3').get() as { hash: string };
        const body = { index: 4, id: 'injected', ts: '2026-01-01T00:00:00.000Z', event: 'test.entry', dataJson: '{"note":"injected"}' };
        l.db.prepare('INSERT INTO audit_entries VALUES (?, ?, ?, ?, ?, ?, ?)').run(4, body.id, body.ts, body.event, body.dataJson, prev.hash, entryHash(prev.hash, body));
      })(),
  },
  'truncated below a checkpoint': { entries: 20, checkpointAt: 14, attack: (l: TestLedger) => l.db.prepare('DELETE FROM audit_entries WHERE idx >= 12').run() },
  'chain rewritten without the key': {
    entries: 10,
    checkpointAt: 9,
    attack: (l: TestLedger) => {
      const rows = l.db.prepare('SELECT * FROM audit_entries ORDER BY idx').all() as { idx: number; id: string; ts: string; event: string; data: string }[];
      const rewrite = l.db.prepare('UPDATE audit_entries SET data = ?, prev_hash = ?, hash = ? WHERE idx = ?');
      let prev = '0'.repeat(64);
      for (const row of rows) {
        const data = row.idx === 2 ? '{"note":"rewritten history"}' : row.data;
        const hash = entryHash(prev, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: data });
        rewrite.run(data, prev, hash, row.idx);
        prev = hash;
      }
    },
  },
  'forged checkpoint signature': { entries: 5, checkpointAt: 4, attack: (l: TestLedger) => l.db.prepare('UPDATE audit_checkpoints SET signature = ?').run(Buffer.alloc(64, 7).toString('base64')) },
  'edited checkpoint': { entries: 5, checkpointAt: 4, attack: (l: TestLedger) => l.db.prepare('UPDATE audit_checkpoints SET idx = 2').run() },
  'checkpoint signed by an attacker key': {
    entries: 5,
    attack: (l: TestLedger) => {
      const attacker = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
      const body = { id: 'evil', index: 4, hash: l.audit.head()!.hash, createdAt: new Date().toISOString(), keyFingerprint: attacker.fingerprint };
      l.db.prepare('INSERT INTO audit_checkpoints VALUES (?, ?, ?, ?, ?, ?)').run(body.id, body.index, body.hash, body.createdAt, body.keyFingerprint, attacker.sign(checkpointSigningBytes(body)).toString('base64'));
      l.db.prepare("INSERT INTO owner_keys VALUES (?, ?, 'silas', 'x', ?)").run(attacker.fingerprint, attacker.publicKey.toString('hex'), body.createdAt);
    },
  },
  'checkpoint signature replayed on another index': {
    entries: 6,
    checkpointAt: 2,
    attack: (l: TestLedger) => {
      l.audit.writeCheckpoint();
      const [first, second] = l.db.prepare('SELECT idx, signature FROM audit_checkpoints ORDER BY idx').all() as { idx: number; signature: string }[];
      l.db.prepare('UPDATE audit_checkpoints SET signature = ? WHERE idx = ?').run(first!.signature, second!.idx);
    },
  },
  'deleted checkpoint row': { entries: 30, checkpointAt: 19, attack: (l: TestLedger) => l.db.prepare('DELETE FROM audit_checkpoints').run() },
} satisfies Record<string, { entries: number; checkpointAt?: number; attack: (l: TestLedger) => unknown }>;

export type TamperAttack = keyof typeof tamperAttacks;

/** A ledger in `dir` after the named attack. */
export function attackedLedger(dir: string, name: TamperAttack): TestLedger {
  const spec: { entries: number; checkpointAt?: number; attack: (l: TestLedger) => unknown } = tamperAttacks[name];
  const ledger = ledgerWith(dir, spec.entries, spec.checkpointAt);
  spec.attack(ledger);
  return ledger;
}
