import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, type Ledger } from '../../app/home.js';
import { commandLineBases, PathBases } from '../../aip/evaluate/paths/path-bases.js';
import type { ToolDefinition } from '../../aip/evaluate/evaluator.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestHome, writePolicy, type TestHome } from '../testing/proxy-harness.js';
import { never, ScriptedApprover, signApprovalFor } from '../testing/test-approver.js';
import { toolPinSealer } from '../tool-pin-seals.js';
import { ApprovalConsumer } from './approval-consumer.js';
import type { ApprovalRequest } from './approver.js';
import { PolicySource } from './policy-source.js';
import { ProxyAudit } from './proxy-audit.js';
import { ProxySession } from './session.js';
import type { ClientSendOptions, ClientSide, ServerExit, ServerSide } from './transport.js';

/*
 * The seam between the proxy's session and its transports (docs/mcp-proxy.md "Transports"): a
 * session over an in-memory client side and server side, no process and no stream, relays and
 * decides as `silas proxy` does, and every line to the client names the request it belongs to.
 */

const tempDir = useTempDirs('silas-session-');
const opened: Ledger[] = [];
afterEach(() => {
  for (const ledger of opened.splice(0)) ledger.close();
});

const POLICY = '  allowed_tools: [echo, slow]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n';

type Message = { id?: string | number; method?: string; params?: Record<string, unknown> };

/** The agent's side in memory: what the session sent, each with its related request. */
class MemoryClient implements ClientSide {
  onLine?: (line: string) => void;
  onBatch?: (deliver: () => void) => void;
  onFramingError?: (reason: string) => void;
  onClose?: () => void;
  readonly sent: { message: Record<string, unknown>; relatedRequestId: string | number | undefined }[] = [];
  started = false;
  closed = false;

  start(): void {
    this.started = true;
  }
  send(line: string, options: ClientSendOptions): void {
    this.sent.push({ message: JSON.parse(line) as Record<string, unknown>, relatedRequestId: options.relatedRequestId });
  }
  close(): void {
    this.closed = true;
  }
  /** Lines that arrive together, as one chunk of input. */
  deliver(...messages: object[]): void {
    this.onBatch!(() => {
      for (const m of messages) this.onLine!(JSON.stringify({ jsonrpc: '2.0', ...m }));
    });
  }
  answerTo(id: string | number) {
    return this.sent.find((s) => s.message.id === id && !('method' in s.message));
  }
}

const TOOLS = ['echo', 'slow', 'delete_file', 'write_file'].map((name) => ({ name, description: `${name} tool`, inputSchema: { type: 'object' } }));

/** A scripted MCP server in memory: answers at once, except `slow`, which it never answers. */
class MemoryServer implements ServerSide {
  onLine?: (line: string) => void;
  onBatch?: (deliver: () => void) => void;
  onLog?: (line: string) => void;
  onClose?: (exit: ServerExit) => void;
  readonly received: Message[] = [];
  stopped: string[] = [];

  start(): Promise<void> {
    return Promise.resolve();
  }
  send(line: string): void {
    const message = JSON.parse(line) as Message;
    this.received.push(message);
    if (message.id === undefined || message.method === undefined) return;
    const id = message.id;
    const reply = (...out: object[]) => {
      setImmediate(() => this.onBatch!(() => out.forEach((m) => this.onLine!(JSON.stringify({ jsonrpc: '2.0', ...m })))));
    };
    if (message.method === 'initialize') return reply({ id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'memory', version: '1' } } });
    if (message.method === 'tools/list') return reply({ id, result: { tools: TOOLS } });
    const tool = message.params?.name;
    if (tool === 'slow') return;
    const token = (message.params?._meta as { progressToken?: string } | undefined)?.progressToken;
    const done = { id, result: { content: [{ type: 'text', text: `${String(tool)} done` }] } };
    reply(...(token !== undefined ? [{ method: 'notifications/progress', params: { progressToken: token, progress: 1 } }, done] : [done]));
  }
  stop(signal?: string): void {
    this.stopped.push(signal ?? 'gently');
    setImmediate(() => this.onClose!({ how: 'exited with code 0', crashed: false, record: { exit_code: 0 } }));
  }
  crash(): void {
    this.onClose!({ how: 'exited with code 1', crashed: true, record: { exit_code: 1 } });
  }
}

function fixture(home: TestHome, dir: string, approve: ConstructorParameters<typeof ScriptedApprover>[0]) {
  const ledger = openHome(home.home, { create: false, keys: 'verify', secretStore: home.secretStore });
  opened.push(ledger);
  const toolDefs = new Map<string, ToolDefinition>();
  const pathBases = new PathBases(commandLineBases(dir, []));
  const policy = new PolicySource({
    file: writePolicy(dir, POLICY),
    trustedKeys: () => ledger.trustedKeys(),
    seals: ledger.seals,
    engine: { homeDir: homedir(), cwd: dir, dataHome: home.home, pathBases, environment: {}, toolDefinition: (name) => toolDefs.get(name) ?? null },
  });
  const initial = policy.load();
  if (!initial.ok) throw new Error(`policy: ${JSON.stringify(initial.errors)}`);
  const client = new MemoryClient();
  const server = new MemoryServer();
  const approver = new ScriptedApprover(approve);
  const logs: string[] = [];
  const session = new ProxySession(
    {
      server: 'files',
      sessionId: 'session-1',
      audit: new ProxyAudit(ledger.audit, 'files', 'session-1'),
      pins: new ToolPinRepository(ledger.db, toolPinSealer(ledger.seals)),
      approvals: new ApprovalConsumer(ledger.db, ledger.audit, () => ledger.trustedKeys(), undefined),
      approver,
      askTimeoutMs: 10_000,
      progressAskTimeoutMs: 10_000,
      progressIntervalMs: 10_000,
      state: () => policy.current(),
      toolDefs,
      pathBases,
      log: (text) => logs.push(text),
    },
    client,
    server,
  );
  return { session, client, server, approver, logs };
}

