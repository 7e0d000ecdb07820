import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { createTestHome, SERVERS, startInProcessProxy, writePolicy, type InProcessProxy } from '../testing/proxy-harness.js';
import { ScriptedApprover } from '../testing/test-approver.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { toolPinSealer } from '../tool-pin-seals.js';
import { rpcError } from '../testing/rpc-error.js';

/* Tool pins by normalised name: a hostile server re-announces a pinned tool under a name that normalises alike. */

const tempDir = useTempDirs('silas-variants-');
const running: InProcessProxy[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.close().catch(() => undefined);
});

async function start(mode: 'case' | 'zero-width' | 'both') {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const received = join(dir, 'received.log');
  const policy = writePolicy(dir, '  allowed_tools: [fetch]\n');
  const approver = new ScriptedApprover(() => ({ outcome: 'deny', reason: 'no' }));
  const proxy = await startInProcessProxy({ home: home.home, policy, server: SERVERS.variants, approver, env: { VARIANT_MODE: mode, MCP_RECEIVED_LOG: received } });
  running.push(proxy);
  const events = () => {
    const ledger = home.open();
    try {
      expect(ledger.audit.verifyChain()).toMatchObject({ valid: true });
      return [...ledger.audit.since()];
    } finally {
      ledger.close();
    }
  };
  const toolCallsReceived = () =>
    readFileSync(received, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"tools/call"'));
  return { home, proxy, events, toolCallsReceived };
}

describe('tool pins hold against name variants', () => {
  for (const [mode, variant] of [
    ['case', 'Fetch'],
    ['zero-width', 'fetch\u200b'],
  ] as const) {
    it(`a poisoned ${JSON.stringify(variant)} is the pinned fetch changed: hidden, its call refused, and audited`, async () => {
      const { home, proxy, events, toolCallsReceived } = await start(mode);
      expect((await proxy.client.listTools()).tools.map((t) => t.name)).toEqual(['fetch']);
      expect((await proxy.client.listTools()).tools).toEqual([]);
      expect(await rpcError(proxy.client.callTool({ name: variant, arguments: { url: 'https://example.com' } }))).toMatchObject({ code: -32013 });
      expect(toolCallsReceived()).toEqual([]);
      const log = events();
      expect(log.filter((e) => e.event === 'mcp.tool_pinned').map((e) => e.data.tool)).toEqual(['fetch']);
      expect(log.find((e) => e.event === 'mcp.tool_changed')).toMatchObject({ data: { tool: 'fetch', announced_name: variant } });
      expect(log.filter((e) => e.event === 'aip.decision' && e.data.method === 'tools/call').map((e) => [e.data.decision, e.data.error_code])).toEqual([['BLOCK', -32013]]);
      const pins = home.open();
      try {
        expect(new ToolPinRepository(pins.db, toolPinSealer(pins.seals)).list('files').map((p) => p.tool)).toEqual(['fetch']);
      } finally {
        pins.close();
      }
    });
  }

  it('a tools/list in which two names normalise alike is refused and audited', async () => {
    const { proxy, events, toolCallsReceived } = await start('both');
    await proxy.client.listTools();
    expect(await rpcError(proxy.client.listTools())).toMatchObject({ code: -32013, data: { names: ['fetch', 'Fetch'] } });
    // The pinned fetch still works by its exact announced name; its variant never reaches the server.
    expect(await rpcError(proxy.client.callTool({ name: 'Fetch', arguments: { url: 'https://example.com' } }))).toMatchObject({ code: -32013 });
    expect(toolCallsReceived()).toEqual([]);
    expect(events().find((e) => e.event === 'mcp.tools_list_refused')).toMatchObject({ data: { names: ['fetch', 'Fetch'], normalized: 'fetch' } });
  });

  it('the legitimate path: the announced fetch is pinned once and callable by its exact name', async () => {
    const { proxy, toolCallsReceived } = await start('case');
    await proxy.client.listTools();
    expect(await proxy.client.callTool({ name: 'fetch', arguments: { url: 'https://example.com' } })).toMatchObject({ content: [{ text: 'ran "fetch"' }] });
    expect(toolCallsReceived()).toHaveLength(1);
  });
});
