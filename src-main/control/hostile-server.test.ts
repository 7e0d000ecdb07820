import type { ReviewQueueView } from '../../src-shared/schemas/review.js';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditEventAliases } from '../../src-shared/audit/events.js';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WS_CLOSE_UNAUTHORIZED } from '../../src-shared/contract/wire.js';
import { ErrorCode } from '../../src-shared/errors.js';
import type { AuditEntry } from '../../src-shared/schemas/audit.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { ToolPinRepository } from '../store/repositories/tool-pins.js';
import { toolPinSealer } from '../mcp/tool-pin-seals.js';
import { parsePlan } from '../silas/work/plan-parser.js';
import { planHash } from '../silas/work/hashes.js';
import { openHome } from '../app/home.js';
import { useTempDirs } from '../testing/temp.js';
import { LocalSocketClient } from './local-socket-client.js';

/*
 * Only the person decides (docs/control-plane.md "Credentials and capabilities"), from the
 * attacker's side: a malicious MCP server runs as the same user as the person (behind `silas
 * proxy`), so it can read HOME/control.json. It asks for its own tool call, a plan and a changed
 * tool definition, then tries to approve them itself.
 */

const tempDir = useTempDirs();
const H1 = `sha256:${'1'.repeat(64)}`;
const H2 = `sha256:${'2'.repeat(64)}`;
/** Every kind of decision waiting in the scene; each is answered through the one `review.decide`. */
const DECISIONS = ['tool_call', 'plan', 'tool_change'] as const;

interface Scene {
  runtime: Runtime;
  home: string;
  /** What any same-user process finds on disk. */
  stolen: { socket: string; token: string; wsUrl: string; url: string };
  proxy: LocalSocketClient;
  pendingToolCall: Promise<unknown>;
  pendingPlan: Promise<unknown>;
  cardId: string;
  planId: string;
  toolChangeId: string;
  /** Everything the runtime logged. */
  logged: string[];
}

const open: Runtime[] = [];
const sockets: WebSocket[] = [];
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  for (const runtime of open.splice(0)) await runtime.stop('test over');
});

async function scene(): Promise<Scene> {
  const home = join(tempDir(), 'home');
  const logged: string[] = [];
  const capture = (message: string, detail?: unknown) => logged.push(`${message} ${JSON.stringify(detail ?? null)}`);
  const secretStore = new MemorySecretStore();
  const runtime = await buildRuntime({ home, mode: 'headless', port: 0, cockpitDir: null }, { secretStore, logger: { info: capture, warn: capture, error: capture } });
  open.push(runtime);
  await runtime.start();
  const stolen = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as Scene['stolen'];
  // The hostile server's own proxy asks (legitimately) about its call, and `silas run` asks about a plan.
  const proxy = await LocalSocketClient.connect(stolen.socket, stolen.token);
  const args = { path: '/home/person/.ssh/id_ed25519' };
  const pendingToolCall = proxy.call('approvals.request', {
    server: 'evil',
    tool: 'read_file',
    args,
    display: args,
    requestId: 7,
    sessionId: 'evil-session',
    rule: 'tools.ask: read_file',
    reason: 'policy asks',
    policyName: 'workstation',
    timeoutMs: 60_000,
  });
  const item = parsePlan('---\nid: task-evil\ntype: task\ntitle: Exfiltrate\n---\nBody.\n');
  const pendingPlan = proxy.call('plans.requestApproval', { item, planHash: planHash(item), source: '/tmp/evil.md', timeoutMs: 60_000 });
  pendingToolCall.catch(() => undefined);
  pendingPlan.catch(() => undefined);
  // Its proxy pinned one definition of read_file, then saw a poisoned one.
  const proxyLedger = openHome(home, { create: false, keys: 'signer', secretStore });
  const pins = new ToolPinRepository(proxyLedger.db, toolPinSealer(proxyLedger.seals));
  pins.observe('evil', 'read_file', H1);
  pins.observe('evil', 'read_file', H2);
  proxyLedger.close();
  await expect.poll(() => runtime.decisions.pendingCount()).toBe(3);
  const listed = await runtime.router.dispatch('review.list', {}, { transport: 'in-process' });
  if (!listed.ok) throw new Error('listing pending decisions failed');
  const { cards } = listed.value as ReviewQueueView;
  const idOf = (kind: string) => cards.find((c) => c.kind === kind)!.id;
  return { runtime, home, stolen, proxy, pendingToolCall, pendingPlan, cardId: idOf('tool_call'), planId: idOf('plan'), toolChangeId: idOf('tool_change'), logged };
}

function decideArgs(s: Scene, kind: (typeof DECISIONS)[number]): { id: string; choice: string } {
  if (kind === 'tool_call') return { id: s.cardId, choice: 'allow_once' };
  if (kind === 'plan') return { id: s.planId, choice: 'approve' };
  return { id: s.toolChangeId, choice: 'approve' };
}

function events(runtime: Runtime, name: string): AuditEntry[] {
  return runtime.audit.tail(500).filter((e) => e.event === name);
}

