import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ledger } from '../../app/home.js';
import { useTempDirs } from '../../testing/temp.js';
import { libraryHome } from '../../testing/policy-library-home.js';
import { loadPolicyText } from '../policy/load.js';
import { POLICY_TEMPLATES, readTemplate } from '../templates/catalog.js';
import { parseSuite } from '../trial/suite.js';
import { runSuite } from '../trial/trial.js';

// Saving, history, restore and outside edits (docs/policy-editor.md "Saving, history, outside
// edits"), with the attacker's side: a path that is not a policy, a history row edited in the
// database, a file changed behind the editor.
const tempDir = useTempDirs('silas-policy-library-');
const open: Ledger[] = [];
afterEach(() => {
  for (const ledger of open.splice(0)) ledger.close();
});

const text = (tools: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  mode: enforce\n  # the person's comment stays\n  allowed_tools: [${tools}]\n`;

function setup() {
  const { home, policiesDir, ledger, library } = libraryHome(tempDir(), (dir) => [join(dir, 'files.yaml'), ...readdirSync(dir).filter((name) => name.endsWith('.yaml')).map((name) => join(dir, name))]);
  open.push(ledger);
  const policy = join(policiesDir, 'files.yaml');
  writeFileSync(policy, text('read_file'));
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

  it('makes a new policy from each template: signed as its first version, named after its file, its suite beside it and passing', async () => {
    const { home, library, events, ledger } = setup();
    expect(library.templates().map((t) => t.id)).toEqual(POLICY_TEMPLATES.map((t) => t.id));
    for (const template of library.templates()) {
      expect(template.cases).toBeGreaterThan(10);
      expect(template.policyText).toBe(readTemplate(template.id).policyText);
      const name = `my-${template.id}`;
      const created = library.createFromTemplate(name, template.id);
      const path = join(home, 'policies', `${name}.yaml`);
      expect(created).toMatchObject({ status: { path, signature: 'owner', modifiedOutside: false, versions: 1 }, version: { seq: 1, action: 'save' }, suitePath: join(home, 'policies', `${name}.suite.json`) });
      const onDisk = readFileSync(path, 'utf8');
      const loaded = loadPolicyText(onDisk, { trustedKeys: ledger.trustedKeys() });
      expect(loaded.ok && loaded.policy.name).toBe(name);
      // Only metadata.name, the signature and the file names in comments differ from the template.
      const renamed = template.policyText.replaceAll(`${template.id}.suite.json`, `${name}.suite.json`).replaceAll(`${template.id}.yaml`, `${name}.yaml`);
      const templateLines = renamed.split('\n').filter((line) => !/^\s+(name|signature):/.test(line));
      if (template.id === 'filesystem-read-only') expect(onDisk).toContain(`silas policy test --policy ${name}.yaml --suite ${name}.suite.json`);
      expect(onDisk.split('\n').filter((line) => !/^\s+(name|signature):/.test(line))).toEqual(templateLines);
      expect(readFileSync(created.suitePath, 'utf8')).toBe(readTemplate(template.id).suiteText);
      const suite = parseSuite(readFileSync(created.suitePath, 'utf8'), created.suitePath);
      if (!suite.ok || !loaded.ok) throw new Error(`${template.id}: the suite or the policy does not load`);
      const cwd = join(home, 'projects', 'app');
      mkdirSync(cwd, { recursive: true });
      const failed = runSuite(suite.suite, loaded.policy, null, { homeDir: home, cwd }).filter((result) => !result.passed);
      expect(failed.map((result) => result.name), template.id).toEqual([]);
    }
    expect(events('policies.created')).toHaveLength(POLICY_TEMPLATES.length);
    expect(events('policies.created')[0]).toEqual({ path: join(home, 'policies', `my-${POLICY_TEMPLATES[0]!.id}.yaml`), template: POLICY_TEMPLATES[0]!.id, suite: join(home, 'policies', `my-${POLICY_TEMPLATES[0]!.id}.suite.json`) });
    expect((await library.list()).map((status) => status.path)).toContain(join(home, 'policies', 'my-github.yaml'));
  });

  it('refuses a bad name, an unknown template and a name already taken, overwriting nothing', () => {
    const { home, policy, library } = setup();
    const before = readFileSync(policy, 'utf8');
    for (const name of ['../escape', 'files/x', 'Upper', '-dash', 'dash-', '', 'a'.repeat(64), 'name.yaml', '.hidden']) {
      expect(() => library.createFromTemplate(name, 'github'), name).toThrow(/^name: expected lower-case letters/);
    }
    expect(() => library.createFromTemplate('fine', '../../etc/passwd')).toThrow(/template: there is no template/);
    expect(() => library.createFromTemplate('files', 'github')).toThrow(/files.yaml already exists; open that policy from the list, or choose another name/);
    writeFileSync(join(home, 'policies', 'web.suite.json'), '{"calls": []}');
    expect(() => library.createFromTemplate('web', 'github')).toThrow(/web.suite.json already exists/);
    expect(existsSync(join(home, 'policies', 'web.yaml'))).toBe(false);
    expect(readFileSync(policy, 'utf8')).toBe(before);
    expect(readdirSync(join(home, 'policies')).sort()).toEqual(['files.yaml', 'web.suite.json']);
    expect(statSync(policy).isFile()).toBe(true);
  });
});
