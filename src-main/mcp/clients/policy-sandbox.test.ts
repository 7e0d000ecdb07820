import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../aip/policy/load.js';
import { signPolicyText } from '../../aip/policy/sign.js';
import { OwnerKeyVault } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { useTempDirs } from '../../testing/temp.js';
import { findClient } from './locations.js';
import { applyWrap, loadConfig, planWrap, type WrapOptions } from './operations.js';
import { NO_PROFILE_NOTE } from './sandbox-profile.js';
import { CLAUDE_CONFIG, writePolicy } from './testing/fixtures.js';

const tempDir = useTempDirs('silas-policy-sandbox-');
const claude = findClient('claude-desktop')!;
const runtime = { node: '/opt/node/bin/node', bin: '/opt/silas/bin/silas.js' };
const NOW = new Date('2026-03-01T09:15:30.123Z');

/** Hand-written, with what a rewrite through a YAML library would lose: comments, quoting, a 4-space indent. */
const FILES_POLICY = `# Policy for the filesystem server: hand-written, keep the comments.
apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: "files"   # quoted on purpose
spec:
    mode: enforce       # four-space indent
    allowed_tools:
      - read_text_file
      - 'list_directory'   # single quotes stay

# a comment at the top level, after spec
`;

const FILES_SECTION = [
  '    # Starting sandbox profile proposed by `silas clients wrap`: review what it grants.',
  '    x-silas-sandbox:',
  '        filesystem:',
  '            write:',
  '                - /Users/alex/Desktop',
  '                - /Users/alex/Downloads',
  '                - ~/.npm',
  '        network:',
  '            mode: hosts',
  '            hosts:',
  '                - registry.npmjs.org',
  '',
].join('\n');

/** The fixture's configuration and a data home whose policies/<server>.yaml exist for `servers`. */
function setup(policies: Record<string, string> = { filesystem: FILES_POLICY }, text = CLAUDE_CONFIG) {
  const dir = tempDir();
  const file = join(dir, 'claude_desktop_config.json');
  writeFileSync(file, text);
  const home = join(dir, 'home');
  mkdirSync(join(home, 'policies'), { recursive: true });
  for (const [server, yaml] of Object.entries(policies)) writeFileSync(join(home, 'policies', `${server}.yaml`), yaml);
  const options: WrapOptions = { servers: Object.keys(policies), silasHome: home, homeInCommandLine: false, runtime };
  return { dir, file, home, options, filesPolicy: join(home, 'policies', 'filesystem.yaml') };
}

const plan = (file: string, options: WrapOptions) => planWrap(loadConfig(claude, file), options);

