import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../src-shared/contract/envelope.js';
import type { CardOf, ReviewQueueView } from '../../src-shared/schemas/review.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { LocalSocketClient } from '../control/local-socket-client.js';
import { OwnerKeyVault, ownerAccountForHome } from '../keys/owner-key.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { ToolCallApprovalRequest } from '../../src-shared/schemas/approval.js';
import { createTestLedger } from '../testing/ledger.js';
import { proxyVerifier, testReview } from '../testing/approvals.js';
import { argumentsHash, displayMismatch } from './tool-call.js';

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
  return { server: 'files', tool: 'delete_file', args, display: args, requestId: 41, sessionId: 'session-1', rule: 'tool_rules[delete_file].action: ask', reason: 'Policy asks before deleting files', policyName: 'workstation', timeoutMs };
}

/** The newest `n` events, without the checkpoints the runtime writes in between. */
function lastEvents(audit: Runtime['audit'], n: number): string[] {
  return audit
    .tail(n + 10)
    .map((e) => e.event)
    .filter((event) => event !== 'audit.checkpoint')
    .slice(-n);
}

async function pendingCards(runtime: Runtime): Promise<CardOf<'tool_call'>[]> {
  const list = (await runtime.router.dispatch('review.list', {}, { transport: 'ipc' })) as Envelope<ReviewQueueView>;
  if (!list.ok) throw new Error(list.error.message);
  return list.value.cards.filter((card): card is CardOf<'tool_call'> => card.kind === 'tool_call');
}

describe('approvals over the local control socket', () => {
  it('a proxy asks, the cockpit approves, and the proxy receives a signature bound to exactly that call', async () => {
    const h = await harness();
    const answer = h.client.call('approvals.request', askFor());
    await expect.poll(() => h.runtime.decisions.pendingCount()).toBe(1);
    const [card] = await pendingCards(h.runtime);
    expect(card).toMatchObject({ kind: 'tool_call', riskLevel: 'high', details: { server: 'files', tool: 'delete_file', args, policyName: 'workstation' } });
    expect(h.notifications).toEqual(['Approve delete_file on files?']);
    expect(await h.runtime.router.dispatch('review.decide', { id: card!.id, choice: 'allow_once' }, { transport: 'ipc' })).toEqual({ ok: true, value: { id: card!.id, kind: 'tool_call', choice: 'allow_once', outcome: 'approved' } });
    const result = await answer;
    if (result.outcome !== 'approve') throw new Error(`expected approval, got ${result.outcome}`);
    const binding = { server: 'files', tool: 'delete_file', args, requestId: 41, sessionId: 'session-1' };
    const verify = proxyVerifier(tempDir(), h.ownerKeys);
    expect(verify(result.token, { ...binding, args: { path: '/etc/passwd' } })).toEqual({ ok: false, reason: 'approval is for other arguments' });
    expect(verify(result.token, binding)).toEqual({ ok: true, nonce: result.token.nonce, keyFingerprint: result.token.key_fingerprint });
    expect(lastEvents(h.runtime.audit, 3)).toEqual(['approvals.requested', 'silas.approval.issued', 'approvals.approved']);
    expect(h.runtime.decisions.pendingCount()).toBe(0);
    h.client.close();
    await h.runtime.stop('test');
  });

  it('deny and timeout are answered as such and audited', async () => {
    const h = await harness();
    const denied = h.client.call('approvals.request', askFor());
    await expect.poll(() => h.runtime.decisions.pendingCount()).toBe(1);
    const [card] = await pendingCards(h.runtime);
    await h.runtime.router.dispatch('review.decide', { id: card!.id, choice: 'deny' }, { transport: 'websocket' });
    expect(await denied).toEqual({ outcome: 'deny', reason: 'denied by the user in the control center' });
    expect(await h.client.call('approvals.request', askFor(1000))).toEqual({ outcome: 'timeout' });
    expect(lastEvents(h.runtime.audit, 4)).toEqual(['approvals.requested', 'approvals.denied', 'approvals.requested', 'approvals.timed_out']);
    h.client.close();
    await h.runtime.stop('test');
  });

  it('a proxy can never approve its own request: decide is refused over the local socket', async () => {
    const h = await harness();
    const pending = h.client.call('approvals.request', askFor());
    await expect.poll(() => h.runtime.decisions.pendingCount()).toBe(1);
    const [card] = await pendingCards(h.runtime);
    await expect(h.client.call('review.decide', { id: card!.id, choice: 'allow_once' })).rejects.toMatchObject({ code: 'E_UNAUTHORIZED' });
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
    await expect(h.client.call('approvals.request', { ...askFor(), display: { path: '/tmp/other.txt' } })).rejects.toMatchObject({ code: 'E_INVALID_ARGS', message: expect.stringContaining('display differs from args at args.path') });
    await expect(h.client.call('approvals.request', { ...askFor(), timeoutMs: 1 })).rejects.toMatchObject({ code: 'E_INVALID_ARGS', message: expect.stringContaining('args.timeoutMs') });
    h.client.close();
    await h.runtime.stop('test');
  });
});

