import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, connectThroughProxy, createTestHome, signPolicyForHome, verifiedEntries, SERVERS, writePolicy, type ProxiedClient, type TestHome } from '../testing/proxy-harness.js';
import { SILAS_BIN } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { rpcError } from '../testing/rpc-error.js';
import { openHome } from '../../app/home.js';
import { PolicyVersionRepository } from '../../store/repositories/policy-versions.js';

/*
 * The attacks on a running proxy's policy (docs/mcp-proxy.md "Signed policies"), performed the
 * way a local adversary would: a process that can write the policy file but cannot reach the OS
 * keyring (so it can neither sign nor anchor). Each edit must leave the owner's policy in force,
 * and be in the ledger.
 */

const tempDir = useTempDirs('silas-signed-policy-');
const open: ProxiedClient[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const BLOCKS_ECHO = '  allowed_tools: [read_file]\n';
const ALLOWS_ECHO = '  allowed_tools: [echo, read_file]\n';
const unsignedPolicy = (spec: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: proxy-test\nspec:\n${spec}`;

async function connect(home: TestHome, policy: string, extra: string[] = []): Promise<ProxiedClient> {
  const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVERS.fileTools, extra });
  open.push(proxied);
  return proxied;
}

const echo = (proxied: ProxiedClient) => proxied.client.callTool({ name: 'echo', arguments: { message: 'hi' } });

/** Waits until the proxy has seen the edit: echo allowed (the attack worked) or the refusal in the ledger. */
async function afterReload(home: TestHome, proxied: ProxiedClient, textSha: string): Promise<void> {
  const deadline = Date.now() + 6000;
  while (Date.now() < deadline) {
    if (refusals(home).some((e) => e.data.text_sha256 === textSha)) return;
    if (await echo(proxied).then(() => true, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const refusals = (home: TestHome) => verifiedEntries(home).filter((e) => e.event === 'aip.policy_refused');

describe('a running proxy enforces only the policy the owner put in force', () => {
  it('an unsigned edit allowing echo is refused: echo stays blocked, and the refusal is in the ledger once per content', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const policy = writePolicy(dir, BLOCKS_ECHO);
    const proxied = await connect(home, policy);
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });

    // The attacker rewrites the file to allow echo; it cannot sign it.
    const edit = unsignedPolicy(ALLOWS_ECHO);
    writeFileSync(policy, edit);
    await afterReload(home, proxied, sha256(edit));
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });
    // The same content written again is not a new refusal.
    writeFileSync(policy, edit);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });

    const refused = refusals(home);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.data).toMatchObject({ server: 'node', policy_file: policy, reason: 'unsigned', text_sha256: sha256(edit), in_force_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(refused[0]!.data.detail).toMatch(/silas policy sign/);
    expect(proxied.stderr()).toMatch(/not signed by the owner key/);
  });

  it('an edit that keeps the old signature line is refused as a signature that does not verify', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const policy = writePolicy(dir, BLOCKS_ECHO);
    const proxied = await connect(home, policy);
    const edit = readFileSync(policy, 'utf8').replace('allowed_tools: [read_file]', 'allowed_tools: [echo, read_file]');
    writeFileSync(policy, edit);
    await afterReload(home, proxied, sha256(edit));
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });
    expect(refusals(home).map((e) => e.data.reason)).toEqual(['signature_invalid']);
  });

  it('an older signed version put back in place of the current one is refused (rollback), and so at the next start', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    // The owner once signed a policy allowing echo, then signed one blocking it.
    const policy = writePolicy(dir, ALLOWS_ECHO);
    const older = readFileSync(policy, 'utf8');
    signPolicyForHome(home, policy, unsignedPolicy(BLOCKS_ECHO));
    const proxied = await connect(home, policy);
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });

    writeFileSync(policy, older);
    await afterReload(home, proxied, sha256(older));
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });
    expect(refusals(home).map((e) => e.data.reason)).toEqual(['not_in_force']);
    expect(verifiedEntries(home).filter((e) => e.event === 'state.seal_refused').map((e) => e.data)).toContainEqual(
      expect.objectContaining({ kind: 'policy-in-force', id: policy, reason: 'not-anchored' }),
    );
    await proxied.close();

    // At the next start the older file is still refused; nothing saved by Silas is in force, so the proxy does not start.
    const run = spawnSync(process.execPath, [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--', process.execPath, SERVERS.fileTools], { env: childEnv(), encoding: 'utf8', input: '' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/adopt it in the cockpit \(Policies → Adopt\) or run `silas policy sign/);
    expect(run.stderr).toMatch(/the MCP server was not started/);
  });

  it('at start, an unsigned edit leaves the version Silas saved and put in force enforced', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const policy = writePolicy(dir, BLOCKS_ECHO);
    // The cockpit's history holds the text in force (as a save does).
    const ledger = openHome(home.home, { create: false, keys: 'signer', secretStore: home.secretStore });
    try {
      const saved = readFileSync(policy, 'utf8');
      new PolicyVersionRepository(ledger.db).append({ path: policy, text: saved, textSha256: sha256(saved), policyHash: 'a'.repeat(64), signer: home.signer.fingerprint, action: 'save', savedAt: new Date().toISOString() }, () => 'unused');
    } finally {
      ledger.close();
    }
    const edit = unsignedPolicy(ALLOWS_ECHO);
    writeFileSync(policy, edit);
    const proxied = await connect(home, policy);
    expect(await rpcError(echo(proxied))).toMatchObject({ code: -32001 });
    expect(proxied.stderr()).toMatch(/enforcing version 1 saved by Silas/);
    expect(refusals(home).map((e) => e.data)).toEqual([expect.objectContaining({ reason: 'unsigned', text_sha256: sha256(edit), in_force_hash: expect.stringMatching(/^[0-9a-f]{64}$/) })]);
  });

  it('refuses to start on an unsigned file; --allow-unsigned enforces it and is recorded at start', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const policy = writePolicy(dir, ALLOWS_ECHO, 'policy.yaml', { unsigned: true });
    const run = spawnSync(process.execPath, [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--', process.execPath, SERVERS.fileTools], { env: childEnv(), encoding: 'utf8', input: '' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/is not signed by the owner key; adopt it in the cockpit/);
    expect(refusals(home).map((e) => e.data)).toEqual([expect.objectContaining({ reason: 'unsigned', in_force_hash: null })]);

    const proxied = await connect(home, policy, ['--allow-unsigned']);
    expect(await echo(proxied)).toMatchObject({ content: [{ text: 'hi' }] });
    const started = verifiedEntries(home).filter((e) => e.event === 'mcp.proxy_started');
    expect(started.at(-1)!.data).toMatchObject({ allow_unsigned: true });
  });

  it('a signed policy from a home with nothing in force yet (signed before signatures were required) is refused until adopted', () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const other = createTestHome(join(dir, 'other-home'));
    // Signed by this home's owner, but anchored only for another home: nothing is in force here.
    const policy = writePolicy(dir, BLOCKS_ECHO, 'policy.yaml', { unsigned: true });
    signPolicyForHome({ ...other, signer: home.signer }, policy);
    const run = spawnSync(process.execPath, [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--', process.execPath, SERVERS.fileTools], { env: childEnv(), encoding: 'utf8', input: '' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/not the policy Silas last put in force/);
  });
});
