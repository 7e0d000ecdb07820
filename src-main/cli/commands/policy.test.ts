import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { loadPolicyText } from '../../aip/policy/load.js';
import { OwnerKeyVault, ownerAccountForHome } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { StateSeals } from '../../keys/sealed-state.js';
import { inForceMatcher } from '../../aip/policy/in-force.js';
import { runSilas } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';

const tempDir = useTempDirs('silas-policy-cli-');

const VALID = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: cli-policy
  version: "1.0.0"
spec:
  allowed_tools: [read_file]
  tool_rules:
    - tool: fetch
      allow_args:
        url: "^https://"
    - tool: rm
      action: block
`;

const INVALID = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: cli-policy
spec:
  tool_rules:
    - tool: fetch
      alow_args:
        url: "(?=x)"
      rate_limit: 0/minute
`;

function write(name: string, text: string): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

/** A home with an owner key in an in-memory keyring. */
function homeWithKey(): { home: string; store: MemorySecretStore; fingerprint: string; publicKeyHex: string } {
  const home = join(tempDir(), 'home');
  const store = new MemorySecretStore();
  const { signer } = new OwnerKeyVault(store, ownerAccountForHome(home)).ensure();
  return { home, store, fingerprint: signer.fingerprint, publicKeyHex: signer.publicKey.toString('hex') };
}

