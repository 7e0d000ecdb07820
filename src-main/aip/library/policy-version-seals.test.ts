import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ledger } from '../../app/home.js';
import { useTempDirs } from '../../testing/temp.js';
import { libraryHome } from '../../testing/policy-library-home.js';

// The attacks on saved policy versions and on the policy in force, as a database writer or a
// process that can write the policy file (but not the keyring) performs them (docs/policy-editor.md "History").
const tempDir = useTempDirs('silas-policy-seals-');
const open: Ledger[] = [];
afterEach(() => {
  for (const ledger of open.splice(0)) ledger.close();
});

const text = (tools: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  allowed_tools: [${tools}]\n`;
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

function setup() {
  const { policiesDir, ledger, library } = libraryHome(tempDir(), (dir) => [join(dir, 'files.yaml')]);
  open.push(ledger);
  const policy = join(policiesDir, 'files.yaml');
  writeFileSync(policy, text('read_file'));
  const events = (name: string) => ledger.audit.tail(200).filter((e) => e.event === name).map((e) => e.data);
  /** A process that can write the database, not the keyring. */
  const dbWriter = (run: (db: Database.Database) => void) => {
    const db = new Database(ledger.paths.database);
    try {
      run(db);
    } finally {
      db.close();
    }
  };
  return { policy, library, events, dbWriter };
}

describe('saved policy versions are sealed by the owner', () => {
  it('a version whose text and SHA-256 a database writer changed together is shown as not trusted; Restore and Diff refuse it, audited', () => {
    const { policy, library, events, dbWriter } = setup();
    library.save(policy, text('read_file'), undefined);
    library.save(policy, text('read_file, write_file'), undefined);
    const forged = text('"*"');
    dbWriter((db) => db.prepare('UPDATE policy_versions SET text = ?, text_sha256 = ? WHERE seq = 1').run(forged, sha256(forged)));

    const first = library.history(policy).find((v) => v.seq === 1)!;
    expect(first.corrupt).toBe(true);
    expect(library.history(policy).find((v) => v.seq === 2)!.corrupt).toBe(false);
    expect(() => library.restore(first.id)).toThrow(expect.objectContaining({ code: 'E_CORRUPT', message: expect.stringMatching(/changed outside Silas and is not trusted/) }));
    expect(() => library.version(first.id)).toThrow(expect.objectContaining({ code: 'E_CORRUPT' }));
    expect(readFileSync(policy, 'utf8')).not.toContain('"*"');
    expect(library.history(policy)).toHaveLength(2);
    expect(events('policies.restore_refused')).toEqual([expect.objectContaining({ path: policy, seq: 1 })]);
    expect(events('state.seal_refused').filter((e) => e.kind === 'policy-version')).toHaveLength(1);
    expect(events('state.seal_refused')).toContainEqual(expect.objectContaining({ kind: 'policy-version', id: `${policy}#1`, authority: 'owner', reason: 'mismatch' }));
  });

  it('removing the seal does not help: an unsealed version is trusted only when its text carries a valid owner signature', () => {
    const { policy, library, dbWriter } = setup();
    library.save(policy, text('read_file'), undefined);
    library.save(policy, text('read_file, write_file'), undefined);
    const forged = text('"*"');
    dbWriter((db) => db.prepare('UPDATE policy_versions SET text = ?, text_sha256 = ?, seal = NULL WHERE seq = 1').run(forged, sha256(forged)));
    // A version from before seals (no seal column value) whose text Silas signed stays trusted.
    dbWriter((db) => db.prepare('UPDATE policy_versions SET seal = NULL WHERE seq = 2').run());
    const [second, first] = library.history(policy);
    expect(first).toMatchObject({ seq: 1, corrupt: true });
    expect(second).toMatchObject({ seq: 2, corrupt: false });
    expect(() => library.restore(first!.id)).toThrow(expect.objectContaining({ code: 'E_CORRUPT' }));
  });

  it('a seal cannot be moved to another version: a row given another row\'s text, hash and seal is not trusted', () => {
    const { policy, library, dbWriter } = setup();
    library.save(policy, text('read_file, delete_file'), undefined);
    library.save(policy, text('read_file'), undefined);
    dbWriter((db) => {
      const one = db.prepare('SELECT text, text_sha256, policy_hash, seal FROM policy_versions WHERE seq = 1').get() as Record<string, string>;
      db.prepare('UPDATE policy_versions SET text = ?, text_sha256 = ?, policy_hash = ?, seal = ? WHERE seq = 2').run(one.text, one.text_sha256, one.policy_hash, one.seal);
    });
    expect(library.history(policy).find((v) => v.seq === 2)!.corrupt).toBe(true);
  });
});

describe('the policy in force', () => {
  it('saving puts the file in force; an unsigned edit or an older signed copy put back is shown as not in force, naming the version that is', () => {
    const { policy, library } = setup();
    library.save(policy, text('read_file, delete_file'), undefined);
    const older = readFileSync(policy, 'utf8');
    library.save(policy, text('read_file'), undefined);
    expect(library.status(policy)).toMatchObject({ signature: 'owner', inForce: true, inForceSeq: null });

    writeFileSync(policy, text('read_file, run_shell'));
    expect(library.status(policy)).toMatchObject({ signature: 'unsigned', inForce: false, inForceSeq: 2 });

    writeFileSync(policy, older);
    expect(library.status(policy)).toMatchObject({ signature: 'owner', inForce: false, inForceSeq: 2 });

    const adopted = library.adopt(policy);
    expect(adopted.status).toMatchObject({ signature: 'owner', inForce: true, inForceSeq: null });
  });
});
