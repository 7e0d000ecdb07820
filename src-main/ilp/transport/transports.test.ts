import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IlpAgent } from '../agents/agent.js';
import { remoteAgent } from '../agents/remote-agent.js';
import { decompose, insight, synthesis } from '../testing/fake-model.js';
import { testComposition } from '../testing/composition.js';
import { ilpHttpServer, socketExchange } from '../testing/transports.js';
import { IlpSocketServer } from './socket-server.js';

/*
 * Both transports (docs/ilp.md "Transports"): every status code of §3.3 produced by a real request
 * over HTTP and over the socket, a remote specialist on another loopback port composed like a local
 * one, and the attacker's side of each transport.
 */

const TOKEN = 'ilp-test-token';
const broken: IlpAgent = { id: 'broken-agent', domain: 'broken', kind: 'specialist', description: 'fails', answer: () => Promise.reject(new Error('boom')) };
const good = { answer: 'Homeostasis keeps a budget near its set point.', concepts: ['homeostasis'], confidence: 0.9, reasoning: 'Compared the budget with a regulated biological variable and its feedback.' };
const limits = (extra: Record<string, unknown> = {}) => JSON.stringify({ domain: 'meta', depth: 0, budget_usd: 0, ...extra });

/** One request per status code: method, agent, header fields, body. */
const CASES: { status: number; method: string; agent: string; header: string | null; body: unknown; principle?: string }[] = [
  { status: 200, method: 'VALIDATE', agent: 'meta-agent', header: limits(), body: { response: good } },
  { status: 207, method: 'VALIDATE', agent: 'meta-agent', header: limits({ require_reasoning_trace: false }), body: { response: { ...good, reasoning: 'short' } } },
  { status: 400, method: 'THINK', agent: 'meta-agent', header: null, body: { query: 'q' } },
  { status: 403, method: 'VALIDATE', agent: 'meta-agent', header: limits(), body: { response: { ...good, confidence: 0.4 } }, principle: 'epistemic_honesty' },
  { status: 409, method: 'VALIDATE', agent: 'meta-agent', header: limits(), body: { response: good, context: { previous_agents: ['a', 'a'], agent: 'a' } }, principle: 'loop_prevention' },
  { status: 429, method: 'VALIDATE', agent: 'meta-agent', header: limits({ max_depth: 3 }), body: { response: good, context: { depth: 3 } }, principle: 'recursion_budget' },
  { status: 451, method: 'TRANSLATE', agent: 'meta-agent', header: limits(), body: { from: 'finance', to: 'medicine', concepts: ['dose'] }, principle: 'domain_boundary' },
  { status: 500, method: 'THINK', agent: 'broken-agent', header: limits(), body: { query: 'anything' } },
  { status: 503, method: 'THINK', agent: 'no-such-agent', header: limits(), body: { query: 'anything' } },
];

let dir: string;
let http: Awaited<ReturnType<typeof ilpHttpServer>>;
let socket: IlpSocketServer;
let socketPath: string;
const composition = testComposition({ enforcer: { forbiddenTranslations: [{ from: 'finance', to: 'medicine' }] }, extra: [broken] });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ilp-transport-'));
  socketPath = join(dir, 'ilp.sock');
  http = await ilpHttpServer(composition.service, TOKEN);
  socket = new IlpSocketServer({ path: socketPath, token: TOKEN, handler: composition.service });
  await socket.start();
});
afterAll(async () => {
  await http.close();
  await socket.close();
  rmSync(dir, { recursive: true, force: true });
});

const postIlp = (agent: string, method: string, headers: Record<string, string>, body: unknown, extra: Record<string, string> = { Authorization: `Bearer ${TOKEN}` }) =>
  fetch(`${http.url}/ilp/${agent}/insight`, { method: 'POST', headers: { 'ILP-Method': method, 'Content-Type': 'application/json', ...headers, ...extra }, body: typeof body === 'string' ? body : JSON.stringify(body) });