/*
 * The card shows what is signed, from the side of a hostile asker (anything holding the ask
 * capability): the card must not show other arguments than the ones the signature binds.
 * In-process, so the attack does not depend on how sessions authenticate.
 */
describe('the card shows what is signed', () => {
  const harmless = { path: '/tmp/harmless' };
  const target = { path: '~/.ssh/id_rsa' };
  const ask = (fields: { args: unknown; display: unknown }) => ({ server: 'files', tool: 'read_file', requestId: 7, sessionId: 'hostile', rule: 'ask', reason: 'r', policyName: 'p', timeoutMs: 5000, ...fields }) as ToolCallApprovalRequest;

  function service() {
    const ledger = createTestLedger(tempDir());
    const standing: { argsHash: string; argsDisplay: string }[] = [];
    const { queue, kinds, signer } = testReview(ledger.db, ledger.audit, { standing: { create: (b) => (standing.push(b), { ...b, id: 'x' }) as never } });
    // The tool-call kind on the one queue, as the handlers use it.
    const approvals = {
      request: (request: ToolCallApprovalRequest) => queue.ask(kinds.toolCall, request),
      decide: (id: string, choice: string) => queue.decide(id, choice),
      list: () => queue.view().cards.filter((card): card is CardOf<'tool_call'> => card.kind === 'tool_call'),
      pendingCount: () => queue.pendingCount(),
    };
    return { ledger, approvals, standing, verify: proxyVerifier(tempDir(), new Map([[signer.fingerprint, signer.publicKey as Uint8Array]])) };
  }

  it('an asker can no longer supply the hash: a request carrying argsHash is refused by the contract', () => {
    const attack = { ...ask({ args: harmless, display: harmless }), argsHash: argumentsHash(target) };
    const parsed = ToolCallApprovalRequest.safeParse(attack);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain('argsHash');
  });

  it('display args that are not a redaction of the signed args are refused and audited; no card appears', () => {
    const { ledger, approvals } = service();
    expect(() => approvals.request(ask({ args: target, display: harmless }))).toThrow(/display differs from args at args\.path/);
    expect(approvals.pendingCount()).toBe(0);
    expect(ledger.audit.tail(1)[0]).toMatchObject({ event: 'approvals.refused_display_mismatch', data: { field: 'args.path', args_hash: argumentsHash(target), session_id: 'hostile' } });
  });

  it('"always allow" on a harmless card creates a standing approval and a token that cannot authorise the protected file', async () => {
    const { approvals, standing, verify } = service();
    const answer = approvals.request(ask({ args: harmless, display: harmless }));
    const [card] = approvals.list();
    expect(card!.details.args).toEqual(harmless);
    approvals.decide(card!.id, 'always_allow');
    const result = await answer;
    if (result.outcome !== 'approve') throw new Error(`expected approval, got ${result.outcome}`);
    expect(standing).toEqual([{ server: 'files', tool: 'read_file', argsHash: argumentsHash(harmless), argsDisplay: JSON.stringify(harmless) }]);
    expect(standing[0]!.argsHash).not.toBe(argumentsHash(target));
    const binding = { server: 'files', tool: 'read_file', requestId: 7, sessionId: 'hostile' };
    expect(verify(result.token, { ...binding, args: target })).toEqual({ ok: false, reason: 'approval is for other arguments' });
    expect(verify(result.token, { ...binding, args: harmless })).toMatchObject({ ok: true });
  });

  it('the legitimate path: a DLP-redacted display is shown, and the signature binds the real arguments', async () => {
    const { approvals, verify } = service();
    const real = { url: 'https://api.example.com/?key=AKIAABCDEFGHIJKLMNOP', retries: 4111111111111111, ['AKIAABCDEFGHIJKLMNOP']: true };
    const display = { url: 'https://api.example.com/?key=[REDACTED:AWS Key]', retries: '[REDACTED:Card]', '[REDACTED:AWS Key]': true };
    const answer = approvals.request(ask({ args: real, display }));
    const [card] = approvals.list();
    expect(card!.details.args).toEqual(display);
    approvals.decide(card!.id, 'allow_once');
    const result = await answer;
    if (result.outcome !== 'approve') throw new Error(`expected approval, got ${result.outcome}`);
    expect(verify(result.token, { server: 'files', tool: 'read_file', requestId: 7, sessionId: 'hostile', args: real })).toMatchObject({ ok: true });
  });

  it('displayMismatch accepts markers only in place of text', () => {
    expect(displayMismatch({ a: 'x [REDACTED:K] y' }, { a: 'x secret y' })).toBeNull();
    expect(displayMismatch({ a: '[REDACTED:K]' }, { a: 'x', b: 'extra' })).toBe('args');
    expect(displayMismatch({ a: 'x [REDACTED:K]' }, { a: 'y secret' })).toBe('args.a');
    expect(displayMismatch({ a: '5' }, { a: 5 })).toBe('args.a');
    expect(displayMismatch([1, { b: null }], [1, { b: false }])).toBe('args[1].b');
  });
});
