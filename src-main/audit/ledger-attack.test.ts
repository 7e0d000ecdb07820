import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openHome } from '../app/home.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { runSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';
import { GENESIS_HASH, entryHash } from './chain.js';
import type { EntryRow } from '../store/repositories/audit-repository.js';

// The attacker here is a process with write access to the data home's database but not to the
// OS keyring (played by the in-memory store the legitimate commands are given): it edits SQLite
// directly, with everything the database and the source code tell it, and then the owner runs
// `silas audit verify`. Every rewrite must be reported (exit 1), never "intact".

const tempDir = useTempDirs('silas-ledger-attack-');

interface Home {
  home: string;
  keyring: MemorySecretStore;
}

type Row = EntryRow;

/** A home with `count` operator notes written through the CLI (so its checkpoints are the real ones). */
async function homeWith(count: number): Promise<Home> {
  const home = join(tempDir(), 'home');
  const keyring = new MemorySecretStore();
  expect((await runSilas(['init', '--home', home], { secretStore: keyring })).code).toBe(0);
  const ledger = openHome(home, { create: false, keys: 'signer', secretStore: keyring });
  try {
    for (let i = 0; i < count; i += 1) ledger.audit.append('aip.decision', { direction: 'upstream', policy_mode: 'enforce', violation: i % 3 === 0, seq: i, decision: i % 3 === 0 ? 'BLOCK' : 'ALLOW' });
  } finally {
    ledger.close();
  }
  return { home, keyring };
}

/** The attacker's own connection to the database. */
function attack(h: Home, edit: (db: Database.Database) => void): void {
  const db = new Database(join(h.home, 'silas.db'));
  try {
    db.transaction(() => edit(db))();
  } finally {
    db.close();
  }
}

function rows(db: Database.Database): Row[] {
  return db.prepare('SELECT * FROM audit_entries ORDER BY idx').all() as Row[];
}

/** Recomputes every hash the way the unkeyed chain did, so linkage and hashes are self-consistent. */
function rehashFrom(db: Database.Database, from: number): void {
  const all = rows(db);
  let prev = from === 0 ? GENESIS_HASH : all.find((r) => r.idx === from - 1)!.hash;
  const update = db.prepare('UPDATE audit_entries SET prev_hash = ?, hash = ? WHERE idx = ?');
  for (const row of all.filter((r) => r.idx >= from)) {
    const hash = entryHash(prev, { index: row.idx, id: row.id, ts: row.ts, event: row.event, dataJson: row.data });
    update.run(prev, hash, row.idx);
    prev = hash;
  }
}

function latestCheckpointIndex(db: Database.Database): number {
  return (db.prepare('SELECT MAX(idx) AS i FROM audit_checkpoints').get() as { i: number }).i;
}

async function verify(h: Home, flags: string[] = []): Promise<{ code: number; result: { valid: boolean; firstInvalid: { index: number; reason: string } | null } }> {
  const run = await runSilas(['audit', 'verify', '--home', h.home, '--json', ...flags], { secretStore: h.keyring });
  return { code: run.code, result: JSON.parse(run.out) as { valid: boolean; firstInvalid: { index: number; reason: string } | null } };
}

async function expectBroken(h: Home): Promise<void> {
  for (const flags of [[], ['--from-checkpoint']]) {
    const { code, result } = await verify(h, flags);
    expect(result.valid, `verify ${flags.join(' ')} called a rewritten chain intact`).toBe(false);
    expect(code).toBe(1);
  }
}

