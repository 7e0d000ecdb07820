import { describe, expect, it } from 'vitest';
import { createHandlers } from '../../control/handlers.js';
import { ControlRouter } from '../../control/router.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestLedger } from '../../testing/ledger.js';
import { testServices } from '../../testing/handlers.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { toolChangeDecisionId } from './tool-change-id.js';
import type { ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { ServersService } from './servers-service.js';

const tempDir = useTempDirs();
const H1 = `sha256:${'1'.repeat(64)}`;
const H2 = `sha256:${'2'.repeat(64)}`;

function setup() {
  const ledger = createTestLedger(tempDir());
  const pins = new ToolPinRepository(ledger.db);
  const service = new ServersService(ledger.db);
  ledger.audit.append('mcp.proxy_started', { server: 'files', session_id: 's1', command: 'node', args: ['files.js'], policy_name: 'workstation', policy_hash: 'a'.repeat(64) });
  ledger.audit.append('aip.decision', { server: 'files', tool: 'read_file', decision: 'ALLOW', direction: 'upstream', policy_mode: 'enforce', violation: false });
  ledger.audit.append('aip.decision', { server: 'other', tool: 'x', decision: 'BLOCK', direction: 'upstream', policy_mode: 'enforce', violation: true });
  pins.observe('files', 'read_file', H1);
  pins.observe('files', 'read_file', H2);
  const router = new ControlRouter(createHandlers({ audit: ledger.audit, ...testServices(ledger.db, ledger.audit), servers: service, runtimeInfo: () => { throw new Error('unused'); } }), { error: () => {} });
  return { ledger, pins, service, router };
}

describe('governed servers in the cockpit', () => {
  it('lists each server with its last start, policy, pins (pending changes included) and its own recent decisions', () => {
    const { service } = setup();
    const files = service.list().find((s) => s.name === 'files')!;
    expect(files).toMatchObject({ policyName: 'workstation', policyHash: 'a'.repeat(64), pins: [{ tool: 'read_file', approvedHash: H1, pendingHash: H2, decisionId: toolChangeDecisionId('files', 'read_file', H2) }] });
    expect(files.recentDecisions.map((e) => e.data.tool)).toEqual(['read_file']);
    expect(service.list().map((s) => s.name)).toEqual(['files']);
  });

  it('shows a failed policy edit until a later reload succeeds, and the policy in force after a reload', () => {
    const { ledger, service } = setup();
    ledger.audit.append('aip.policy_reload_failed', { server: 'files', session_id: 's1', errors: ['7:5 spec.tool_rules[0]: unknown key "alow_args"'] });
    expect(service.list()[0]!.policyError).toEqual({ at: expect.any(String), errors: ['7:5 spec.tool_rules[0]: unknown key "alow_args"'] });
    expect(service.list()[0]!.policyHash).toBe('a'.repeat(64));
    ledger.audit.append('aip.policy_reloaded', { server: 'files', session_id: 's1', policy_name: 'workstation', policy_hash: 'b'.repeat(64), previous_hash: 'a'.repeat(64) });
    expect(service.list()[0]).toMatchObject({ policyError: null, policyHash: 'b'.repeat(64) });
  });

  it('a changed tool waits in Review as a high-risk card, and approving it is audited first and takes effect for running proxies', async () => {
    const { ledger, pins, router, service } = setup();
    const listed = (await router.dispatch('review.list', {}, { transport: 'ipc' })) as { ok: true; value: ReviewQueueView };
    const card = listed.value.cards.find((c) => c.kind === 'tool_change')!;
    expect(card).toMatchObject({ riskLevel: 'high', expiresAt: null, details: { server: 'files', tool: 'read_file', approvedHash: H1, pendingHash: H2 } });
    expect(card.actions.map((a) => [a.choice, a.role])).toEqual([['keep_blocked', 'recommended'], ['approve', 'alternative']]);
    expect(card.id).toBe(service.list()[0]!.pins[0]!.decisionId);
    const answer = await router.dispatch('review.decide', { id: card.id, choice: 'approve' }, { transport: 'ipc' });
    expect(answer).toEqual({ ok: true, value: { id: card.id, kind: 'tool_change', choice: 'approve', outcome: 'approved' } });
    expect(pins.get('files', 'read_file')).toMatchObject({ approvedHash: H2, pendingHash: null });
    expect(ledger.audit.tail(1)[0]).toMatchObject({ event: 'mcp.tool_change_approved', data: { previous_hash: H1, hash: H2 } });
    expect(service.list()[0]!.pins[0]!.decisionId).toBeNull();
    expect(await router.dispatch('review.decide', { id: card.id, choice: 'approve' }, { transport: 'ipc' })).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringMatching(/no pending decision/) } });
  });

  it('"keep blocked" takes the card out of Review but leaves the tool blocked; the Servers page can still accept it', async () => {
    const { ledger, pins, router } = setup();
    const id = toolChangeDecisionId('files', 'read_file', H2);
    expect(await router.dispatch('review.decide', { id, choice: 'keep_blocked' }, { transport: 'websocket' })).toMatchObject({ ok: true, value: { outcome: 'denied' } });
    expect(ledger.audit.tail(1)[0]).toMatchObject({ event: 'mcp.tool_change_declined', data: { approved_hash: H1, declined_hash: H2 } });
    expect(pins.get('files', 'read_file')).toMatchObject({ approvedHash: H1, pendingHash: H2 });
    const listed = (await router.dispatch('review.list', {}, { transport: 'ipc' })) as { ok: true; value: ReviewQueueView };
    expect(listed.value.cards).toEqual([]);
    expect(await router.dispatch('review.decide', { id, choice: 'approve' }, { transport: 'ipc' })).toMatchObject({ ok: true, value: { outcome: 'approved' } });
    expect(pins.get('files', 'read_file')).toMatchObject({ approvedHash: H2, pendingHash: null, declinedHash: null });
  });

  it('refuses an id for a hash the server never announced, a choice the card does not offer, and any decision from a proxy', async () => {
    const { router, pins } = setup();
    const forged = await router.dispatch('review.decide', { id: toolChangeDecisionId('files', 'read_file', `sha256:${'3'.repeat(64)}`), choice: 'approve' }, { transport: 'websocket' });
    expect(forged).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS' } });
    const id = toolChangeDecisionId('files', 'read_file', H2);
    expect(await router.dispatch('review.decide', { id, choice: 'allow_once' }, { transport: 'websocket' })).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS', message: expect.stringMatching(/not offered by this tool_change card/) } });
    const fromProxy = await router.dispatch('review.decide', { id, choice: 'approve' }, { transport: 'local-socket' });
    expect(fromProxy).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(pins.get('files', 'read_file')?.approvedHash).toBe(H1);
  });
});
