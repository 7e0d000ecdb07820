import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { openHome } from '../../app/home.js';
import { OwnerKeyVault } from '../../keys/owner-key.js';
import { MemorySecretStore, type SecretStore } from '../../keys/secret-store.js';
import { connectThroughProxy, createTestHome, SERVERS, startInProcessProxy, writePolicy, type InProcessProxy } from '../../mcp/testing/proxy-harness.js';
import { ScriptedApprover } from '../../mcp/testing/test-approver.js';
import { useTempDirs } from '../../testing/temp.js';
import { KeyringStandingGrants } from './grants.js';
import { SignedStandingApprovals } from './approvals.js';
import { StandingApprovalService } from './service.js';
import { argumentsHash } from '../tool-call.js';

/*
 * Standing approvals (docs/standing-approvals.md "What makes one count"), from the attacker's side:
 * a process that can write the data home's database but not the OS keyring tries to make the proxy
 * honour a standing approval the owner revoked or never granted. Each attempt must end in a
 * question to the person, and the ledger must say which standing approval was refused and why.
 */

const tempDir = useTempDirs('silas-standing-');
const running: InProcessProxy[] = [];
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.close().catch(() => undefined);
  for (const close of closers.splice(0)) await close();
});

/** A keyring the process cannot reach (no D-Bus session): every access fails as OsKeyring does. */
class UnreachableKeyring implements SecretStore {
  readonly description = 'Secret Service (unreachable in this test)';
  get(): string | null {
    throw new SilasError(ErrorCode.Keyring, 'the OS keyring (Secret Service) is not reachable: no D-Bus session');
  }
  set(): void {
    this.get();
  }
  delete(): boolean {
    this.get();
    return false;
  }
}

async function setup() {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const policy = writePolicy(dir, '  tool_rules:\n    - tool: delete_file\n      action: ask\n');
  // The control center's side: the owner key and the standing-approval record in the keyring.
  const owner = openHome(home.home, { create: false, keys: 'signer', secretStore: home.secretStore });
  closers.push(() => owner.close());
  const service = new StandingApprovalService(owner.db, owner.audit, owner.signer!, new KeyringStandingGrants(home.secretStore, home.home));
  // The attacker's side: a plain SQLite connection to the same file.
  const attacker = new Database(owner.paths.database);
  closers.unshift(() => attacker.close());
  const victim = join(dir, 'victim.txt');
  writeFileSync(victim, 'keep me');
  const binding = { server: 'files', tool: 'delete_file', argsHash: argumentsHash({ path: victim }), argsDisplay: JSON.stringify({ path: victim }) };
  const approver = new ScriptedApprover(() => ({ outcome: 'deny', reason: 'no' }));
  const startProxy = async (keyring: SecretStore = home.secretStore) => {
    const proxy = await startInProcessProxy({ home: home.home, policy, server: SERVERS.fileTools, approver, standingGrants: new KeyringStandingGrants(keyring, home.home) });
    running.push(proxy);
    return proxy;
  };
  const callDelete = async (proxy: { client: InProcessProxy['client'] }) => {
    try {
      return await proxy.client.callTool({ name: 'delete_file', arguments: { path: victim } });
    } catch (error) {
      if (error instanceof McpError) return { refused: error.code };
      throw error;
    }
  };
  // Read through the control center's open ledger: a fresh open refuses a home whose owner_keys was tampered with.
  const events = () => [...owner.audit.since()];
  const refusals = () => events().filter((e) => e.event === 'approvals.standing_refused');
  return { home, owner, service, attacker, victim, binding, approver, startProxy, callDelete, events, refusals };
}

