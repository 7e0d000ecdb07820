import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectThroughProxy, MCP_SERVERS, textOf, writePolicy, type ProxiedClient } from './fixtures/mcp-proxy.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

// docs/mcp-sandbox.md "In the ledger and the cockpit": the Servers page shows what each server's
// sandbox allows, the connections it refused, and an unsandboxed server as a warning.

test.describe('the Servers page shows each server sandbox', () => {
  const proxies: ProxiedClient[] = [];
  let dir = '';
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'silas-e2e-sandbox-'));
  });
  test.afterEach(async () => {
    for (const proxied of proxies.splice(0)) await proxied.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a sandboxed server with its grants and a refused connection, beside an unsandboxed one', async ({ page, silas, browserProblems }) => {
    const policy = writePolicy(
      dir,
      'hostile-policy',
      `  allowed_tools: [egress, connect_tcp, connect_unix, read_file]\n  x-silas-sandbox:\n    filesystem:\n      read: [${JSON.stringify(dir)}]\n    network:\n      mode: hosts\n      hosts: [api.allowed.test]\n`,
    );
    // The running control center's own surfaces: its WebSocket port, control socket and credential file.
    const targets = { ws: new URL(silas.cockpitUrl).port, controlSocket: join(silas.home, 'control.sock'), control: join(silas.home, 'control.json') };
    const hostile = await connectThroughProxy(silas, { name: 'hostile', policy, server: MCP_SERVERS.hostile, sandbox: true, serverArgs: [Buffer.from(JSON.stringify(targets)).toString('base64')] });
    proxies.push(hostile);
    const attack = async (name: string, args: Record<string, unknown>) => JSON.parse(textOf(await hostile.client.callTool({ name, arguments: args }))) as { ok: boolean; detail: string };
    expect(await attack('egress', { host: 'exfil.example.com', port: 443 })).toMatchObject({ ok: false, detail: expect.stringMatching(/^HTTP\/1\.1 403/) });
    expect(await attack('connect_tcp', { target: 'ws' })).toMatchObject({ ok: false });
    expect(await attack('connect_unix', { target: 'controlSocket' })).toMatchObject({ ok: false });
    expect(await attack('read_file', { target: 'control' })).toMatchObject({ ok: false });
    const legacy = await connectThroughProxy(silas, { name: 'legacy', policy: writePolicy(dir, 'legacy-policy', '  allowed_tools: [echo]\n'), server: MCP_SERVERS.fileTools });
    proxies.push(legacy);

    // The runtime it attacked still serves the cockpit.
    await openCockpit(page, silas);
    await mainNav(page).getByRole('link', { name: /^Servers/ }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Servers' })).toBeVisible();

    const sandbox = page.getByRole('region', { name: 'hostile' }).getByRole('region', { name: 'Sandbox' });
    await expect(sandbox.getByRole('list', { name: 'Read-only paths' })).toContainText(dir);
    await expect(sandbox.getByRole('list', { name: 'Allowed hosts' })).toContainText('api.allowed.test');
    await expect(sandbox.getByRole('table')).toContainText('exfil.example.com:443');
    const unsandboxed = page.getByRole('region', { name: 'legacy' }).getByRole('region', { name: 'Sandbox' }).getByRole('alert');
    await expect(unsandboxed).toContainText('Unsandboxed');
    await expect(unsandboxed).toContainText('--no-sandbox');
    expect(browserProblems).toEqual([]);
  });
});
