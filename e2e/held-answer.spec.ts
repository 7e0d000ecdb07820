import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectThroughProxy, exportedAudit, rpcError, textOf, writePolicy, type ProxiedClient } from './fixtures/mcp-proxy.js';
import { REPO_ROOT } from './fixtures/silas-runtime.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/** A real MCP server whose read_page answers with injected instructions (docs/threat-detection.md). */
const THREATS_SERVER = join(REPO_ROOT, 'src-main', 'mcp', 'testing', 'servers', 'threats-server.mjs');
const POLICY = '  allowed_tools: [read_page]\n  x-silas-threats:\n    results: ask\n';
const INJECTED = { name: 'read_page', arguments: { url: 'https://news.example.com/a' } };

test.describe('a server answer carrying injected instructions, held for the person (results: ask)', () => {
  let proxied: ProxiedClient | null = null;
  let dir = '';
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'silas-e2e-held-'));
  });
  test.afterEach(async () => {
    await proxied?.close().catch(() => undefined);
    proxied = null;
    rmSync(dir, { recursive: true, force: true });
  });

  test('the card reads as an answer with what was found; withheld, the agent gets -32004; let through, the answer as the server sent it', async ({ page, silas, browserProblems }) => {
    proxied = await connectThroughProxy(silas, { name: 'web', policy: writePolicy(dir, 'web-policy', POLICY), server: THREATS_SERVER });
    const { client } = proxied;
    await openCockpit(page, silas);
    await mainNav(page).getByRole('link', { name: /^Review/ }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Review' })).toBeVisible();

    const refused = rpcError(client.callTool(INJECTED));
    const card = page.getByRole('article', { name: 'Held answer: read_page on web' });
    await expect(card.getByRole('heading', { name: 'Let the answer of read_page on web reach the agent?' })).toBeVisible();
    await expect(card.getByText('High risk')).toBeVisible();
    await expect(card).toContainText('not yet seen by the agent');
    await expect(card.getByRole('list', { name: 'Findings' }).locator('mark').first()).not.toBeEmpty();
    // One answer, once: no standing approval is offered for it.
    await expect(card.getByRole('button', { name: /always/i })).toHaveCount(0);
    await card.getByRole('button', { name: 'Withhold it' }).click();
    const error = await refused;
    expect(error.code).toBe(-32004);
    expect(JSON.stringify(error)).not.toContain('SYSTEM NOTE');

    const allowed = client.callTool(INJECTED);
    await card.getByRole('button', { name: 'Let it through' }).click();
    expect(textOf(await allowed)).toContain('SYSTEM NOTE FOR THE AI ASSISTANT');
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    const held = (await exportedAudit(silas)).filter((e) => e.event === 'aip.decision' && e.direction === 'downstream' && e.tool === 'read_page');
    expect(held.map((e) => [e.decision, e.approval ?? null])).toEqual([
      ['ASK', null],
      ['BLOCK', 'deny'],
      ['ASK', null],
      ['ALLOW', 'approve'],
    ]);
    const verify = await silas.cli('audit', 'verify');
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(browserProblems).toEqual([]);
  });
});