describe('planWrap: starting sandbox profiles in the servers’ own policies', () => {
  it('adds x-silas-sandbox as the last key of spec, keeping every other byte; the preview writes nothing', () => {
    const { file, filesPolicy, options } = setup();
    const wrap = plan(file, options);
    const [edit] = wrap.policyEdits;
    const cut = FILES_POLICY.indexOf('\n# a comment at the top level'); // the blank line that follows spec
    expect(edit).toMatchObject({ server: 'filesystem', file: filesPolicy, before: FILES_POLICY });
    expect(edit!.after).toBe(`${FILES_POLICY.slice(0, cut)}${FILES_SECTION}${FILES_POLICY.slice(cut)}`);
    expect(edit!.diff).toContain(`--- ${filesPolicy}\n+++ ${filesPolicy} (sandbox profile)\n`);
    expect(edit!.diff).toContain("       - 'list_directory'   # single quotes stay\n+    # Starting sandbox profile");
    expect(wrap.sandboxProfiles).toEqual([{ server: 'filesystem', file: filesPolicy, diff: edit!.diff, notes: edit!.notes }]);
    expect(edit!.notes[0]).toBe('recognised @modelcontextprotocol/server-filesystem (started with npx)');
    expect(readFileSync(filesPolicy, 'utf8')).toBe(FILES_POLICY);
  });

  it('applying writes the policy with the configuration; it loads, and its sandbox holds the derived grants', () => {
    const { file, filesPolicy, options } = setup();
    chmodSync(filesPolicy, 0o640);
    const wrap = plan(file, options);
    applyWrap(wrap, options.silasHome, NOW);
    expect(readFileSync(filesPolicy, 'utf8')).toBe(wrap.policyEdits[0]!.after);
    expect(statSync(filesPolicy).mode & 0o777).toBe(0o640);
    const loaded = loadPolicyFile(filesPolicy);
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('; '));
    expect(loaded.policy.sandbox).toMatchObject({
      filesystem: { write: ['/Users/alex/Desktop', '/Users/alex/Downloads', '~/.npm'] },
      network: { mode: 'hosts', hosts: ['registry.npmjs.org'] },
    });
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.filesystem.args).toContain(filesPolicy);
  });

  it('keeps CRLF line endings and a missing final newline', () => {
    const crlf = FILES_POLICY.replace(/\n/g, '\r\n').replace(/\r\n\r\n# a comment.*\r\n$/, '');
    const { file, options } = setup({ filesystem: crlf });
    const [edit] = plan(file, options).policyEdits;
    expect(edit!.after.startsWith(crlf)).toBe(true);
    expect(edit!.after.slice(crlf.length)).toBe(`\r\n${FILES_SECTION.replace(/\n/g, '\r\n')}`);
  });

  it('never edits a shared --policy: the profile is a note saying where to add it', () => {
    const { dir, file, options } = setup({});
    const shared = writePolicy(dir);
    const wrap = plan(file, { ...options, servers: undefined, policy: shared });
    expect(wrap.policyEdits).toEqual([]);
    const files = wrap.sandboxProfiles.find((p) => p.server === 'filesystem')!;
    expect(files.diff).toBe('');
    expect(files.notes.at(-1)).toBe(
      `add this to ${shared} under spec: (it is shared by 4 servers of this wrap, and its one x-silas-sandbox applies to each of them):\n  x-silas-sandbox:\n    filesystem:\n      write:\n        - /Users/alex/Desktop\n        - /Users/alex/Downloads\n        - ~/.npm\n    network:\n      mode: hosts\n      hosts:\n        - registry.npmjs.org`,
    );
    expect(readFileSync(shared, 'utf8')).toBe(readFileSync(join(dir, 'policy.yaml'), 'utf8'));
  });

  it('never edits a signed policy, which would lose its signature: a note says to add it and sign again', () => {
    const signer = new OwnerKeyVault(new MemorySecretStore(), 'owner-test').ensure().signer;
    const signed = signPolicyText(FILES_POLICY, signer);
    const { file, filesPolicy, options } = setup({ filesystem: signed });
    const wrap = plan(file, options);
    expect(wrap.policyEdits).toEqual([]);
    expect(wrap.sandboxProfiles[0]!.diff).toBe('');
    expect(wrap.sandboxProfiles[0]!.notes.at(-1)).toMatch(new RegExp(`^add this to ${filesPolicy} under spec: \\(it is signed.*silas policy sign`));
    applyWrap(wrap, options.silasHome, NOW);
    expect(readFileSync(filesPolicy, 'utf8')).toBe(signed);
  });

  it('leaves a policy that already has x-silas-sandbox, and an unknown server, as they are', () => {
    const own = FILES_POLICY.replace('    mode: enforce', '    x-silas-sandbox:\n        network: {mode: none}\n    mode: enforce');
    const { file, filesPolicy, options } = setup({ filesystem: own, 'mémoire 📝': FILES_POLICY });
    const wrap = plan(file, options);
    expect(wrap.policyEdits).toEqual([]);
    expect(wrap.sandboxProfiles.find((p) => p.server === 'filesystem')!.notes.at(-1)).toBe(`${filesPolicy} already has x-silas-sandbox; left as it is`);
    expect(wrap.sandboxProfiles.find((p) => p.server === 'mémoire 📝')).toMatchObject({ diff: '', notes: [NO_PROFILE_NOTE, expect.stringContaining('MEMORY_FILE_PATH')] });
  });

  it('refuses, naming the policy, when the profile would not load', () => {
    const { file, filesPolicy, options } = setup({ filesystem: FILES_POLICY }, CLAUDE_CONFIG.replace('/Users/alex/Desktop', '/Users/alex/Desk\\u0007top'));
    expect(() => plan(file, options)).toThrow(new RegExp(`proposed for "filesystem" does not load once added to ${filesPolicy}; nothing was changed[\\s\\S]*control or invisible`));
  });

  it('refuses to apply when the policy changed since the preview, and writes nothing', () => {
    const { file, filesPolicy, options } = setup();
    const wrap = plan(file, options);
    writeFileSync(filesPolicy, `${FILES_POLICY}# edited\n`);
    expect(() => applyWrap(wrap, options.silasHome, NOW)).toThrow(`${filesPolicy} changed since the preview; nothing was written`);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(readdirSync(dirname(file)).filter((f) => f.includes('.silas-backup-'))).toEqual([]);
  });

  it('puts the policy back when the configuration cannot be written', () => {
    const { file, filesPolicy, options } = setup();
    const wrap = plan(file, options);
    // The configuration turns into a folder once backed up, so its rename fails after the policy was written.
    const hooks = { beforeRewrite: () => (rmSync(file), mkdirSync(join(file, 'x'), { recursive: true })) };
    expect(() => applyWrap(wrap, options.silasHome, NOW, hooks)).toThrow(`cannot rewrite ${file}`);
    expect(readFileSync(filesPolicy, 'utf8')).toBe(FILES_POLICY);
  });
});
