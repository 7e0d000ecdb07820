import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openLedger, type Ledger } from '../../app/ledger.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { PolicyVersionRepository } from '../../store/repositories/policy-versions.js';
import { useTempDirs } from '../../testing/temp.js';
import { loadPolicyText } from '../policy/load.js';
import { PolicyLibrary } from './policy-library.js';

// Saving, history, restore and outside edits (issue 14 item 3), with the attacker's side: a path
// that is not a policy, a history row edited in the database, a file changed behind the editor.
const tempDir = useTempDirs('silas-policy-library-');
const open: Ledger[] = [];
afterEach(() => {
  for (const ledger of open.splice(0)) ledger.close();
});

const text = (tools: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  mode: enforce\n  # the person's comment stays\n  allowed_tools: [${tools}]\n`;

function setup() {
  const dir = tempDir();
  const home = join(dir, 'home');
  const store = new MemorySecretStore();
  const ledger = openLedger(home, { create: true, keys: 'signer', secretStore: store });
  open.push(ledger);
  mkdirSync(join(home, 'policies'), { recursive: true });
  const policy = join(home, 'policies', 'files.yaml');
  writeFileSync(policy, text('read_file'));
  const library = new PolicyLibrary({
    versions: new PolicyVersionRepository(ledger.db),
    audit: ledger.audit,
    signer: ledger.signer!,
    trustedKeys: () => ledger.trustedKeys(),
    knownPolicies: () => [policy],
  });
  const events = (name: string) => ledger.audit.tail(100).filter((e) => e.event === name).map((e) => e.data);
  return { home, policy, library, ledger, events };
}

describe('PolicyLibrary', () => {
  it('an unsigned file is flagged as edited outside; save signs it with the owner key, keeps the comment, and records the version', () => {
    const { policy, library, events, ledger } = setup();
    expect(library.status(policy)).toMatchObject({ exists: true, loads: true, signature: 'unsigned', modifiedOutside: true, versions: 0 });
    const opened = library.read(policy);
    const saved = library.save(policy, text('read_file, write_file'), opened.status.textSha256);
    expect(saved.status).toMatchObject({ signature: 'owner', modifiedOutside: false, versions: 1 });
    const onDisk = readFileSync(policy, 'utf8');
    expect(onDisk).toContain('# the person\'s comment stays');
    expect(onDisk).toMatch(/signature: ["']?ed25519:/);
    const loaded = loadPolicyText(onDisk, { trustedKeys: ledger.trustedKeys() });
    expect(loaded.ok && loaded.signedBy).toBe(ledger.signer!.fingerprint);
    expect(events('policies.saved')).toEqual([expect.objectContaining({ path: policy, seq: 1, action: 'save', signer: ledger.signer!.fingerprint })]);
  });

  it('a draft that does not load is not saved: the error names its line; the file and history are untouched', () => {
    const { policy, library } = setup();
    const before = readFileSync(policy, 'utf8');
    expect(() => library.save(policy, text('read_file').replace('allowed_tools', 'alowed_tools'), undefined)).toThrow(/cannot be saved: line 8, column 3: .*did you mean "allowed_tools"/);
    expect(readFileSync(policy, 'utf8')).toBe(before);
    expect(library.history(policy)).toEqual([]);
  });

  it('restores an earlier version as a new signed version; a version edited in the database is reported and never restored', () => {
    const { policy, library, ledger, events } = setup();
    const first = library.save(policy, text('read_file'), undefined).version;
    library.save(policy, text('read_file, delete_file'), undefined);
    const restored = library.restore(first.id);
    expect(restored.version).toMatchObject({ seq: 3, action: 'restore' });
    expect(readFileSync(policy, 'utf8')).not.toContain('delete_file');
    expect(library.history(policy).map((v) => [v.seq, v.action])).toEqual([[3, 'restore'], [2, 'save'], [1, 'save']]);

    // A process that can write the database plants a permissive policy in version 2.
    const db = new Database(join(ledger.paths.home, 'silas.db'));
    db.prepare("UPDATE policy_versions SET text = replace(text, 'delete_file', '\"*\"') WHERE seq = 2").run();
    db.close();
    const second = library.history(policy).find((v) => v.seq === 2)!;
    expect(second.corrupt).toBe(true);
    expect(() => library.restore(second.id)).toThrow(expect.objectContaining({ code: 'E_CORRUPT' }));
    expect(readFileSync(policy, 'utf8')).not.toContain('"*"');
    expect(events('policies.restore_refused')).toEqual([expect.objectContaining({ seq: 2 })]);
  });

  it('a file changed behind the editor is not overwritten; it is flagged, and can be adopted (signed as it is)', () => {
    const { policy, library } = setup();
    const saved = library.save(policy, text('read_file'), undefined);
    writeFileSync(policy, text('read_file, run_shell'));
    expect(library.status(policy)).toMatchObject({ signature: 'unsigned', modifiedOutside: true });
    expect(() => library.save(policy, text('read_file, write_file'), saved.status.textSha256)).toThrow(expect.objectContaining({ code: 'E_CONFLICT' }));
    const adopted = library.adopt(policy);
    expect(adopted.version.action).toBe('adopt');
    expect(adopted.status).toMatchObject({ signature: 'owner', modifiedOutside: false });
    expect(readFileSync(policy, 'utf8')).toContain('run_shell');
  });

  it('writes only the policies of this installation: another path, a traversal or a relative path is refused and audited', () => {
    const { home, library, events } = setup();
    for (const path of ['/etc/passwd', join(home, 'policies', '..', 'silas.db'), join(home, 'models.json'), 'policies/files.yaml']) {
      expect(() => library.save(path, text('read_file'), undefined)).toThrow(expect.objectContaining({ code: expect.stringMatching(/E_UNAUTHORIZED|E_INVALID_ARGS/) }));
    }
    expect(events('policies.write_refused')).toHaveLength(3);
    expect(existsSync(join(home, 'models.json'))).toBe(false);
  });
});
