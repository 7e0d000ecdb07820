import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { createTestHome, SERVERS, startInProcessProxy, writePolicy, type InProcessProxy } from '../testing/proxy-harness.js';
import { ScriptedApprover } from '../testing/test-approver.js';

/* Notifications are judged too: a message without an id is not a way around the policy. */

const tempDir = useTempDirs('silas-idless-');
const running: InProcessProxy[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.close().catch(() => undefined);
});

describe('messages without an id', () => {
  it('an id-less tools/call for a blocked tool, and every other non-notification, never reaches the server and is audited', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const received = join(dir, 'received.log');
    const policy = writePolicy(dir, '  allowed_tools: [echo]\n  tool_rules:\n    - tool: delete_file\n      action: block\n');
    const proxy = await startInProcessProxy({ home: home.home, policy, server: SERVERS.fileTools, approver: new ScriptedApprover(() => ({ outcome: 'deny', reason: 'no' })), env: { MCP_RECEIVED_LOG: received } });
    running.push(proxy);
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');

    const hostile = [
      { method: 'tools/call', params: { name: 'delete_file', arguments: { path: victim } } },
      { method: 'TOOLS/CALL', params: { name: 'delete_file', arguments: { path: victim } } },
      { method: 'Tools/Call', params: { name: 'echo', arguments: { message: 'unaudited' } } },
      { method: 'resources/read', params: { uri: 'file:///etc/passwd' } },
      { method: 'Notifications/Initialized' },
      { method: 'notifications/tools/call', params: { name: 'delete_file', arguments: { path: victim } } },
    ];
    for (const message of hostile) proxy.raw.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    // A cancellation reaches the server only for a call the server has (docs/mcp-proxy.md "Asks follow the agent").
    proxy.raw.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99, reason: 'changed my mind' } })}\n`);
    // A request after them: once it is answered, the server has read every line before it.
    await proxy.client.listTools();
    await proxy.close();

    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    const serverSaw = readFileSync(received, 'utf8');
    for (const message of hostile) expect(serverSaw).not.toContain(`"${message.method}"`);
    // Known client notifications still pass.
    expect(serverSaw).toContain('"notifications/initialized"');
    expect(serverSaw).not.toContain('"notifications/cancelled"');

    const ledger = home.open();
    try {
      expect(ledger.audit.verifyChain()).toMatchObject({ valid: true });
      const dropped = [...ledger.audit.since()].filter((e) => e.event === 'mcp.notification_dropped');
      expect(dropped.map((e) => e.data.method)).toEqual([...hostile.map((m) => m.method), 'notifications/cancelled']);
      expect(dropped.at(-1)).toMatchObject({ data: { reason: 'no call with this requestId is in flight at the server' } });
      expect(dropped[0]).toMatchObject({ data: { server: 'files', tool: 'delete_file', reason: expect.stringContaining('not a notification') } });
    } finally {
      ledger.close();
    }
    expect(existsSync(victim)).toBe(true);
  });
});
