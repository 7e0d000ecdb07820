import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { connectThroughProxy, exportedAudit, rpcError, textOf, writePolicy, type ProxiedClient } from './fixtures/mcp-proxy.js';
import { REPO_ROOT } from './fixtures/silas-runtime.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/** A real MCP server whose first tools/list already carries two poisoned definitions (and one honest tool). */
const POISONED_SERVER = join(REPO_ROOT, 'src-main', 'mcp', 'testing', 'servers', 'poisoned-tools-server.mjs');

async function openReview(page: Page): Promise<void> {
  await mainNav(page).getByRole('link', { name: /^Review/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Review' })).toBeVisible();
}

test.describe('a tool poisoned at first sight, decided in the cockpit', () => {
  let proxied: ProxiedClient | null = null;
  let dir = '';
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'silas-e2e-poison-'));
  });
  test.afterEach(async () => {
    await proxied?.close().catch(() => undefined);
    proxied = null;
    rmSync(dir, { recursive: true, force: true });
  });

  test('both poisoned tools are withheld; one is offered once the person allows it, the other stays blocked', async ({ page, silas, browserProblems }) => {
    const policy = writePolicy(dir, 'notebook-policy', '  allowed_tools: [add, notes, lookup]\n');
    proxied = await connectThroughProxy(silas, { name: 'notebook', policy, server: POISONED_SERVER });
    const { client } = proxied;
    const toolNames = async () => (await client.listTools()).tools.map((tool) => tool.name);
    // The first list is the first sight: the poisoned tools never reach the agent.
    expect(await toolNames()).toEqual(['add']);
    expect((await rpcError(client.callTool({ name: 'notes', arguments: { text: 'hi' } }))).code).toBe(-32013);

    await openCockpit(page, silas);
    await openReview(page);
    const notes = page.getByRole('article', { name: 'Tool change: notes on notebook' });
    const lookup = page.getByRole('article', { name: 'Tool change: lookup on notebook' });
    await expect(notes.getByRole('heading', { name: 'Allow notes on notebook, whose definition looks poisoned' })).toBeVisible();
    await expect(notes.getByText('High risk')).toBeVisible();
    // High risk opens the details: each finding with the offending text highlighted, as text.
    const findings = notes.getByRole('list', { name: 'Findings' });
    await expect(findings.getByRole('listitem').first()).toBeVisible();
    await expect(findings.locator('mark').first()).not.toBeEmpty();
    await expect(notes).toContainText('None: held the first time the server announced it');
    // Keeping it blocked is recommended and comes first.
    await expect(notes.getByRole('button').filter({ hasText: /Keep it blocked|Offer the tool/ }).first()).toHaveText(/Keep it blocked/);

    await notes.getByRole('button', { name: 'Offer the tool' }).click();
    await expect(notes).toHaveCount(0);
    // One card at a time: lookup's comes next. The invisible character hidden in its parameter's description is spelled out.
    await expect(lookup.getByRole('heading', { name: 'Allow lookup on notebook, whose definition looks poisoned' })).toBeVisible();
    await expect(lookup.getByRole('list', { name: 'Findings' })).toContainText('[U+200B]');
    await lookup.getByRole('button', { name: 'Keep it blocked' }).click();
    await expect(lookup).toHaveCount(0);
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    expect(await toolNames()).toEqual(['add', 'notes']);
    expect(textOf(await client.callTool({ name: 'notes', arguments: { text: 'hi' } }))).toBe('saved hi');
    expect((await rpcError(client.callTool({ name: 'lookup', arguments: { word: 'x' } }))).code).toBe(-32013);

    const audit = await exportedAudit(silas);
    expect(audit.filter((e) => e.event === 'mcp.tool_held').map((e) => e.tool)).toEqual(['notes', 'lookup']);
    expect(audit.filter((e) => e.event === 'mcp.tool_held_approved').map((e) => [e.server, e.tool])).toEqual([['notebook', 'notes']]);
    expect(audit.filter((e) => e.event === 'mcp.tool_held_declined').map((e) => [e.server, e.tool])).toEqual([['notebook', 'lookup']]);
    expect(audit.filter((e) => e.event === 'mcp.tool_dropped')).toHaveLength(1);
    const verify = await silas.cli('audit', 'verify');
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(browserProblems).toEqual([]);
  });
});