function signApproval(home: TestHome, req: ApprovalRequest) {
  return Promise.resolve({ outcome: 'approve' as const, token: signApprovalFor(req, home.signer) });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

describe('ProxySession: the proxy over any client side and server side', () => {
  it('relays, decides and asks, and names the related request on every line to the client', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const { session, client, server, approver } = fixture(home, dir, (req, signal) => ((req.args as { path: string }).path === 'ok' ? signApproval(home, req) : never(req, signal)));
    const run = session.run();
    expect(client.started).toBe(true);

    client.deliver({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, { method: 'notifications/initialized' });
    await until(() => client.answerTo(1) !== undefined);
    expect(client.answerTo(1)).toMatchObject({ message: { result: { serverInfo: { name: 'memory' } } }, relatedRequestId: 1 });
    expect(server.received.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized']);

    client.deliver({ id: 2, method: 'tools/list' });
    await until(() => client.answerTo(2) !== undefined);
    // The policy's offer: write_file is not allowed, so it is not offered.
    const offered = (client.answerTo(2)!.message.result as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(offered).toEqual(['echo', 'slow', 'delete_file']);
    expect(client.answerTo(2)!.relatedRequestId).toBe(2);

    // Allowed: relayed to the server; its progress on the call and its answer belong to request 3.
    client.deliver({ id: 3, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { progressToken: 'p3' } } });
    await until(() => client.answerTo(3) !== undefined);
    expect(client.sent.find((s) => s.message.method === 'notifications/progress')).toMatchObject({ message: { params: { progressToken: 'p3' } }, relatedRequestId: 3 });
    expect(client.answerTo(3)).toMatchObject({ message: { result: { content: [{ text: 'echo done' }] } }, relatedRequestId: 3 });

    // Blocked: answered by the proxy, never sent to the server.
    client.deliver({ id: 4, method: 'tools/call', params: { name: 'write_file', arguments: {} } });
    await until(() => client.answerTo(4) !== undefined);
    expect(client.answerTo(4)).toMatchObject({ message: { error: { code: expect.any(Number) } }, relatedRequestId: 4 });
    expect(server.received.some((m) => m.id === 4)).toBe(false);

    // Ask: the person approves with a signed approval; only then does the call reach the server.
    client.deliver({ id: 5, method: 'tools/call', params: { name: 'delete_file', arguments: { path: 'ok' } } });
    await until(() => client.answerTo(5) !== undefined);
    expect(approver.requests.map((r) => r.requestId)).toEqual([5]);
    expect(client.answerTo(5)).toMatchObject({ message: { result: { content: [{ text: 'delete_file done' }] } }, relatedRequestId: 5 });
    expect(server.received.some((m) => m.id === 5)).toBe(true);

    // The server ends with a call in flight and a call waiting for the person: both are answered.
    client.deliver({ id: 6, method: 'tools/call', params: { name: 'slow', arguments: {} } }, { id: 'seven', method: 'tools/call', params: { name: 'delete_file', arguments: { path: 'later' } } });
    await until(() => approver.requests.length === 2 && server.received.some((m) => m.id === 6));
    server.crash();
    expect(await run).toEqual({ code: 1, reason: 'the MCP server exited with code 1' });
    for (const id of [6, 'seven']) {
      expect(client.answerTo(id)).toMatchObject({ message: { error: { code: -32603, message: 'MCP server unavailable' } }, relatedRequestId: id });
    }
    expect(approver.aborted.map((r) => r.requestId)).toContain('seven');
    expect(client.closed).toBe(true);
    expect(client.sent.every((s) => s.relatedRequestId !== undefined)).toBe(true);
  });

  it('stops the server when the client leaves, withdrawing its asks and answering nobody', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const { session, client, server, approver } = fixture(home, dir, never);
    const run = session.run();
    client.deliver({ id: 1, method: 'tools/call', params: { name: 'delete_file', arguments: { path: 'x' } } });
    await until(() => approver.requests.length === 1);
    client.onClose!();
    expect(await run).toEqual({ code: 0, reason: 'the client closed its input; the MCP server exited with code 0' });
    expect(server.stopped).toEqual(['gently']);
    expect(approver.aborted).toHaveLength(1);
    expect(client.sent).toEqual([]);
  });

  it('answers a line too long with a parse error that belongs to no request', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const { session, client, server } = fixture(home, dir, never);
    const run = session.run();
    client.onBatch!(() => client.onFramingError!('line too long'));
    await until(() => client.sent.length === 1);
    expect(client.sent[0]).toEqual({ message: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error', data: { reason: 'line too long' } } }, relatedRequestId: undefined });
    server.stop();
    await run;
  });
});
