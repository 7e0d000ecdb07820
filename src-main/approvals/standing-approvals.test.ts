import { describe, expect, it } from 'vitest';
import { OwnerKeyVault } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { createHandlers } from '../control/handlers.js';
import { ControlRouter } from '../control/router.js';
import { useTempDirs } from '../testing/temp.js';
import { createTestLedger } from '../testing/ledger.js';
import { testServices } from '../testing/handlers.js';
import { ApprovalService } from './approval-service.js';
import { StandingApprovalRepository } from './standing-approvals.js';
import { StandingApprovalService } from './standing-service.js';
import { argumentsHash } from './tool-call-approval.js';

const tempDir = useTempDirs();

function setup() {
  const ledger = createTestLedger(tempDir());
  const service = new StandingApprovalService(ledger.db, ledger.audit, ledger.signer);
  const repo = new StandingApprovalRepository(ledger.db);
  const trusted = new Map([[ledger.signer.fingerprint, ledger.signer.publicKey as Uint8Array]]);
  return { ledger, service, repo, trusted };
}

const hash = argumentsHash({ path: '/srv/reports/today.csv' });

describe('standing approvals ("always allow with these arguments on this server")', () => {
  it('are found only for exactly the server, tool and arguments they were signed for', () => {
    const { service, repo, trusted } = setup();
    const created = service.create({ server: 'files', tool: 'read_file', argsHash: hash, argsDisplay: '{"path":"/srv/reports/today.csv"}' });
    expect(repo.findValid('files', 'read_file', hash, trusted)?.id).toBe(created.id);
    expect(repo.findValid('other', 'read_file', hash, trusted)).toBeNull();
    expect(repo.findValid('files', 'delete_file', hash, trusted)).toBeNull();
    expect(repo.findValid('files', 'read_file', argumentsHash({ path: '/etc/shadow' }), trusted)).toBeNull();
  });

  it('a row forged into the database, or edited to cover other arguments, is inert', () => {
    const { ledger, service, repo, trusted } = setup();
    const created = service.create({ server: 'files', tool: 'read_file', argsHash: hash, argsDisplay: '{}' });
    const other = argumentsHash({ path: '/etc/shadow' });
    ledger.db.prepare('UPDATE mcp_standing_approvals SET args_hash = ? WHERE id = ?').run(other, created.id);
    expect(repo.findValid('files', 'read_file', other, trusted)).toBeNull();
    const attacker = new OwnerKeyVault(new MemorySecretStore(), 'attacker').ensure().signer;
    new StandingApprovalRepository(ledger.db).create({ server: 'files', tool: 'delete_file', argsHash: hash, argsDisplay: '{}' }, attacker);
    expect(repo.findValid('files', 'delete_file', hash, trusted)).toBeNull();
  });

  it('revocation is audited and takes effect at once; revoking twice is refused', () => {
    const { ledger, service, repo, trusted } = setup();
    const created = service.create({ server: 'files', tool: 'read_file', argsHash: hash, argsDisplay: '{}' });
    service.revoke(created.id);
    expect(repo.findValid('files', 'read_file', hash, trusted)).toBeNull();
    expect(() => service.revoke(created.id)).toThrow(/already revoked/);
    expect(ledger.audit.tail(2).map((e) => e.event)).toEqual(['approvals.standing_created', 'approvals.standing_revoked']);
  });

  it('"always allow" on a card creates the standing approval and approves this call', async () => {
    const { ledger, service, repo, trusted } = setup();
    const approvals = new ApprovalService({ audit: ledger.audit, signer: ledger.signer, notifier: { notify() {} }, standing: service, onChange() {} });
    const answer = approvals.request({ server: 'files', tool: 'Read_File', args: { path: '/srv/reports/today.csv' }, argsHash: hash, requestId: 1, sessionId: 's', rule: 'ask', reason: 'r', policyName: 'p', timeoutMs: 5000 });
    const [card] = approvals.list();
    expect(approvals.decide(card!.id, 'always_allow')).toEqual({ id: card!.id, outcome: 'approved' });
    expect((await answer).outcome).toBe('approve');
    expect(repo.findValid('files', 'read_file', hash, trusted)).not.toBeNull();
  });

  it('the Policies page lists them without signatures, and only the cockpit may revoke', async () => {
    const { ledger, service } = setup();
    const created = service.create({ server: 'files', tool: 'read_file', argsHash: hash, argsDisplay: '{}' });
    const router = new ControlRouter(createHandlers({ audit: ledger.audit, ...testServices(ledger.db, ledger.audit), standing: service, runtimeInfo: () => { throw new Error('unused'); } }), { error: () => {} });
    const listed = await router.dispatch('approvals.listStanding', {}, { transport: 'websocket' });
    expect(listed).toMatchObject({ ok: true, value: { standing: [{ id: created.id, server: 'files', tool: 'read_file' }] } });
    expect(JSON.stringify(listed)).not.toContain(created.signature);
    expect(await router.dispatch('approvals.revokeStanding', { id: created.id }, { transport: 'local-socket' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(await router.dispatch('approvals.revokeStanding', { id: created.id }, { transport: 'ipc' })).toEqual({ ok: true, value: { id: created.id } });
  });
});