describe('silas policy validate', () => {
  it('exits 0 with a summary line for a valid policy', async () => {
    const file = write('ok.yaml', VALID);
    const result = await runSilas(['policy', 'validate', file]);
    expect(result.code).toBe(0);
    const hash = (loadPolicyText(VALID) as { policy: { hash: string } }).policy.hash;
    expect(result.out).toBe(`${file}: valid aip.io/v1alpha2 AgentPolicy "cli-policy" version 1.0.0, 2 tool rules, hash ${hash}, unsigned`);
    expect(result.err).toBe('');
  });

  it('exits 1 and prints FILE:LINE:COL path: message for every error', async () => {
    const file = write('bad.yaml', INVALID);
    const result = await runSilas(['policy', 'validate', file]);
    expect(result.code).toBe(1);
    const lines = result.out.split('\n');
    expect(lines[0]).toBe(
      `${file}:8:7 spec.tool_rules[0].alow_args: unknown key "alow_args" in spec.tool_rules[0] (did you mean "allow_args"?); expected one of: tool, action, rate_limit, strict_args, schema_hash, allow_args`,
    );
    expect(lines[1]).toBe(`${file}:10:19 spec.tool_rules[0].rate_limit: "0/minute": the count must be at least 1 (to forbid the tool, use action: block)`);
    expect(lines[2]).toBe(`${file}: invalid, 2 errors`);
  });

  it('a policy without apiVersion gets every error listed, not only the missing apiVersion', async () => {
    const file = write('no-version.yaml', 'kind: AgentPolicy\nmetadata:\n  name: t\n  bogus: 1\nspec:\n  mode: enforcing\n');
    const result = await runSilas(['policy', 'validate', file]);
    expect(result.code).toBe(1);
    const lines = result.out.split('\n');
    expect(lines.map((l) => l.split(' ')[0])).toEqual([`${file}:1:1`, `${file}:4:3`, `${file}:6:9`, `${file}:`]);
    expect(lines[0]).toContain('apiVersion: required key "apiVersion" is missing');
    expect(lines[3]).toBe(`${file}: invalid, 3 errors`);
  });

  it('prints warnings on stderr as FILE:LINE:COL warning: …', async () => {
    const file = write('monitor.yaml', VALID.replace('spec:\n', 'spec:\n  mode: monitor\n'));
    const result = await runSilas(['policy', 'validate', file]);
    expect(result.code).toBe(0);
    expect(result.err).toBe(`${file}:7:9 warning: spec.mode: monitor mode logs violations but lets every call through; do not use it in production (§10.4)`);
  });

  it('--json prints one object', async () => {
    const good = await runSilas(['policy', 'validate', '--json', write('ok.yaml', VALID)]);
    expect(good.code).toBe(0);
    expect(JSON.parse(good.out)).toMatchObject({ valid: true, apiVersion: 'aip.io/v1alpha2', name: 'cli-policy', version: '1.0.0', toolRules: 2, hash: expect.stringMatching(/^[0-9a-f]{64}$/), signedBy: null, warnings: [] });
    const bad = await runSilas(['policy', 'validate', write('bad.yaml', INVALID), '--json']);
    expect(bad.code).toBe(1);
    const parsed = JSON.parse(bad.out) as { valid: boolean; errors: unknown[] };
    expect(parsed.valid).toBe(false);
    expect(parsed.errors[0]).toEqual({ path: 'spec.tool_rules[0].alow_args', line: 8, column: 7, message: expect.stringContaining('unknown key') });
  });

  it('reports a missing file with exit 1', async () => {
    const missing = join(tempDir(), 'nope.yaml');
    const result = await runSilas(['policy', 'validate', missing]);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`${missing}: cannot read the policy`);
  });

  it('bad usage exits 2 with the usage', async () => {
    expect(await runSilas(['policy'])).toMatchObject({ code: 2, err: expect.stringContaining('Usage: silas policy') });
    expect(await runSilas(['policy', 'frobnicate'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown policy command "frobnicate"') });
    expect(await runSilas(['policy', 'validate'])).toMatchObject({ code: 2, err: expect.stringContaining('name the policy file') });
    expect(await runSilas(['policy', 'validate', 'a.yaml', 'b.yaml'])).toMatchObject({ code: 2, err: expect.stringContaining('expected one policy file, got 2') });
    expect(await runSilas(['policy', 'validate', 'a.yaml', '--jsn'])).toMatchObject({ code: 2, err: expect.stringContaining('--jsn') });
    expect(await runSilas(['policy', 'validate', write('ok.yaml', VALID), '--public-key', 'abc'])).toMatchObject({ code: 2, err: expect.stringContaining('--public-key: expected 64 hex characters') });
    expect(await runSilas(['policy', '--help'])).toMatchObject({ code: 0, out: expect.stringContaining('silas policy schema-hash --tools-file FILE --tool NAME') });
    expect(await runSilas(['policy', 'validate', '--help'])).toMatchObject({ code: 0, out: expect.stringContaining('Usage: silas policy') });
  });
});

describe('silas policy hash', () => {
  it('prints the §5.2 hash and nothing else', async () => {
    const result = await runSilas(['policy', 'hash', write('ok.yaml', VALID)]);
    expect(result.code).toBe(0);
    const document = loadPolicyText(VALID);
    if (!document.ok) throw new Error('fixture');
    expect(result.out).toBe(createHash('sha256').update(canonicalJson(document.policy.document)).digest('hex'));
  });

  it('exits 1 with the errors (on stderr) for an invalid policy', async () => {
    const file = write('bad.yaml', INVALID);
    const result = await runSilas(['policy', 'hash', file]);
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toContain(`${file}:8:7 spec.tool_rules[0].alow_args`);
  });
});

describe('silas policy schema-hash', () => {
  const tool = { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } };
  const expected = `sha256:${createHash('sha256').update(canonicalJson(tool)).digest('hex')}`;

  it('prints the hash of one tool from a tools/list result, a JSON-RPC response or an array', async () => {
    for (const content of [{ tools: [tool] }, { jsonrpc: '2.0', id: 1, result: { tools: [tool, { name: 'other', inputSchema: {} }] } }, [tool]]) {
      const file = write('tools.json', JSON.stringify(content));
      expect(await runSilas(['policy', 'schema-hash', '--tools-file', file, '--tool', 'READ_FILE'])).toEqual({ code: 0, out: expected, err: '' });
    }
    const file = write('tools.json', JSON.stringify({ tools: [tool] }));
    const sha512 = await runSilas(['policy', 'schema-hash', '--tools-file', file, '--tool', 'read_file', '--algorithm', 'sha512']);
    expect(sha512.out).toBe(`sha512:${createHash('sha512').update(canonicalJson(tool)).digest('hex')}`);
  });

  it('an unknown tool exits 1 and lists the available tools', async () => {
    const file = write('tools.json', JSON.stringify({ tools: [tool, { name: 'write_file' }] }));
    const result = await runSilas(['policy', 'schema-hash', '--tools-file', file, '--tool', 'delete_file']);
    expect(result).toMatchObject({ code: 1, out: '' });
    expect(result.err).toBe(`silas policy schema-hash: no tool "delete_file" in ${file}; available tools: read_file, write_file`);
  });

  it('unreadable or malformed tools files exit 1', async () => {
    expect(await runSilas(['policy', 'schema-hash', '--tools-file', write('t.json', '{nope'), '--tool', 'a'])).toMatchObject({ code: 1, err: expect.stringContaining('cannot read') });
    expect(await runSilas(['policy', 'schema-hash', '--tools-file', write('t.json', '{"tools": 3}'), '--tool', 'a'])).toMatchObject({ code: 1, err: expect.stringContaining('expected a tools/list result') });
  });

  it('bad usage exits 2', async () => {
    expect(await runSilas(['policy', 'schema-hash', '--tool', 'a'])).toMatchObject({ code: 2, err: expect.stringContaining('--tools-file FILE is required') });
    expect(await runSilas(['policy', 'schema-hash', '--tools-file', 'x.json'])).toMatchObject({ code: 2, err: expect.stringContaining('--tool NAME is required') });
    expect(await runSilas(['policy', 'schema-hash', '--tools-file', 'x.json', '--tool', 'a', '--algorithm', 'md5'])).toMatchObject({ code: 2, err: expect.stringContaining('--algorithm: expected sha256, sha384 or sha512') });
  });
});

describe('silas policy sign', () => {
  it('signs in place atomically, prints the fingerprint, and validate verifies it against the home key', async () => {
    const { home, store, fingerprint } = homeWithKey();
    const dir = tempDir();
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, `# keep me\n${VALID}`);
    const signed = await runSilas(['policy', 'sign', file, '--home', home], { secretStore: store });
    expect(signed.code).toBe(0);
    expect(signed.out).toMatch(new RegExp(`^Signed ${file} with owner key ${fingerprint} \\(policy hash [0-9a-f]{64}\\)$`));
    expect(readdirSync(dir)).toEqual(['policy.yaml']);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# keep me\n')).toBe(true);
    expect(text).toMatch(/\n {2}signature: "ed25519:[A-Za-z0-9+/]+=*"\n/);
    // Signing puts the text in force for the home's proxies: its digest is anchored in the keyring.
    expect(inForceMatcher(new StateSeals({ keys: { ledger: () => null, owner: () => null }, anchors: { store, absoluteHome: home } }), file)(createHash('sha256').update(text, 'utf8').digest('hex'))).toBe(true);

    const verified = await runSilas(['policy', 'validate', file, '--home', home], { secretStore: store });
    expect(verified.code).toBe(0);
    expect(verified.out).toContain(`signature verified (${fingerprint})`);
    const json = await runSilas(['policy', 'validate', file, '--home', home, '--json'], { secretStore: store });
    expect(JSON.parse(json.out)).toMatchObject({ valid: true, signedBy: fingerprint });
    expect(await runSilas(['policy', 'hash', file, '--home', home], { secretStore: store })).toMatchObject({ code: 0, out: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('a signed policy without a trusted key, or with the wrong one, fails with -32010; --public-key trusts a key', async () => {
    const owner = homeWithKey();
    const other = homeWithKey();
    const file = write('policy.yaml', VALID);
    expect((await runSilas(['policy', 'sign', file, '--home', owner.home], { secretStore: owner.store })).code).toBe(0);

    const untrusted = await runSilas(['policy', 'validate', file, '--home', other.home], { secretStore: other.store });
    expect(untrusted.code).toBe(1);
    expect(untrusted.out).toMatch(new RegExp(`^${file}:4:14 metadata\\.signature: Policy signature invalid: it does not verify against any trusted key \\(${other.fingerprint}\\).* \\[-32010\\]$`, 'm'));

    const noKey = await runSilas(['policy', 'validate', file, '--home', join(tempDir(), 'empty-home')], { secretStore: new MemorySecretStore() });
    expect(noKey.code).toBe(1);
    expect(noKey.out).toContain('no trusted public key was given');

    const byFlag = await runSilas(['policy', 'validate', file, '--home', other.home, '--public-key', owner.publicKeyHex], { secretStore: other.store });
    expect(byFlag.code).toBe(0);
    expect(byFlag.out).toContain(`signature verified (${owner.fingerprint})`);

    writeFileSync(file, readFileSync(file, 'utf8').replace('read_file', 'delete_file'));
    const tampered = await runSilas(['policy', 'validate', file, '--home', owner.home], { secretStore: owner.store });
    expect(tampered.code).toBe(1);
    expect(tampered.out).toContain('[-32010]');
  });

  it('--require-signature refuses an unsigned policy', async () => {
    const result = await runSilas(['policy', 'validate', write('p.yaml', VALID), '--require-signature'], { secretStore: new MemorySecretStore() });
    expect(result.code).toBe(1);
    expect(result.out).toContain('not signed, and a signed policy is required');
  });

  it('--output writes a new file and leaves the original untouched', async () => {
    const { home, store } = homeWithKey();
    const file = write('policy.yaml', VALID);
    const output = join(tempDir(), 'signed.yaml');
    const result = await runSilas(['policy', 'sign', file, '--home', home, '--output', output], { secretStore: store });
    expect(result.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(VALID);
    expect(readFileSync(output, 'utf8')).toContain('signature: "ed25519:');
  });

  it('refuses to sign an invalid policy, and fails clearly without an owner key', async () => {
    const { home, store } = homeWithKey();
    const file = write('bad.yaml', INVALID);
    const invalid = await runSilas(['policy', 'sign', file, '--home', home], { secretStore: store });
    expect(invalid.code).toBe(1);
    expect(invalid.err).toContain(`${file}:8:7 spec.tool_rules[0].alow_args`);
    expect(invalid.err).toContain('not signed; fix the errors above first');
    expect(readFileSync(file, 'utf8')).toBe(INVALID);

    const noKey = await runSilas(['policy', 'sign', write('ok.yaml', VALID), '--home', join(tempDir(), 'no-key')], { secretStore: new MemorySecretStore() });
    expect(noKey.code).toBe(1);
    expect(noKey.err).toContain('the owner key for this home is not in the OS keyring');
  });
});
