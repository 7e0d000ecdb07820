import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAuditEvent } from '../../../src-shared/audit/define.js';
import type { ServerSandboxSummary } from '../../../src-shared/schemas/server-sandbox.js';
import { SqliteAuditLog } from '../../audit/audit-log.js';
import { AuditRepository } from '../../store/repositories/audit-repository.js';
import { testAuditEvents } from '../../testing/audit-events.js';
import { createHandlers } from '../../control/handlers.js';
import { ControlRouter } from '../../control/router.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestLedger } from '../../testing/ledger.js';
import { testServices } from '../../testing/handlers.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { memorySeals } from '../../testing/seals.js';
import { toolPinSealer } from '../tool-pin-seals.js';
import { toolChangeDecisionId } from './tool-change-id.js';
import type { ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { ServersService } from './servers-service.js';
import { sandboxSummary } from '../../../src-shared/schemas/testing/server-sandbox.js';

const tempDir = useTempDirs();
const H1 = `sha256:${'1'.repeat(64)}`;
const H2 = `sha256:${'2'.repeat(64)}`;

function setup() {
  const ledger = createTestLedger(tempDir());
  const sealer = toolPinSealer(memorySeals().seals);
  const pins = new ToolPinRepository(ledger.db, sealer);
  const service = new ServersService(ledger.db, sealer);
  ledger.audit.append('mcp.proxy_started', { server: 'files', session_id: 's1', command: 'node', args: ['files.js'], policy_name: 'workstation', policy_hash: 'a'.repeat(64) });
  ledger.audit.append('aip.decision', { server: 'files', tool: 'read_file', decision: 'ALLOW', direction: 'upstream', policy_mode: 'enforce', violation: false });
  ledger.audit.append('aip.decision', { server: 'other', tool: 'x', decision: 'BLOCK', direction: 'upstream', policy_mode: 'enforce', violation: true });
  pins.observe('files', 'read_file', H1);
  pins.observe('files', 'read_file', H2);
  const router = new ControlRouter(createHandlers({ audit: ledger.audit, ...testServices(ledger.db, ledger.audit, sealer), servers: service, runtimeInfo: () => { throw new Error('unused'); } }), { error: () => {} });
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

  it('shows a start failure a proxy reported over the local socket, capped by the contract, until a later start succeeds', async () => {
    const { ledger, router, service } = setup();
    const report = { server: 'memory', client: 'claude-desktop', reason: 'the OS keyring is not reachable', fix: 'unlock it' };
    expect(await router.dispatch('servers.reportStartFailure', report, { transport: 'local-socket', peer: 'pid 42' })).toEqual({ ok: true, value: { recorded: true } });
    expect(((await router.dispatch('servers.reportStartFailure', { ...report, reason: 'x'.repeat(2001) }, { transport: 'local-socket' })) as { ok: boolean }).ok).toBe(false);
    const memory = service.list().find((s) => s.name === 'memory')!;
    expect(memory).toMatchObject({ lastStartedAt: null, startFailure: { at: expect.any(String), client: 'claude-desktop', reason: report.reason, fix: 'unlock it' } });
    // An older report does not outlive a start that succeeded after it.
    ledger.audit.append('mcp.proxy_started', { server: 'memory', session_id: 's2', command: 'node', args: [], policy_name: 'p', policy_hash: 'c'.repeat(64) });
    expect(service.list().find((s) => s.name === 'memory')!.startFailure).toBeUndefined();
    expect(service.list().find((s) => s.name === 'files')!.startFailure).toBeUndefined();
  });

  it('shows a start failure a proxy recorded in the ledger itself (its server could not start), until a later start succeeds', () => {
    const { ledger, service } = setup();
    ledger.audit.append('mcp.proxy_start_failed', { server: 'files', client: 'claude-desktop', session_id: 's3', command: 'npx', reason: 'cannot start the MCP server "npx": no such command (check the path, or that it is on PATH)' } as never);
    expect(service.list().find((s) => s.name === 'files')!.startFailure).toMatchObject({ client: 'claude-desktop', reason: expect.stringMatching(/no such command/) });
    ledger.audit.append('mcp.proxy_started', { server: 'files', session_id: 's4', command: 'npx', args: [], policy_name: 'p', policy_hash: 'c'.repeat(64) });
    expect(service.list().find((s) => s.name === 'files')!.startFailure).toBeUndefined();
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

// A writer of another version (or a hand-edited row): its `sandbox` key is not the shape this one reads.
const otherWriter = {
  ...testAuditEvents,
  'mcp.proxy_started': defineAuditEvent({ summary: 'A proxy started its MCP server.', category: 'mcp_proxy', data: z.looseObject({ server: z.string(), session_id: z.string() }) }),
};

const sandboxed = sandboxSummary();
const unsandboxed: ServerSandboxSummary = {
  ...sandboxed,
  backend: 'none',
  unsandboxedReason: '--no-sandbox',
  network: { mode: 'none', hosts: [], loopbackPorts: [] },
  limits: { mechanism: null, max_processes: null, max_memory_mb: null },
};

function sandboxSetup() {
  const { ledger, service } = setup();
  const started = (server: string) => ({ server, session_id: `s-${server}`, command: 'node', args: [], policy_name: 'workstation', policy_hash: 'a'.repeat(64) });
  const start = (server: string, sandbox?: ServerSandboxSummary) => ledger.audit.append('mcp.proxy_started', { ...started(server), sandbox });
  const startOther = (server: string, sandbox: unknown) =>
    new SqliteAuditLog({ repository: new AuditRepository(ledger.db), keys: ledger.keys, catalogue: otherWriter }).append('mcp.proxy_started', { ...started(server), sandbox });
  const deny = (server: string, host: string, port = 443) => ({ event: 'mcp.sandbox_denied' as const, data: { server, session_id: `s-${server}`, kind: 'connect' as const, host, port, reason: 'host not in network.hosts' } });
  const server = (name: string) => service.list().find((s) => s.name === name)!;
  return { audit: ledger.audit, start, startOther, deny, server };
}

describe('the sandbox of each governed server', () => {
  it('shows the sandbox the latest start recorded, paths, network, limits and names only', () => {
    const { start, server } = sandboxSetup();
    start('files', sandboxed);
    expect(server('files').sandbox).toEqual(sandboxed);
  });

  it('shows an unsandboxed start with its reason, so the page can warn about it', () => {
    const { start, server } = sandboxSetup();
    start('files', sandboxed);
    start('files', unsandboxed);
    expect(server('files').sandbox).toMatchObject({ backend: 'none', unsandboxedReason: '--no-sandbox', network: { mode: 'none' } });
  });

  it('reads no sandbox from a start that recorded none or one it cannot parse, even after a sandboxed start', () => {
    const { start, startOther, server } = sandboxSetup();
    // The entry of setup() was written by a proxy older than sandboxing.
    expect(server('files').sandbox).toBeNull();
    start('files', sandboxed);
    start('files');
    expect(server('files').sandbox).toBeNull();
    startOther('files', { ...sandboxed, backend: 'firejail' });
    expect(server('files').sandbox).toBeNull();
    startOther('files', { backend: 'bubblewrap' });
    expect(server('files').sandbox).toBeNull();
  });

  it("lists the server's own newest 20 denials, newest first", () => {
    const { audit, start, deny, server } = sandboxSetup();
    start('files', sandboxed);
    start('web', sandboxed);
    expect(server('files').sandboxDenials).toEqual([]);
    audit.appendBatch([deny('web', 'web-only.example'), ...Array.from({ length: 22 }, (_, i) => deny('files', `host-${i}.example`, 1000 + i))]);
    const denials = server('files').sandboxDenials;
    expect(denials).toHaveLength(20);
    expect(denials.map((e) => e.event)).toEqual(Array(20).fill('mcp.sandbox_denied'));
    expect(denials[0]!.data).toEqual({ server: 'files', session_id: 's-files', kind: 'connect', host: 'host-21.example', port: 1021, reason: 'host not in network.hosts' });
    expect(denials.at(-1)!.data.host).toBe('host-2.example');
    expect(server('web').sandboxDenials.map((e) => e.data.host)).toEqual(['web-only.example']);
  });
});