describe('rewriting the ledger with the database but without the keyring', () => {
  it('the untouched ledger verifies intact (the legitimate path)', async () => {
    const h = await homeWith(12);
    expect(await verify(h)).toMatchObject({ code: 0, result: { valid: true } });
    expect(await verify(h, ['--from-checkpoint'])).toMatchObject({ code: 0, result: { valid: true } });
  });

  it('an entry after the last checkpoint edited and rehashed (BLOCK flipped to ALLOW)', async () => {
    const h = await homeWith(12);
    attack(h, (db) => {
      const target = rows(db).filter((r) => r.data.includes('"BLOCK"')).pop()!;
      db.prepare('UPDATE audit_entries SET data = ? WHERE idx = ?').run(target.data.replace('"BLOCK"', '"ALLOW"'), target.idx);
      rehashFrom(db, target.idx);
    });
    await expectBroken(h);
  });

  it('an entry before the last checkpoint edited and rehashed', async () => {
    const h = await homeWith(12);
    attack(h, (db) => {
      db.prepare("UPDATE audit_entries SET data = json_set(data, '$.owner_fingerprint', 'ed25519:attacker') WHERE idx = 0").run();
      rehashFrom(db, 0);
    });
    const { result } = await verify(h);
    expect(result.valid).toBe(false);
    expect(result.firstInvalid!.index).toBe(0);
    await expectBroken(h);
  });

  it('an entry inserted after the last checkpoint with a plain sha256 link', async () => {
    const h = await homeWith(6);
    attack(h, (db) => {
      const head = rows(db).pop()!;
      const body = { index: head.idx + 1, id: 'injected', ts: new Date().toISOString(), event: 'test.entry', dataJson: '{"decision":"ALLOW","seq":99}' };
      db.prepare('INSERT INTO audit_entries VALUES (?, ?, ?, ?, ?, ?, ?)').run(body.index, body.id, body.ts, body.event, body.dataJson, head.hash, entryHash(head.hash, body));
    });
    await expectBroken(h);
  });

  it('an entry deleted after the last checkpoint and the rest renumbered and rehashed', async () => {
    const h = await homeWith(8);
    attack(h, (db) => {
      const victim = rows(db).pop()!.idx - 2;
      db.prepare('DELETE FROM audit_entries WHERE idx = ?').run(victim);
      db.prepare('UPDATE audit_entries SET idx = -idx WHERE idx > ?').run(victim);
      db.prepare('UPDATE audit_entries SET idx = -idx - 1 WHERE idx < 0').run();
      rehashFrom(db, victim);
    });
    await expectBroken(h);
  });

  it('two entries reordered and rehashed', async () => {
    const h = await homeWith(8);
    attack(h, (db) => {
      const head = rows(db).pop()!.idx;
      db.prepare('UPDATE audit_entries SET idx = -1 WHERE idx = ?').run(head - 1);
      db.prepare('UPDATE audit_entries SET idx = ? WHERE idx = ?').run(head - 1, head);
      db.prepare('UPDATE audit_entries SET idx = ? WHERE idx = -1').run(head);
      rehashFrom(db, head - 1);
    });
    await expectBroken(h);
  });

  it('every checkpoint row deleted and the whole chain rewritten with plain sha256', async () => {
    const h = await homeWith(10);
    attack(h, (db) => {
      db.prepare('DELETE FROM audit_checkpoints').run();
      db.prepare("UPDATE audit_entries SET data = replace(data, '\"BLOCK\"', '\"ALLOW\"')").run();
      rehashFrom(db, 0);
    });
    await expectBroken(h);
  });

  it('the latest checkpoints deleted and the chain truncated below them', async () => {
    const h = await homeWith(10);
    attack(h, (db) => {
      const cut = latestCheckpointIndex(db);
      db.prepare('DELETE FROM audit_checkpoints WHERE idx >= ?').run(cut);
      db.prepare('DELETE FROM audit_entries WHERE idx >= ?').run(cut);
    });
    await expectBroken(h);
  });

  it('only the latest checkpoint row deleted (the entries left alone)', async () => {
    const h = await homeWith(10);
    attack(h, (db) => {
      db.prepare('DELETE FROM audit_checkpoints WHERE idx = ?').run(latestCheckpointIndex(db));
    });
    await expectBroken(h);
  });

  it('a BLOCK flipped to ALLOW before a writer shuts down: its closing checkpoint refuses, and verify fails', async () => {
    const h = await homeWith(4);
    const writer = openHome(h.home, { create: false, keys: 'signer', secretStore: h.keyring });
    const blocked = writer.audit.append('aip.decision', { direction: 'upstream', policy_mode: 'enforce', violation: true, tool: 'delete_repo', decision: 'BLOCK' });
    attack(h, (db) => {
      db.prepare("UPDATE audit_entries SET data = replace(data, 'BLOCK', 'ALLOW') WHERE idx = ?").run(blocked.index);
      rehashFrom(db, blocked.index);
    });
    expect(() => writer.close()).toThrow(/tamper|modified|rewritten/i);
    await expectBroken(h);
    const db = new Database(join(h.home, 'silas.db'), { readonly: true });
    try {
      // No checkpoint signs over the flipped entry.
      expect(latestCheckpointIndex(db)).toBeLessThan(blocked.index);
    } finally {
      db.close();
    }
  });
});
