import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-shared/contract/envelope.js';
import type { PendingApproval } from '../../src-shared/schemas/approval.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { LocalSocketClient } from '../control/local-socket-client.js';
import { OwnerKeyVault, ownerAccountForHome } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { argumentsHash, checkToolCallApproval } from './tool-call-approval.js';

const tempDir = useTempDirs();

interface Harness {
  runtime: Runtime;
  client: LocalSocketClient;
  control: { socket: string; token: string; url: string | null };
  ownerKeys: Map<string, Uint8Array>;
  notifications: string[];
}

async function harness(): Promise<Harness> {
  const home = join(tempDir(), 'home');
  const store = new MemorySecretStore();
  const notifications: string[] = [];
  const runtime = await buildRuntime({ home, mode: 'desktop' }, { secretStore: store, logger: silentLogger, notifier: { notify: (n) => notifications.push(n.title) } });
  await runtime.start();
  const control = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as Harness['control'];
  const client = await LocalSocketClient.connect(control.socket, control.token);
  const owner = new OwnerKeyVault(store, ownerAccountForHome(home)).loadOrFail();
  return { runtime, client, control, ownerKeys: new Map([[owner.fingerprint, owner.publicKey as Uint8Array]]), notifications };
}

const args = { path: '/tmp/report.txt' };
function askFor(timeoutMs = 10_000) {
  return { server: 'files', tool: 'delete_file', args, argsHash: argumentsHash(args), requestId: 41, sessionId: 'session-1', rule: 'tool_rules[delete_file].action: ask', reason: 'Policy asks before deleting files', policyName: 'workstation', timeoutMs };
}

async function pendingCards(runtime: Runtime): Promise<PendingApproval[]> {
  const list = (await runtime.router.dispatch('approvals.list', {}, { transport: 'ipc' })) as Envelope<{ pending: PendingApproval[] }>;
  if (!list.ok) throw new Error(list.error.message);
  return list.value.pending;
}

describe('approvals over the local control socket', () => {
  it('a proxy asks, the cockpit approves, and the proxy receives a signature bound to exactly that call', async () => {
    const h = await harness();
    const answer = h.client.call('approvals.request', askFor());
    await expect.poll(() => h.runtime.decisions.pendingCount()).toBe(1);
    const [card] = await pendingCards(h.runtime);
    expect(card).toMatchObject({ server: 'files', tool: 'delete_file', args, risk: 'high', policyName: 'workstation' });
    expect(h.notifications).toEqual(['Approve delete_file on files?']);
    expect(await h.runtime.router.dispatch('approvals.decide', { id: card!.id, decision: 'allow_once' }, { transport: 'ipc' })).toEqual({ ok: true, value: { id: card!.id, outcome: 'approved' } });
    const result = await answer;
    if (result.outcome !== 'approve') throw new Error(`expected approval, got ${result.outcome}`);
    const binding = { server: 'files', tool: 'delete_file', args, requestId: 41, sessionId: 'session-1' };
    expect(checkToolCallApproval(result.approval, binding, h.ownerKeys, new Date())).toEqual({ ok: true, nonce: result.approval.payload.nonce });
    expect(checkToolCallApproval(result.approval, { ...binding, args: { path: '/etc/passwd' } }, h.ownerKeys, new Date()).ok).toBe(false);
    expect(h.runtime.audit.tail(2).map((e) => e.event)).toEqual(['approvals.requested', 'approvals.approved']);
    expect(h.runtime.decisions.pendingCount()).toBe(0);
    h.client.close();
    await h.runtime.stop('test');
  });

  it('deny and timeout are answered as such and audited', async () => {
    const h = await harness();
    const denied = h.client.call('approvals.request', askFor());
    await expect.poll(() => h.runtime.decisions.pendingCount()).toBe(1);
    const [card] = await pendingCards(h.runtime);
    await h.runtime.router.dispatch('approvals.decide', { id: card!.id, decision: 'deny' }, { transport: 'websocket' });
    expect(await denied).toEqual({ outcome: 'deny', reason: 'denied by the user in the control center' });
    expect(await h.client.call('approvals.request', askFor(1000))).toEqual({ outcome: 'timeout' });
    expect(h.runtime.audit.tail(4).map((e) => e.event)).toEqual(['approvals.requested', 'approvals.denied', 'approvals.requested', 'approvals.timed_out']);
    h.client.close();
    await h.runtime.stop('test');
  });

  it('a proxy can never approve its own request: decide is refused over the local socket', async () => {
    const h = await harness();
    const pending = h.client.call('approvals.request', askFor());
    await expect.poll(() => h.runtime.decisions.pendingCount()).toBe(1);
    const [card] = await pendingCards(h.runtime);
    await expect(h.client.call('approvals.decide', { id: card!.id, decision: 'allow_once' })).rejects.toMatchObject({ code: 'E_UNAUTHORIZED' });
    expect(h.runtime.decisions.pendingCount()).toBe(1);
    // And the cockpit cannot forge a proxy's request.
    const fromCockpit = await h.runtime.router.dispatch('approvals.request', askFor(), { transport: 'websocket' });
    expect(fromCockpit).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    await h.runtime.stop('test');
    expect(await pending).toEqual({ outcome: 'deny', reason: 'the Silas control center is shutting down' });
  });

  it('while approvals are paused, new requests are declined at once (fail closed)', async () => {
    const h = await harness();
    h.runtime.decisions.setPaused(true);
    expect(await h.client.call('approvals.request', askFor())).toEqual({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    h.client.close();
    await h.runtime.stop('test');
  });

  it('the socket is private, refuses a wrong token, and goes away at shutdown', async () => {
    const h = await harness();
    expect(statSync(h.control.socket).mode & 0o777).toBe(0o600);
    expect(h.control.url).toBeNull();
    await expect(LocalSocketClient.connect(h.control.socket, 'wrong-token')).rejects.toMatchObject({ code: 'E_UNAVAILABLE' });
    expect(h.runtime.audit.tail(1)[0]).toMatchObject({ event: 'control.auth_failed', data: { reason: 'wrong token' } });
    h.client.close();
    await h.runtime.stop('test');
    await expect(LocalSocketClient.connect(h.control.socket, h.control.token)).rejects.toMatchObject({ code: 'E_UNAVAILABLE', message: expect.stringContaining('silas start') });
  });

  it('malformed requests from a proxy are refused with the field named', async () => {
    const h = await harness();
    await expect(h.client.call('approvals.request', { ...askFor(), argsHash: 'not-a-hash' })).rejects.toMatchObject({ code: 'E_INVALID_ARGS', message: expect.stringContaining('args.argsHash') });
    await expect(h.client.call('approvals.request', { ...askFor(), timeoutMs: 1 })).rejects.toMatchObject({ code: 'E_INVALID_ARGS', message: expect.stringContaining('args.timeoutMs') });
    h.client.close();
    await h.runtime.stop('test');
  });
});
