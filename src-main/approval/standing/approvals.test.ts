import { describe, expect, it } from 'vitest';
import { OwnerKeyVault, ownerAccountForHome } from '../../keys/owner-key.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { createHandlers } from '../../control/handlers.js';
import { ControlRouter } from '../../control/router.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestLedger } from '../../testing/ledger.js';
import { testServices } from '../../testing/handlers.js';
import { testReview } from '../../testing/approvals.js';
import { SignedStandingApprovals } from './approvals.js';
import { KeyringStandingGrants, standingAccountForHome } from './grants.js';
import { StandingApprovalService } from './service.js';
import { testStandingService } from './testing/standing.js';
import { argumentsHash } from '../tool-call.js';

const tempDir = useTempDirs();

/** A keyring that can be switched off, as when the Secret Service goes away mid-session. */
class SwitchableKeyring extends MemorySecretStore {
  reachable = true;
  refuseWrites = false;
  override get(account: string): string | null {
    if (!this.reachable) throw new Error('no D-Bus session');
    return super.get(account);
  }
  override set(account: string, secret: string): void {
    if (!this.reachable || this.refuseWrites) throw new Error('the keyring is locked');
    super.set(account, secret);
  }
}

function setup() {
  const home = tempDir();
  const keyring = new SwitchableKeyring();
  const signer = new OwnerKeyVault(keyring, ownerAccountForHome(home)).ensure().signer;
  const ledger = createTestLedger(home);
  const grants = new KeyringStandingGrants(keyring, home);
  const service = new StandingApprovalService(ledger.db, ledger.audit, signer, grants);
  const repo = new SignedStandingApprovals(ledger.db);
  const find = (server: string, tool: string, argsHash: string) => repo.findValid(server, tool, argsHash, grants);
  return { home, keyring, signer, ledger, grants, service, repo, find };
}

const hash = argumentsHash({ path: '/srv/reports/today.csv' });
const binding = { server: 'files', tool: 'read_file', argsHash: hash, argsDisplay: '{"path":"/srv/reports/today.csv"}' };

