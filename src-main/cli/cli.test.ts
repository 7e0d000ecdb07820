import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../keys/secret-store.js';
import { runSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';
import { COMMANDS } from './main.js';

const tempDir = useTempDirs();

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

async function initialised(): Promise<{ home: string; store: MemorySecretStore }> {
  const home = join(tempDir(), 'home');
  const store = new MemorySecretStore();
  const result = await runSilas(['init', '--home', home], { secretStore: store });
  expect(result.code).toBe(0);
  return { home, store };
}

describe('silas CLI usage', () => {
  it('prints usage and exits 2 without a command or with an unknown one', async () => {
    expect(await runSilas([])).toMatchObject({ code: 2, err: expect.stringContaining('Usage: silas <command>') });
    const unknown = await runSilas(['frobnicate']);
    expect(unknown).toMatchObject({ code: 2, err: expect.stringContaining('unknown command "frobnicate"') });
  });

  it.each(COMMANDS.map((c) => c.name))('%s --help prints its usage and exits 0', async (name) => {
    const result = await runSilas([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(new RegExp(`Usage: silas ${name}`));
  });

  it('rejects unknown flags and bad values with exit 2 and the command usage', async () => {
    expect(await runSilas(['init', '--hoem', '/tmp/x'])).toMatchObject({ code: 2, err: expect.stringMatching(/--hoem[\s\S]*Usage: silas init/) });
    expect(await runSilas(['start', '--port', 'eighty'])).toMatchObject({ code: 2, err: expect.stringContaining('--port: expected a number') });
    expect(await runSilas(['start', '--port', '70000'])).toMatchObject({ code: 2 });
    expect(await runSilas(['audit', 'tail', '-n', '0'])).toMatchObject({ code: 2, err: expect.stringContaining('-n: expected a whole number') });
    expect(await runSilas(['audit', 'export', '--format', 'xml'])).toMatchObject({ code: 2, err: expect.stringContaining('--format: expected jsonl, aip-jsonl or csv') });
    expect(await runSilas(['audit', 'export', '--format', 'csv', '--since', 'yesterday'])).toMatchObject({ code: 2, err: expect.stringContaining('--since: expected an ISO 8601 time') });
    expect(await runSilas(['audit', 'rewrite'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown audit command') });
    // Names every object inherits are not subcommands.
    for (const command of ['audit', 'clients', 'policy', 'aip']) {
      for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        expect(await runSilas([command, inherited]), `${command} ${inherited}`).toMatchObject({ code: 2, err: expect.stringContaining(`unknown ${command} command`) });
      }
    }
    expect(await runSilas(['clients'])).toMatchObject({ code: 2, err: expect.stringContaining('clients: name a subcommand (list, wrap, unwrap)') });
    expect(await runSilas(['start', '--tls-cert', 'a.pem'])).toMatchObject({ code: 2, err: expect.stringContaining('--tls-cert and --tls-key go together') });
  });
});

describe('silas init', () => {
  it('creates the home, prints the fingerprint, and a second run changes nothing', async () => {
    const home = join(tempDir(), 'home');
    const store = new MemorySecretStore();
    const first = await runSilas(['init', '--home', home], { secretStore: store });
    expect(first.code).toBe(0);
    const fingerprint = /Owner key: (ed25519:[0-9a-f]{32})/.exec(first.out)?.[1];
    expect(fingerprint).toBeDefined();
    const db = join(home, 'silas.db');
    const before = digest(db);
    const second = await runSilas(['init', '--home', home], { secretStore: store });
    expect(second).toMatchObject({ code: 0, out: expect.stringContaining('already initialised; nothing changed') });
    expect(second.out).toContain(fingerprint!);
    expect(digest(db)).toBe(before);
  });

  it('uses SILAS_HOME when --home is absent', async () => {
    const home = join(tempDir(), 'from-env');
    const result = await runSilas(['init'], { secretStore: new MemorySecretStore(), env: { SILAS_HOME: home } });
    expect(result.code).toBe(0);
    expect(existsSync(join(home, 'silas.db'))).toBe(true);
  });

  it('refuses a home whose path runs through a file', async () => {
    const file = join(tempDir(), 'plain-file');
    writeFileSync(file, 'x');
    const result = await runSilas(['init', '--home', join(file, 'home')], { secretStore: new MemorySecretStore() });
    expect(result).toMatchObject({ code: 1, err: expect.stringContaining('choose another --home') });
  });

  it('refuses to mint a new key for a home initialised with another key, and changes nothing', async () => {
    const { home } = await initialised();
    const db = join(home, 'silas.db');
    const before = digest(db);
    const otherKeyring = new MemorySecretStore();
    const result = await runSilas(['init', '--home', home], { secretStore: otherKeyring });
    expect(result).toMatchObject({ code: 1, err: expect.stringContaining('not in this OS keyring') });
    expect(digest(db)).toBe(before);
    expect(otherKeyring.get('anything')).toBeNull();
  });

  it('refuses a corrupt database with one line naming the file and the fix, without touching it', async () => {
    const home = join(tempDir(), 'home');
    await runSilas(['init', '--home', home], { secretStore: new MemorySecretStore() });
    const db = join(home, 'silas.db');
    writeFileSync(db, 'garbage'.repeat(1000));
    const before = digest(db);
    const result = await runSilas(['audit', 'verify', '--home', home], { secretStore: new MemorySecretStore() });
    expect(result.code).toBe(1);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toContain(db);
    expect(digest(db)).toBe(before);
  });
});

describe('silas audit', () => {
  it('verify --json reports an intact chain, and the broken entry after tampering (exit 1)', async () => {
    const { home, store } = await initialised();
    await runSilas(['audit', 'note', '--home', home, 'first note'], { secretStore: store });
    await runSilas(['audit', 'note', '--home', home, 'second note'], { secretStore: store });
    const ok = await runSilas(['audit', 'verify', '--home', home, '--json'], { secretStore: store });
    expect(ok.code).toBe(0);
    // init and each note end with a checkpoint, itself an entry: 3 records + 3 checkpoints.
    expect(JSON.parse(ok.out)).toEqual({ valid: true, entries: 6, checkpoints: 3, firstInvalid: null });

    const db = new Database(join(home, 'silas.db'));
    db.prepare("UPDATE audit_entries SET data = '{\"text\":\"edited\"}' WHERE idx = 2").run();
    db.close();
    const broken = await runSilas(['audit', 'verify', '--home', home, '--json'], { secretStore: store });
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.out)).toMatchObject({ valid: false, entries: 6, firstInvalid: { index: 2, reason: expect.any(String) } });
    const human = await runSilas(['audit', 'verify', '--home', home], { secretStore: store });
    expect(human.out).toMatch(/BROKEN at entry 2/);
  });

  it('cannot verify without the keyring: exit 1, never "intact" from keys read from the database', async () => {
    const { home } = await initialised();
    const result = await runSilas(['audit', 'verify', '--home', home], { secretStore: new MemorySecretStore() });
    expect(result.code).toBe(1);
    expect(result.err).toContain('cannot verify the audit ledger');
    expect(result.out).not.toContain('intact');
  });

  it('tail shows the last N entries oldest first', async () => {
    const { home, store } = await initialised();
    for (const n of [1, 2, 3]) await runSilas(['audit', 'note', '--home', home, `note ${n}`], { secretStore: store });
    // Each note is followed by the checkpoint its command wrote when it closed.
    const result = await runSilas(['audit', 'tail', '-n', '4', '--home', home], { secretStore: store });
    const lines = result.out.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^#4 .*operator\.note.*note 2/);
    expect(lines[1]).toMatch(/^#5 .*audit\.checkpoint/);
    expect(lines[2]).toMatch(/^#6 .*note 3/);
  });

  it('exports JSON lines in the AIP §8 shape and CSV that defuses spreadsheet formulas', async () => {
    const { home, store } = await initialised();
    await runSilas(['audit', 'note', '--home', home, '=HYPERLINK("http://evil")'], { secretStore: store });
    const jsonl = await runSilas(['audit', 'export', '--format', 'jsonl', '--home', home], { secretStore: store });
    const records = jsonl.out.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toHaveLength(4);
    expect(records[2]).toMatchObject({ event: 'operator.note', text: '=HYPERLINK("http://evil")', audit_index: 2, timestamp: expect.any(String), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const csv = await runSilas(['audit', 'export', '--format', 'csv', '--home', home], { secretStore: store });
    const rows = csv.out.split('\n');
    expect(rows[0]).toBe('index,id,timestamp,event,prev_hash,hash,data');
    expect(rows).toHaveLength(5);
    expect(csv.out).not.toMatch(/(^|,)=HYPERLINK/m);
  });

  it('exports AIP decisions alone in the exact §8 shape with aip-jsonl', async () => {
    const { home, store } = await initialised();
    const { openHome } = await import('../app/home.js');
    const ledger = openHome(home, { create: false, keys: 'verify', secretStore: store });
    ledger.audit.append('aip.decision', { direction: 'upstream', method: 'tools/call', tool: 'delete_file', args: { path: '/etc/passwd' }, decision: 'BLOCK', policy_mode: 'enforce', violation: true, failed_arg: 'path', failed_rule: '^/home/.*', session_id: 's', policy_hash: 'a'.repeat(64), reason: 'not in §8', policy_name: 'p' });
    ledger.close();
    const out = await runSilas(['audit', 'export', '--format', 'aip-jsonl', '--home', home], { secretStore: store });
    const lines = out.out.split('\n');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(record)).toEqual(['timestamp', 'direction', 'method', 'tool', 'args', 'decision', 'policy_mode', 'violation', 'failed_arg', 'failed_rule', 'session_id', 'policy_hash']);
    expect(record).toMatchObject({ decision: 'BLOCK', violation: true, tool: 'delete_file' });
  });

  it('export --since keeps only later entries', async () => {
    const { home, store } = await initialised();
    const future = await runSilas(['audit', 'export', '--format', 'jsonl', '--since', '2999-01-01T00:00:00Z', '--home', home], { secretStore: store });
    expect(future).toMatchObject({ code: 0, out: '' });
    const past = await runSilas(['audit', 'export', '--format', 'jsonl', '--since', '2000-01-01', '--home', home], { secretStore: store });
    // The initialisation and its checkpoint.
    expect(past.out.split('\n')).toHaveLength(2);
  });

  it('refuses an empty or oversized note', async () => {
    const { home, store } = await initialised();
    expect(await runSilas(['audit', 'note', '--home', home], { secretStore: store })).toMatchObject({ code: 2 });
    expect(await runSilas(['audit', 'note', '--home', home, 'x'.repeat(4001)], { secretStore: store })).toMatchObject({ code: 2, err: expect.stringContaining('at most 4000') });
  });

  it('audit commands on a home that does not exist tell the user to run init', async () => {
    const result = await runSilas(['audit', 'verify', '--home', join(tempDir(), 'nowhere')], { secretStore: new MemorySecretStore() });
    expect(result).toMatchObject({ code: 1, err: expect.stringContaining('silas init --home') });
  });
});
