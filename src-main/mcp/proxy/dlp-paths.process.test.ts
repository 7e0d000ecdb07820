import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateMessageRequestSchema, ElicitRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import { useTempDirs } from '../../testing/temp.js';
import { createTestHome, SERVERS, startInProcessProxy, writePolicy, type InProcessProxy } from '../testing/proxy-harness.js';
import { ScriptedApprover } from '../testing/test-approver.js';

/* DLP everywhere a secret can hide: secrets as object keys, as JSON numbers, and in the client's answers to server requests. */

const tempDir = useTempDirs('silas-dlp-paths-');
const running: InProcessProxy[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.close().catch(() => undefined);
});

const AWS = 'AKIAABCDEFGHIJKLMNOP';
const CARD = 4111111111111111;
const dlp = (onMatch: 'redact' | 'block') =>
  `  allowed_tools: [leak_shapes, echo_shapes, ask_user, ask_model]\n  dlp:\n    scan_requests: true\n    on_request_match: ${onMatch}\n    patterns:\n      - name: AWS Key\n        regex: "AKIA[0-9A-Z]{16}"\n      - name: Credit Card\n        regex: '\\b(?:\\d{4}[- ]?){3}\\d{4}\\b'\n`;

async function start(onMatch: 'redact' | 'block') {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const received = join(dir, 'received.log');
  const proxy = await startInProcessProxy({
    home: home.home,
    policy: writePolicy(dir, dlp(onMatch)),
    server: SERVERS.elicits,
    approver: new ScriptedApprover(() => ({ outcome: 'deny', reason: 'no' })),
    env: { MCP_RECEIVED_LOG: received },
    capabilities: { elicitation: {}, sampling: {} },
  });
  running.push(proxy);
  proxy.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { token: AWS, [AWS]: 'key', pin: CARD } }));
  proxy.client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: `my key is ${AWS}` } }));
  const ledger = (): AuditEntry[] => {
    const open = home.open();
    try {
      expect(open.audit.verifyChain()).toMatchObject({ valid: true });
      return [...open.audit.since()];
    } finally {
      open.close();
    }
  };
  return { proxy, serverSaw: () => readFileSync(received, 'utf8'), ledger };
}

const dlpEntries = (entries: AuditEntry[], source: string) => entries.filter((e) => e.event === 'aip.dlp' && e.data.source === source).map((e) => e.data);

describe('DLP on keys, numbers and client responses', () => {
  it('redacts a secret sent as a key or a number in request arguments and in a result', async () => {
    const { proxy, serverSaw, ledger } = await start('redact');
    const echoed = await proxy.client.callTool({ name: 'echo_shapes', arguments: { [AWS]: 'as a key', card: CARD } });
    expect(JSON.parse((echoed.content as { text: string }[])[0]!.text)).toEqual({ '[REDACTED:AWS Key]': 'as a key', card: '[REDACTED:Credit Card]' });
    const leaked = await proxy.client.callTool({ name: 'leak_shapes', arguments: {} });
    expect(leaked.structuredContent).toEqual({ '[REDACTED:AWS Key]': 'as a key', card: '[REDACTED:Credit Card]' });
    expect(serverSaw()).not.toContain(AWS);
    expect(serverSaw()).not.toContain(String(CARD));
    const entries = ledger();
    expect(JSON.stringify(entries)).not.toContain(AWS);
    expect(dlpEntries(entries, 'request')[0]).toMatchObject({ direction: 'upstream', tool: 'echo_shapes', action: 'redact', rules: [{ rule: 'AWS Key', count: 1 }, { rule: 'Credit Card', count: 1 }] });
    expect(dlpEntries(entries, 'result')[0]).toMatchObject({ direction: 'downstream', tool: 'leak_shapes', rules: [{ rule: 'AWS Key', count: 1 }, { rule: 'Credit Card', count: 1 }] });
  });

  it('blocks a request whose secret is only in a key or only in a number', async () => {
    const { proxy, serverSaw } = await start('block');
    for (const args of [{ [AWS]: 'x' }, { nested: { card: CARD } }]) {
      await expect(proxy.client.callTool({ name: 'echo_shapes', arguments: args })).rejects.toBeInstanceOf(McpError);
    }
    expect(serverSaw()).not.toContain('echo_shapes');
  });

  it("redacts the client's elicitation and sampling answers before the server sees them, and audits it", async () => {
    const { proxy, serverSaw, ledger } = await start('redact');
    expect(await proxy.client.callTool({ name: 'ask_user', arguments: {} })).toMatchObject({ content: [{ text: 'elicited accept' }] });
    expect(await proxy.client.callTool({ name: 'ask_model', arguments: {} })).toMatchObject({ content: [{ text: 'sampled m' }] });
    const saw = serverSaw();
    expect(saw).not.toContain(AWS);
    expect(saw).not.toContain(String(CARD));
    expect(saw).toContain('"token":"[REDACTED:AWS Key]"');
    expect(saw).toContain('my key is [REDACTED:AWS Key]');
    expect(dlpEntries(ledger(), 'client_response')).toEqual([
      expect.objectContaining({ direction: 'upstream', action: 'redact', rules: [{ rule: 'AWS Key', count: 2 }, { rule: 'Credit Card', count: 1 }] }),
      expect.objectContaining({ direction: 'upstream', action: 'redact', rules: [{ rule: 'AWS Key', count: 1 }] }),
    ]);
  });

  it('with on_request_match: block, the server gets an error instead of the answer', async () => {
    const { proxy, serverSaw, ledger } = await start('block');
    const result = await proxy.client.callTool({ name: 'ask_user', arguments: {} }).catch((error: unknown) => error);
    expect(JSON.stringify(result)).toMatch(/Forbidden|-32001/);
    expect(serverSaw()).not.toContain(AWS);
    expect(serverSaw()).toContain('"code":-32001');
    expect(dlpEntries(ledger(), 'client_response')).toEqual([expect.objectContaining({ action: 'block', rules: [{ rule: 'AWS Key', count: 2 }, { rule: 'Credit Card', count: 1 }] })]);
  });
});