function socketText(c: (typeof CASES)[number]): string {
  const body = JSON.stringify(c.body);
  const head = [`${c.method} /insight ILP/1.0`, `Authorization: Bearer ${TOKEN}`, `ILP-Agent: ${c.agent}`, ...(c.header ? [`Constitutional-Header: ${c.header}`] : []), 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
  return `${head.join('\n')}\n\n${body}`;
}

describe('every status code over both transports', () => {
  it.each(CASES)('$status over HTTP ($method to $agent)', async (c) => {
    const res = await postIlp(c.agent, c.method, c.header ? { 'Constitutional-Header': c.header } : {}, c.body);
    expect(res.status).toBe(c.status);
    const body = (await res.json()) as { error?: { principle_id?: string }; violations?: { principle: string }[] };
    if (c.principle) expect(body.error?.principle_id ?? body.violations?.[0]?.principle).toBe(c.principle);
  });

  it.each(CASES)('$status over the socket ($method to $agent)', async (c) => {
    const [response] = await socketExchange(socketPath, socketText(c));
    expect(response).toMatch(new RegExp(`^ILP/1\\.0 ${c.status} `));
    if (c.principle) expect(response).toMatch(new RegExp(`"principle(_id)?":"${c.principle}"`));
  });

  it('answers several requests on one socket connection in order', async () => {
    const responses = await socketExchange(socketPath, `${socketText(CASES[0]!)}\n${socketText(CASES[3]!)}`, 2);
    expect(responses.map((r) => r.slice(0, 15))).toEqual(['ILP/1.0 200 OK\n', 'ILP/1.0 403 For']);
  });
});

describe('a remote specialist on another loopback port', () => {
  it('is composed like a local one, and one that cannot be reached is a 503 hop the composition survives', async () => {
    const remoteSide = testComposition();
    const remoteHttp = await ilpHttpServer(remoteSide.service, 'remote-token');
    try {
      const systems = remoteAgent({ id: 'remote-systems', domain: 'control', description: 'Control theory, remotely.', url: `${remoteHttp.url}/ilp/systems-agent`, bearer: () => 'remote-token' });
      const gone = remoteAgent({ id: 'remote-gone', domain: 'gone', description: 'Unreachable.', url: 'http://127.0.0.1:9/ilp/x', timeoutMs: 2000 });
      const local = testComposition({ extra: [systems, gone] });
      local.model.reply(decompose('finance', 'control', 'gone'), insight('Track spending daily.'), synthesis());
      remoteSide.model.reply(insight('Sense, compare, correct.', { sources: ['feedback-loops'] }));
      const res = await fetch(`${await startedHttp(local.service)}/ilp/meta-agent/insight`, { method: 'POST', headers: { 'ILP-Method': 'THINK', Authorization: `Bearer ${TOKEN}`, 'Constitutional-Header': limits(), 'Attention-Enabled': 'true', 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'How can I stabilize my spending?' }) });
      const answer = (await res.json()) as { sources: string[] };
      expect(res.status, JSON.stringify(answer)).toBe(200);
      const hops = local.completed[0]!.hops.slice(1);
      expect(hops.map((h) => [h.agent, h.kind, h.status])).toEqual([
        ['finance-agent', 'specialist', 200],
        ['remote-systems', 'remote', 200],
        ['remote-gone', 'remote', 503],
      ]);
      expect(answer.sources).toContain('feedback-loops');
      // The remote side recorded its own hop, joined to nothing of ours but the message.
      expect(remoteSide.completed[0]!.hops[0]!.request_text).toContain('"domain":"systems","depth":1');
    } finally {
      await remoteHttp.close();
      await closeStarted();
    }
  });
});

describe('the attacker\'s side of the transports', () => {
  it('refuses a request without the runtime\'s credential, and one from a foreign Origin', async () => {
    expect((await postIlp('meta-agent', 'VALIDATE', { 'Constitutional-Header': limits() }, { response: good }, {})).status).toBe(401);
    expect((await postIlp('meta-agent', 'VALIDATE', { 'Constitutional-Header': limits() }, { response: good }, { Authorization: `Bearer ${TOKEN}`, Origin: 'https://evil.example' })).status).toBe(403);
    const [response] = await socketExchange(socketPath, socketText(CASES[0]!).replace(`Bearer ${TOKEN}`, 'Bearer wrong'));
    expect(response).toMatch(/^ILP\/1\.0 400 [^\n]*\n[\s\S]*Authorization/);
  });

  it('refuses a header that lies about the budget, and an oversized body', async () => {
    const negative = await postIlp('meta-agent', 'THINK', { 'Constitutional-Header': limits({ budget_usd: -1 }) }, { query: 'q' });
    expect(negative.status).toBe(400);
    expect(await negative.text()).toContain('Constitutional-Header.budget_usd');
    const spent = await postIlp('finance-agent', 'THINK', { 'Constitutional-Header': limits({ budget_usd: 0.01 }) }, { query: 'q', context: { cost_so_far: 0.5 } });
    expect(await spent.text()).toContain('below context.cost_so_far');
    expect((await postIlp('meta-agent', 'THINK', { 'Constitutional-Header': limits() }, 'x'.repeat(4 * 1024 * 1024 + 1))).status).toBe(413);
  });

  it('never reads a second message smuggled inside a header', async () => {
    const smuggled = `THINK /insight ILP/1.0\nAuthorization: Bearer ${TOKEN}\nConstitutional-Header: {"domain":"meta",\n\nTRACE /export ILP/1.0\nQuery-ID: x\n\n`;
    const responses = await socketExchange(socketPath, smuggled, 2);
    expect(responses[0]).toMatch(/^ILP\/1\.0 400 /);
    expect(responses.join('')).not.toContain('vnd.ilp.attention');
  });

  it('keeps the credential out of what is recorded', async () => {
    composition.model.reply(insight('Direct answer.'));
    const text = socketText({ status: 200, method: 'THINK', agent: 'finance-agent', header: limits(), body: { query: 'direct' } });
    await socketExchange(socketPath, text);
    expect(JSON.stringify(composition.completed.at(-1))).not.toContain(TOKEN);
  });
});

let started: Awaited<ReturnType<typeof ilpHttpServer>> | null = null;
async function startedHttp(service: Parameters<typeof ilpHttpServer>[0]): Promise<string> {
  started = await ilpHttpServer(service, TOKEN);
  return started.url;
}
async function closeStarted(): Promise<void> {
  await started?.close();
  started = null;
}