describe('a revoked standing approval stays revoked whatever is written to the database', () => {
  it('the legitimate path: a granted standing approval lets exactly its call through without asking', async () => {
    const s = await setup();
    const granted = s.service.create(s.binding);
    const proxy = await s.startProxy();
    expect(await s.callDelete(proxy)).not.toHaveProperty('refused');
    expect(existsSync(s.victim)).toBe(false);
    expect(s.approver.requests).toHaveLength(0);
    expect(s.events().find((e) => e.event === 'aip.decision' && e.data.approval === 'standing')?.data).toMatchObject({ decision: 'ALLOW', standing_id: granted.id });
  });

  it('clearing revoked_at does not bring it back: the call is asked and the refusal audited', async () => {
    const s = await setup();
    const granted = s.service.create(s.binding);
    s.service.revoke(granted.id);
    s.attacker.prepare('UPDATE mcp_standing_approvals SET revoked_at = NULL WHERE id = ?').run(granted.id);
    const proxy = await s.startProxy();
    expect(await s.callDelete(proxy)).toEqual({ refused: -32004 });
    expect(existsSync(s.victim)).toBe(true);
    expect(s.approver.requests).toHaveLength(1);
    expect(s.refusals().map((e) => e.data)).toEqual([expect.objectContaining({ standing_id: granted.id, tool: 'delete_file', reason: expect.stringMatching(/revoked/) })]);
  });

  it('deleting the row and re-inserting it from a backup copy of the database does not bring it back', async () => {
    const s = await setup();
    const granted = s.service.create(s.binding);
    const backup = join(tempDir(), 'backup.db');
    s.attacker.exec(`VACUUM INTO '${backup}'`);
    s.service.revoke(granted.id);
    s.attacker.exec(`ATTACH DATABASE '${backup}' AS old`);
    s.attacker.prepare('DELETE FROM mcp_standing_approvals WHERE id = ?').run(granted.id);
    s.attacker.prepare('INSERT INTO mcp_standing_approvals SELECT * FROM old.mcp_standing_approvals WHERE id = ?').run(granted.id);
    s.attacker.exec('DETACH DATABASE old');
    expect(s.attacker.prepare('SELECT revoked_at FROM mcp_standing_approvals WHERE id = ?').get(granted.id)).toEqual({ revoked_at: null });
    const proxy = await s.startProxy();
    expect(await s.callDelete(proxy)).toEqual({ refused: -32004 });
    expect(existsSync(s.victim)).toBe(true);
    expect(s.approver.requests).toHaveLength(1);
    expect(s.refusals().map((e) => e.data)).toEqual([expect.objectContaining({ standing_id: granted.id, reason: expect.stringMatching(/revoked/) })]);
    expect(s.service.list()).toEqual([]);
  });
});

describe('a forged standing approval is never honoured, with or without a keyring', () => {
  /** The attacker's own key, registered in owner_keys as if it were an owner key, signs a row of its own. */
  function forge(s: Awaited<ReturnType<typeof setup>>) {
    const forger = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
    s.attacker
      .prepare('INSERT INTO owner_keys (fingerprint, public_key, keyring_service, keyring_account, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(forger.fingerprint, forger.publicKey.toString('hex'), 'silas', 'attacker', new Date().toISOString());
    return new SignedStandingApprovals(s.attacker).create(s.binding, forger);
  }

  it('`silas proxy` started without a keyring session does not run the forged call', async () => {
    const s = await setup();
    const forged = forge(s);
    const policy = writePolicy(tempDir(), '  tool_rules:\n    - tool: delete_file\n      action: ask\n');
    const noKeyring = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/silas-test-bus' };
    const outcome = await connectThroughProxy({ home: s.home.home, policy, server: SERVERS.fileTools, extra: ['--name', 'files'], env: noKeyring })
      .then(async (proxied) => {
        closers.unshift(() => proxied.close());
        return s.callDelete(proxied);
      })
      .catch((error: unknown) => ({ failed: String(error) }));
    // Refusing to start and asking (with no control center to answer) both leave the file alone.
    expect(outcome).not.toHaveProperty('content');
    expect(existsSync(s.victim)).toBe(true);
    expect(s.events().filter((e) => e.event === 'aip.decision' && e.data.standing_id === forged.id)).toEqual([]);
  });

  it('a proxy that loses the keyring asks instead of trusting a key inserted into owner_keys', async () => {
    const s = await setup();
    const proxy = await s.startProxy(new UnreachableKeyring());
    const forged = forge(s);
    expect(await s.callDelete(proxy)).toEqual({ refused: -32004 });
    expect(existsSync(s.victim)).toBe(true);
    expect(s.approver.requests).toHaveLength(1);
    expect(s.refusals().map((e) => e.data)).toEqual([expect.objectContaining({ standing_id: forged.id, reason: expect.stringMatching(/keyring/) })]);
  });

  it('a genuine standing approval is not honoured either while the keyring is unreachable (fail closed: ask)', async () => {
    const s = await setup();
    const granted = s.service.create(s.binding);
    const proxy = await s.startProxy(new UnreachableKeyring());
    expect(await s.callDelete(proxy)).toEqual({ refused: -32004 });
    expect(s.approver.requests).toHaveLength(1);
    expect(s.refusals().map((e) => e.data)).toEqual([expect.objectContaining({ standing_id: granted.id, reason: expect.stringMatching(/keyring/) })]);
  });

  it('with the keyring reachable, only the keyring-held owner key counts', async () => {
    const s = await setup();
    const proxy = await s.startProxy();
    const forged = forge(s);
    expect(await s.callDelete(proxy)).toEqual({ refused: -32004 });
    expect(existsSync(s.victim)).toBe(true);
    expect(s.refusals().map((e) => e.data)).toEqual([expect.objectContaining({ standing_id: forged.id, reason: expect.stringMatching(/owner key/) })]);
  });
});