describe('standing approvals ("always allow with these arguments on this server")', () => {
  it('are found only for exactly the server, tool and arguments they were signed for', () => {
    const { service, find } = setup();
    const created = service.create(binding);
    expect(find('files', 'read_file', hash)).toEqual({ approval: expect.objectContaining({ id: created.id }), refused: [] });
    expect(find('other', 'read_file', hash)).toEqual({ approval: null, refused: [] });
    expect(find('files', 'delete_file', hash).approval).toBeNull();
    expect(find('files', 'read_file', argumentsHash({ path: '/etc/shadow' })).approval).toBeNull();
  });

  it('a row forged into the database, or edited to cover other arguments, is inert', () => {
    const { ledger, service, find } = setup();
    const created = service.create(binding);
    const other = argumentsHash({ path: '/etc/shadow' });
    ledger.db.prepare('UPDATE mcp_standing_approvals SET args_hash = ? WHERE id = ?').run(other, created.id);
    expect(find('files', 'read_file', other)).toEqual({ approval: null, refused: [{ id: created.id, reason: expect.stringMatching(/not signed by the owner key/) }] });
    const attacker = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
    const forged = new SignedStandingApprovals(ledger.db).create({ ...binding, tool: 'delete_file' }, attacker);
    expect(find('files', 'delete_file', hash)).toEqual({ approval: null, refused: [{ id: forged.id, reason: expect.stringMatching(/never trusted/) }] });
  });

  it('revocation is audited and takes effect at once; revoking twice is refused', () => {
    const { ledger, service, find } = setup();
    const created = service.create(binding);
    service.revoke(created.id);
    expect(find('files', 'read_file', hash).approval).toBeNull();
    expect(() => service.revoke(created.id)).toThrow(/already revoked/);
    expect(ledger.audit.tail(2).map((e) => e.event)).toEqual(['approvals.standing_created', 'approvals.standing_revoked']);
  });

  it('"always allow" on a card creates the standing approval and approves this call', async () => {
    const { ledger, signer, service, find } = setup();
    const { queue, kinds } = testReview(ledger.db, ledger.audit, { signer, standing: service });
    const answer = queue.ask(kinds.toolCall, { server: 'files', tool: 'Read_File', args: { path: '/srv/reports/today.csv' }, display: { path: '/srv/reports/today.csv' }, requestId: 1, sessionId: 's', rule: 'ask', reason: 'r', policyName: 'p', timeoutMs: 5000 });
    const [card] = queue.view().cards;
    expect(queue.decide(card!.id, 'always_allow')).toEqual({ id: card!.id, kind: 'tool_call', choice: 'always_allow', outcome: 'approved' });
    expect((await answer).outcome).toBe('approve');
    expect(find('files', 'read_file', hash).approval).not.toBeNull();
  });

  it('the Policies page lists them without signatures, and only the cockpit may revoke', async () => {
    const { ledger } = setup();
    const standing = testStandingService(ledger.db, ledger.audit);
    const created = standing.create(binding);
    const router = new ControlRouter(createHandlers({ audit: ledger.audit, ...testServices(ledger.db, ledger.audit), standing, runtimeInfo: () => { throw new Error('unused'); } }), { error: () => {} });
    const listed = await router.dispatch('approvals.listStanding', {}, { transport: 'websocket' });
    expect(listed).toMatchObject({ ok: true, value: { standing: [{ id: created.id, server: 'files', tool: 'read_file' }] } });
    expect(JSON.stringify(listed)).not.toContain(created.signature);
    expect(await router.dispatch('approvals.revokeStanding', { id: created.id }, { transport: 'local-socket' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(await router.dispatch('approvals.revokeStanding', { id: created.id }, { transport: 'ipc' })).toEqual({ ok: true, value: { id: created.id } });
  });
});

describe('the keyring record decides what is in force', () => {
  it('clearing revoked_at neither restores the approval nor lets it be listed or revoked again', () => {
    const { ledger, service, find } = setup();
    const created = service.create(binding);
    service.revoke(created.id);
    ledger.db.prepare('UPDATE mcp_standing_approvals SET revoked_at = NULL WHERE id = ?').run(created.id);
    expect(find('files', 'read_file', hash)).toEqual({ approval: null, refused: [{ id: created.id, reason: expect.stringMatching(/revoked, or never granted/) }] });
    expect(service.list()).toEqual([]);
    expect(() => service.revoke(created.id)).toThrow(/already revoked/);
  });

  it('a row deleted from the database is revoked when the person next looks, so restoring it later does not bring it back', () => {
    const { ledger, service, find, grants } = setup();
    const created = service.create(binding);
    const saved = ledger.db.prepare('SELECT * FROM mcp_standing_approvals WHERE id = ?').get(created.id) as Record<string, unknown>;
    ledger.db.prepare('DELETE FROM mcp_standing_approvals WHERE id = ?').run(created.id);
    expect(service.list()).toEqual([]);
    expect(grants.read().active.has(created.id)).toBe(false);
    expect(ledger.audit.tail(1)[0]).toMatchObject({ event: 'approvals.standing_revoked', data: { standing_id: created.id, reason: expect.stringMatching(/missing/) } });
    ledger.db.prepare('INSERT INTO mcp_standing_approvals VALUES (@id, @server, @tool, @args_hash, @args_display, @created_at, @key_fingerprint, @signature, @revoked_at)').run(saved);
    expect(find('files', 'read_file', hash).approval).toBeNull();
  });

  it('an unreachable keyring or an unreadable record honours nothing and says why', () => {
    const { keyring, home, service, find } = setup();
    const created = service.create(binding);
    keyring.reachable = false;
    expect(find('files', 'read_file', hash)).toEqual({ approval: null, refused: [{ id: created.id, reason: expect.stringMatching(/cannot be read.*no D-Bus session/) }] });
    expect(() => service.list()).toThrow(/no D-Bus session/);
    keyring.reachable = true;
    keyring.set(standingAccountForHome(home), '{"v":1,"active":"everything"}');
    expect(find('files', 'read_file', hash).refused).toEqual([{ id: created.id, reason: expect.stringMatching(/not hold a valid standing-approval record/) }]);
  });

  it('when the keyring refuses the grant, nothing is created and nothing is audited', () => {
    const { keyring, ledger, service, find } = setup();
    const before = ledger.audit.tail(1)[0]?.index;
    keyring.refuseWrites = true;
    expect(() => service.create(binding)).toThrow(/locked/);
    expect(ledger.db.prepare('SELECT COUNT(*) AS n FROM mcp_standing_approvals').get()).toEqual({ n: 0 });
    expect(ledger.audit.tail(1)[0]?.index).toBe(before);
    expect(find('files', 'read_file', hash).approval).toBeNull();
  });

  it('when the keyring refuses a revocation, the approval stays listed as in force and the row is untouched', () => {
    const { keyring, service } = setup();
    const created = service.create(binding);
    keyring.refuseWrites = true;
    expect(() => service.revoke(created.id)).toThrow(/locked/);
    keyring.refuseWrites = false;
    expect(service.list().map((a) => [a.id, a.revokedAt])).toEqual([[created.id, null]]);
  });
});