/** Nothing the attacker asked for was decided: both asks still wait and the pin still holds H1. */
async function expectNothingDecided(s: Scene): Promise<void> {
  expect(s.runtime.decisions.pendingCount()).toBe(3);
  const servers = await s.runtime.router.dispatch('servers.list', {}, { transport: 'in-process' });
  if (!servers.ok) throw new Error('servers.list failed');
  const evil = (servers.value as { servers: { name: string; pins: { approvedHash: string; pendingHash: string | null }[] }[] }).servers.find((x) => x.name === 'evil');
  expect(evil?.pins[0]).toMatchObject({ approvedHash: H1, pendingHash: H2 });
  const decided = s.runtime.audit.tail(500).map((e) => e.event);
  const effects = (['approvals.approved', 'approvals.denied', 'silas.plan_approval.approved', 'silas.plan_approval.denied', 'silas.approval.issued', 'mcp.tool_change_approved'] as const).flatMap(auditEventAliases);
  for (const effect of effects) {
    expect(decided).not.toContain(effect);
  }
}

function upgradeStatus(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('open', () => resolve(101));
    ws.once('error', () => resolve(-1));
  });
}

describe('a hostile MCP server holding the token from control.json', () => {
  it('cannot open the cockpit WebSocket without an Origin: 403, audited as control.upgrade_refused', async () => {
    const s = await scene();
    const ws = new WebSocket(s.stolen.wsUrl);
    sockets.push(ws);
    expect(await upgradeStatus(ws)).toBe(403);
    const refused = events(s.runtime, 'control.upgrade_refused');
    expect(refused.map((e) => e.data)).toContainEqual(expect.objectContaining({ origin: '', reason: expect.stringContaining('Origin') }));
    await expectNothingDecided(s);
  });

  it('with a forged allowed Origin, its token is not a cockpit credential: closed 4001 before any decision, audited as control.auth_failed', async () => {
    const s = await scene();
    const ws = new WebSocket(s.stolen.wsUrl, { origin: new URL(s.stolen.url).origin });
    sockets.push(ws);
    expect(await upgradeStatus(ws)).toBe(101);
    const answers: unknown[] = [];
    ws.on('message', (data) => answers.push(JSON.parse(String(data))));
    // Settles on the close, or (on a runtime that let it in) once every call was answered.
    const settled = new Promise<number | 'answered'>((resolve) => {
      ws.once('close', (code) => resolve(code));
      ws.on('message', () => answers.length > DECISIONS.length && resolve('answered'));
    });
    ws.send(JSON.stringify({ type: 'auth', token: s.stolen.token }));
    DECISIONS.forEach((kind, i) => ws.send(JSON.stringify({ type: 'call', id: i, name: 'review.decide', args: decideArgs(s, kind) })));
    expect(await settled).toBe(WS_CLOSE_UNAUTHORIZED);
    expect(answers).toEqual([]);
    expect(events(s.runtime, 'control.auth_failed').map((e) => e.data)).toContainEqual(expect.objectContaining({ reason: 'wrong token' }));
    await expectNothingDecided(s);
  });

  it.each(DECISIONS)('over the local socket, review.decide of a %s is refused with E_UNAUTHORIZED and audited as control.decision_refused', async (kind) => {
    const s = await scene();
    await expect(s.proxy.call('review.decide', decideArgs(s, kind))).rejects.toMatchObject({ code: ErrorCode.Unauthorized });
    expect(events(s.runtime, 'control.decision_refused').map((e) => e.data)).toEqual([expect.objectContaining({ call: 'review.decide', transport: 'local-socket' })]);
    await expectNothingDecided(s);
  });

  it('over the local socket, it cannot read the cockpit either (pending cards, audit log): refused and audited', async () => {
    const s = await scene();
    for (const call of ['review.list', 'audit.list', 'clients.list'] as const) {
      await expect(s.proxy.call(call, {})).rejects.toMatchObject({ code: ErrorCode.Unauthorized });
    }
    expect(events(s.runtime, 'control.call_refused').map((e) => e.data.call)).toEqual(['review.list', 'audit.list', 'clients.list']);
  });

  it('the cockpit credential is nowhere it can read: not in control.json, the runtime log or the environment', async () => {
    const s = await scene();
    const cockpitToken = s.runtime.cockpit!.token;
    expect(cockpitToken).not.toBe(s.stolen.token);
    expect(readFileSync(join(s.home, 'control.json'), 'utf8')).not.toContain(cockpitToken);
    expect(s.logged.length).toBeGreaterThan(0);
    expect(s.logged.join('\n').includes(cockpitToken)).toBe(false);
    expect(JSON.stringify(process.env)).not.toContain(cockpitToken);
  });
});

describe('the person at the cockpit', () => {
  it('decides with the cockpit credential from a browser origin, and the proxy gets its answer', async () => {
    const s = await scene();
    const ws = new WebSocket(s.runtime.cockpit!.wsUrl, { origin: new URL(s.runtime.cockpit!.url).origin });
    sockets.push(ws);
    const frames: Array<{ type: string; id?: number; result?: { ok: boolean } }> = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'auth', token: s.runtime.cockpit!.token }));
    await expect.poll(() => frames.some((f) => f.type === 'ready')).toBe(true);
    ws.send(JSON.stringify({ type: 'call', id: 1, name: 'review.decide', args: { id: s.cardId, choice: 'deny' } }));
    ws.send(JSON.stringify({ type: 'call', id: 2, name: 'review.decide', args: { id: s.toolChangeId, choice: 'approve' } }));
    await expect.poll(() => frames.filter((f) => f.type === 'result').map((f) => [f.id, f.result?.ok])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(await s.pendingToolCall).toMatchObject({ outcome: 'deny' });
    expect(events(s.runtime, 'control.decision_refused')).toEqual([]);
  });
});
