import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectThroughProxy, createTestHome, verifiedEntries, writePolicy, type ProxiedClient } from '../testing/proxy-harness.js';
import { useTempDirs } from '../../testing/temp.js';
import { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, probeBubblewrap } from '../../sandbox/bubblewrap.js';

// docs/mcp-sandbox.md, "Refusals in the ledger": a sandboxed server retrying refused hosts in a
// loop gets one entry per host and window with a count, not one entry per attempt; nothing is lost.

const HOSTILE = fileURLToPath(new URL('../testing/servers/hostile-server.mjs', import.meta.url));
const tempDir = useTempDirs('silas-egress-flood-');
const open: ProxiedClient[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
});

beforeAll(async () => {
  const availability = await probeBubblewrap(DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH);
  expect(availability, 'bubblewrap must be installed and able to create namespaces (apt-get install bubblewrap)').toMatchObject({ available: true });
});

describe('refused egress in the ledger', () => {
  it('hundreds of refused CONNECTs from a sandboxed server become a handful of entries whose counts sum to the attempts; the first of each host is recorded at once', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const policy = writePolicy(dir, '  allowed_tools: [egress_flood]\n  x-silas-sandbox:\n    network:\n      mode: hosts\n      hosts: ["api.allowed.test"]\n');
    const proxied = await connectThroughProxy({ home: home.home, policy, server: HOSTILE, serverArgs: [Buffer.from('{}').toString('base64')], sandbox: true, env: { HOME: dir } });
    open.push(proxied);
    const flood = async (host: string, port: number, times: number) => {
      const result = (await proxied.client.callTool({ name: 'egress_flood', arguments: { host, port, times } })) as { content: { text: string }[] };
      return JSON.parse(result.content[0]!.text) as { ok: boolean; detail: string };
    };
    expect(await flood('exfil.example.com', 443, 300)).toEqual({ ok: true, detail: '300' });
    // The first refusal of a host is in the ledger while the server is still running.
    const during = verifiedEntries(home).filter((e) => e.event === 'mcp.sandbox_denied');
    expect(during).toEqual([expect.objectContaining({ data: expect.objectContaining({ host: 'exfil.example.com', port: 443, count: 1 }) })]);
    expect(await flood('other.example.com', 8443, 100)).toEqual({ ok: true, detail: '100' });
    await open.pop()!.close();

    // The window's counts are flushed when the proxy stops.
    const denied = verifiedEntries(home).filter((e) => e.event === 'mcp.sandbox_denied');
    expect(denied.length).toBeLessThanOrEqual(4);
    const sum = (host: string) => denied.filter((e) => e.data.host === host).reduce((total, e) => total + (e.data.count as number), 0);
    expect(sum('exfil.example.com')).toBe(300);
    expect(sum('other.example.com')).toBe(100);
    for (const entry of denied.filter((e) => (e.data.count as number) > 1)) {
      expect(entry.data).toMatchObject({ kind: 'connect', window_start: expect.any(String), window_ms: expect.any(Number), reason: expect.stringContaining('x-silas-sandbox.network.hosts') });
    }
  }, 120_000);
});
