import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { connectThroughProxy, createTestHome, spawnProxy, verifiedEntries, SERVERS, writePolicy, type ProxiedClient, type TestHome } from '../testing/proxy-harness.js';
import { useTempDirs } from '../../testing/temp.js';
import { rpcError } from '../testing/rpc-error.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { toolPinSealer } from '../tool-pin-seals.js';
import { toolDefinitionHash } from '../../aip/policy/definition-hash.js';

/*
 * Offer only what may run (docs/mcp-proxy.md "What tools/list offers"), met as an agent meets it:
 * the MCP SDK's Client lists the tools of a server through `silas proxy`, over two pages. A tool
 * the policy blocks outright is not offered (and still refused when called), a tool that asks
 * says so, the rest is offered exactly as announced, and the pins cover every announced tool.
 */

/** The words that begin an asking tool's description (written out: they are what the agent reads). */
const ASK_MARK = '(Silas asks the person before this tool runs)';

const tempDir = useTempDirs('silas-tools-offer-');
const open: ProxiedClient[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
});

const schema = { type: 'object' as const, properties: { path: { type: 'string' } } };
/** What the paged server announces (servers/paged-tools-server.mjs), page by page. */
const announced = (name: string, description: string): Tool => ({ name, description, inputSchema: schema });
const PAGE_1 = [announced('read_file', 'Read a file'), announced('delete_file', 'Delete a file'), announced('write_file', 'Write a file')];
const PAGE_2 = [announced('fetch', 'Fetch a URL'), announced('shell', 'Run a command'), announced('echo', 'Echo the message')];

const RULES = [
  '  allowed_tools: [read_file, echo]',
  '  tool_rules:',
  '    - tool: delete_file',
  '      action: block',
  '    - tool: write_file',
  '      action: ask',
  // Allowed only with an https URL: decided by its arguments, so it stays on offer.
  '    - tool: fetch',
  '      allow_args:',
  '        url: "^https://"',
  '',
].join('\n');

async function start(spec: string) {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const received = join(dir, 'received.log');
  const policy = writePolicy(dir, spec);
  const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVERS.paged, extra: ['--name', 'paged'], env: { MCP_RECEIVED_LOG: received } });
  open.push(proxied);
  const callsReceived = () =>
    readFileSync(received, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"tools/call"'));
  return { dir, home, policy, client: proxied.client, callsReceived };
}

/** Both pages as the client sees them, following nextCursor. */
async function listAll(client: ProxiedClient['client']): Promise<{ pages: Tool[][]; cursors: Array<string | undefined> }> {
  const first = await client.listTools();
  const second = await client.listTools({ cursor: first.nextCursor! });
  return { pages: [first.tools, second.tools], cursors: [first.nextCursor, second.nextCursor] };
}

function pinned(home: TestHome): Map<string, string | null> {
  const ledger = home.open();
  try {
    return new Map(new ToolPinRepository(ledger.db, toolPinSealer(ledger.seals)).list('paged').map((pin) => [pin.tool, pin.approvedHash]));
  } finally {
    ledger.close();
  }
}

describe('tools/list through the proxy offers only what may run', () => {
  it('leaves out blocked tools, marks the asking one, keeps allowed and argument-ruled tools as announced, over both pages; the pins cover every tool', async () => {
    const { home, client, callsReceived } = await start(RULES);
    const { pages, cursors } = await listAll(client);

    expect(cursors).toEqual(['page-2', undefined]);
    expect(pages[0]).toEqual([PAGE_1[0], { ...PAGE_1[2], description: `${ASK_MARK} Write a file` }]);
    expect(pages[1]).toEqual([PAGE_2[0], PAGE_2[2]]);

    // Calling a tool that was not offered is refused as before, audited, and never reaches the server.
    expect(await rpcError(client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } }))).toEqual({ code: -32001, message: 'Forbidden', data: { tool: 'delete_file', reason: 'Tool blocked by policy rule' } });
    expect(await rpcError(client.callTool({ name: 'shell', arguments: { path: 'ls' } }))).toMatchObject({ code: -32001, data: { tool: 'shell', reason: 'Tool not in allowed_tools list' } });
    expect(await client.callTool({ name: 'echo', arguments: {} })).toMatchObject({ content: [{ text: 'ran echo' }] });
    expect(callsReceived()).toHaveLength(1);
    const decisions = verifiedEntries(home).filter((e) => e.event === 'aip.decision' && e.data.method === 'tools/call');
    expect(decisions.map((e) => [e.data.tool, e.data.decision, e.data.error_code ?? null])).toEqual([
      ['delete_file', 'BLOCK', -32001],
      ['shell', 'BLOCK', -32001],
      ['echo', 'ALLOW', null],
    ]);

    // Pinned: every announced tool, by the definition as the server announced it (never the marked one).
    const pins = pinned(home);
    expect([...pins.keys()].sort()).toEqual(['delete_file', 'echo', 'fetch', 'read_file', 'shell', 'write_file']);
    for (const tool of [...PAGE_1, ...PAGE_2]) expect(pins.get(tool.name), tool.name).toBe(toolDefinitionHash(tool));
  });

  it('x-silas-tools-list restores the full list exactly as announced; the blocked tool stays refused', async () => {
    const { client, callsReceived } = await start(`${RULES}  x-silas-tools-list:\n    blocked: list\n    ask: plain\n`);
    const { pages } = await listAll(client);
    expect(pages).toEqual([PAGE_1, PAGE_2]);
    expect(await rpcError(client.callTool({ name: 'delete_file', arguments: { path: '/tmp/x' } }))).toMatchObject({ code: -32001 });
    expect(callsReceived()).toEqual([]);
  });

  it('a policy reload that changes the offer tells the client (notifications/tools/list_changed) and applies to the next list', async () => {
    const { dir, home, client } = await start(RULES);
    expect((await listAll(client)).pages.flat().map((t) => t.name)).toEqual(['read_file', 'write_file', 'fetch', 'echo']);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));

    // The owner now allows shell and wants the blocked tools listed (signed and put in force).
    writePolicy(dir, `${RULES.replace('[read_file, echo]', '[read_file, echo, shell]')}  x-silas-tools-list:\n    blocked: list\n`, 'policy.yaml', { home });
    await changed;
    const { pages } = await listAll(client);
    expect(pages.flat().map((t) => t.name)).toEqual(['read_file', 'delete_file', 'write_file', 'fetch', 'shell', 'echo']);
    expect(pages[0]![2]!.description).toBe(`${ASK_MARK} Write a file`);
  });

  it('a policy with a wrong value does not start, and says which field and what it may be', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const policy = writePolicy(dir, `${RULES}  x-silas-tools-list:\n    blocked: hide\n`);
    const proxy = spawnProxy(['--policy', policy, '--home', home.home, '--', process.execPath, SERVERS.paged]);
    // The client is answered with the reason (docs/mcp-proxy.md "Starting under any client"); the proxy leaves when it closes.
    let answer = '';
    proxy.child.stdout!.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    proxy.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } })}\n`);
    await expect.poll(() => answer, { timeout: 10_000 }).toContain('"id":0');
    expect(JSON.parse(answer.trim()).error.message).toMatch(/did not start .*the policy is invalid: .*spec\.x-silas-tools-list\.blocked/);
    proxy.child.stdin!.end();
    const code = await new Promise<number | null>((resolve) => proxy.child.on('exit', resolve));
    expect(code).toBe(1);
    expect(proxy.stderr()).toMatch(/spec\.x-silas-tools-list\.blocked: expected one of "omit", "list", got "hide"/);
  });
});
