import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { connectThroughProxy, exportedAudit, MCP_SERVERS, rpcError, textOf, writePolicy, type ProxiedClient } from './fixtures/mcp-proxy.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

async function openPage(page: Page, link: RegExp, heading: string): Promise<void> {
  await mainNav(page).getByRole('link', { name: link }).click();
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
}

test.describe('a real MCP client through silas proxy, decided in the cockpit', () => {
  let proxied: ProxiedClient | null = null;
  /** The test's own directory for its policy and files. */
  let dir = '';
  test.beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'silas-e2e-proxy-'));
  });
  test.afterEach(async () => {
    await proxied?.close().catch(() => undefined);
    proxied = null;
    rmSync(dir, { recursive: true, force: true });
  });

  /** A server whose second tools/list announces a changed `fetch`: the first list pins both tools, the second hides fetch. */
  async function connectChangingServer(silas: Parameters<typeof connectThroughProxy>[0]) {
    const policy = writePolicy(dir, 'web-policy', '  allowed_tools: [fetch, stable]\n');
    proxied = await connectThroughProxy(silas, { name: 'web', policy, server: MCP_SERVERS.changing });
    const { client } = proxied;
    const toolNames = async () => (await client.listTools()).tools.map((tool) => tool.name);
    expect(await toolNames()).toEqual(['fetch', 'stable']);
    expect(await toolNames()).toEqual(['stable']);
    return { client, toolNames };
  }

  test('an ask is approved from Review and the call completes with its signed approval in the audit chain', async ({ page, silas, browserProblems }) => {
    const policy = writePolicy(dir, 'files-policy', '  allowed_tools: [read_file]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n');
    const doomed = join(dir, 'doomed.txt');
    writeFileSync(doomed, 'delete me once the person says so');

    proxied = await connectThroughProxy(silas, { name: 'files', policy, server: MCP_SERVERS.fileTools });
    await openCockpit(page, silas);
    await openPage(page, /^Review/, 'Review');

    // Not awaited: the call waits in the proxy for the person's decision.
    const call = proxied.client.callTool({ name: 'delete_file', arguments: { path: doomed } });
    const card = page.getByRole('article', { name: 'Approval request: delete_file on files' });
    await expect(card).toBeVisible();
    await expect(card.getByRole('heading', { name: 'delete_file on files wants to run' })).toBeVisible();
    expect(existsSync(doomed)).toBe(true);

    await card.getByRole('button', { name: 'Allow once' }).click();
    const result = await call;
    expect(result.isError ?? false).toBe(false);
    expect(textOf(result)).toBe(`deleted ${doomed}`);
    expect(existsSync(doomed)).toBe(false);
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    const audit = await exportedAudit(silas);
    const allowed = audit.filter((e) => e.event === 'aip.decision' && e.tool === 'delete_file' && e.decision === 'ALLOW');
    expect(allowed, `decisions: ${JSON.stringify(audit.filter((e) => e.event === 'aip.decision'))}`).toHaveLength(1);
    expect(allowed[0]).toMatchObject({ server: 'files', approval: 'approve', approval_nonce: expect.stringMatching(/\S/) });
    expect(audit.some((e) => e.event === 'approvals.approved' && e.tool === 'delete_file')).toBe(true);
    const verify = await silas.cli('audit', 'verify');
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);

    // The Servers page shows the proxy's server with its policy and this decision.
    await openPage(page, /^Servers/, 'Servers');
    const files = page.getByRole('region', { name: 'files' });
    await expect(files).toContainText('files-policy');
    const decisions = files.getByRole('table', { name: 'Recent decisions' });
    await expect(decisions.getByRole('row').filter({ hasText: 'delete_file' }).filter({ hasText: 'Allow' })).toHaveCount(1);
    expect(browserProblems).toEqual([]);
  });

  test('"Always allow" lets identical calls through without a card until it is revoked on the Policies page', async ({ page, silas, browserProblems }) => {
    const policy = writePolicy(dir, 'files-policy', '  allowed_tools: [read_file]\n  tool_rules:\n    - tool: delete_file\n      action: ask\n');
    const doomed = join(dir, 'doomed.txt');
    const recreate = () => writeFileSync(doomed, 'delete me whenever the person has said so');
    const deleteDoomed = () => proxied!.client.callTool({ name: 'delete_file', arguments: { path: doomed } });
    const card = page.getByRole('article', { name: 'Approval request: delete_file on files' });
    const requested = async () => (await exportedAudit(silas)).filter((e) => e.event === 'approvals.requested' && e.tool === 'delete_file');
    recreate();

    proxied = await connectThroughProxy(silas, { name: 'files', policy, server: MCP_SERVERS.fileTools });
    await openCockpit(page, silas);
    await openPage(page, /^Review/, 'Review');

    // 1. The first call asks; "Always allow" runs it and signs a standing approval.
    const first = deleteDoomed();
    await expect(card).toBeVisible();
    const always = card.getByRole('button', { name: /^Always allow/ });
    await expect(always).toHaveAccessibleDescription(
      'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
    );
    await always.click();
    expect(textOf(await first)).toBe(`deleted ${doomed}`);
    expect(existsSync(doomed)).toBe(false);
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    // 2. The identical call passes without a card, and the ledger says why.
    recreate();
    const second = await deleteDoomed();
    expect(second.isError ?? false).toBe(false);
    expect(textOf(second)).toBe(`deleted ${doomed}`);
    expect(existsSync(doomed)).toBe(false);
    await expect(card).toHaveCount(0);
    await expect(page.getByText('No decisions waiting')).toBeVisible();
    await expect(mainNav(page).getByRole('link', { name: 'Review', exact: true })).toBeVisible();
    expect(await requested()).toHaveLength(1);
    const audit = await exportedAudit(silas);
    const standingDecisions = audit.filter((e) => e.event === 'aip.decision' && e.tool === 'delete_file' && e.approval === 'standing');
    expect(standingDecisions, `decisions: ${JSON.stringify(audit.filter((e) => e.event === 'aip.decision'))}`).toHaveLength(1);
    expect(standingDecisions[0]).toMatchObject({ server: 'files', decision: 'ALLOW', standing_id: expect.stringMatching(/\S/) });
    expect(audit.filter((e) => e.event === 'approvals.standing_created').map((e) => [e.server, e.tool])).toEqual([['files', 'delete_file']]);

    // 3. The Policies page lists it; Revoke removes it.
    await openPage(page, /^Policies/, 'Policies');
    const standing = page.getByRole('region', { name: 'Standing approvals' });
    const item = standing.getByRole('listitem', { name: 'delete_file on files' });
    await expect(item).toBeVisible();
    await expect(item).toContainText('files');
    await item.getByRole('button', { name: 'Arguments' }).click();
    await expect(item.getByLabel('Arguments of delete_file on files')).toContainText(doomed);
    const revoke = item.getByRole('button', { name: 'Revoke always-allow for delete_file on files' });
    await expect(revoke).toHaveAccessibleDescription('The next identical call asks you again');
    await revoke.click();
    await expect(item).toHaveCount(0);
    await expect(standing).toContainText('No standing approvals');

    // 4. The identical call asks again; denied, it fails with -32004 and the file stays.
    recreate();
    await openPage(page, /^Review/, 'Review');
    const third = rpcError(deleteDoomed());
    await expect(card).toBeVisible();
    await card.getByRole('button', { name: 'Deny' }).click();
    expect((await third).code).toBe(-32004);
    expect(existsSync(doomed)).toBe(true);
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    const after = await exportedAudit(silas);
    expect(after.filter((e) => e.event === 'approvals.standing_revoked').map((e) => [e.server, e.tool])).toEqual([['files', 'delete_file']]);
    expect(after.filter((e) => e.event === 'approvals.requested' && e.tool === 'delete_file')).toHaveLength(2);
    const verify = await silas.cli('audit', 'verify');
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(browserProblems).toEqual([]);
  });

  test('a changed tool definition is hidden and refused until it is approved on the Servers page', async ({ page, silas, browserProblems }) => {
    const { client, toolNames } = await connectChangingServer(silas);

    const refused = await rpcError(client.callTool({ name: 'fetch', arguments: { url: 'https://example.com' } }));
    expect(refused.code).toBe(-32013);

    await openCockpit(page, silas);
    await openPage(page, /^Servers/, 'Servers');
    const web = page.getByRole('region', { name: 'web' });
    await expect(web).toContainText('web-policy');
    const warning = web.getByRole('group', { name: 'Changed definition of fetch' });
    await expect(warning).toContainText('Definition changed — hidden from the agent and refused until you approve');
    const approve = warning.getByRole('button', { name: 'Approve new definition of fetch' });
    await expect(approve).toHaveAccessibleDescription('The agent can see and call the changed tool again');
    await approve.click();
    await expect(warning).toHaveCount(0);
    await expect(web.getByRole('button', { name: /^Approve new definition/ })).toHaveCount(0);

    expect(await toolNames()).toEqual(['fetch', 'stable']);
    expect(textOf(await client.callTool({ name: 'fetch', arguments: { url: 'https://example.com' } }))).toBe('fetched https://example.com');

    const audit = await exportedAudit(silas);
    expect(audit.filter((e) => e.event === 'mcp.tool_change_approved').map((e) => [e.server, e.tool])).toEqual([['web', 'fetch']]);
    const verify = await silas.cli('audit', 'verify');
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(browserProblems).toEqual([]);
  });

  test('a changed tool definition also waits in Review as a high-risk card; "Keep it blocked" keeps it hidden and refused', async ({ page, silas, browserProblems }) => {
    const { client, toolNames } = await connectChangingServer(silas);
    await openCockpit(page, silas);
    await openPage(page, /^Review/, 'Review');
    const card = page.getByRole('article', { name: 'Tool change: fetch on web' });
    await expect(card.getByText('High risk')).toBeVisible();
    await expect(card).toContainText('tool poisoning');
    // High risk: declining is recommended and comes first.
    await expect(card.getByRole('button').filter({ hasText: /Keep it blocked|Accept the new definition/ }).first()).toHaveText(/Keep it blocked/);
    await card.getByRole('button', { name: 'Keep it blocked' }).click();
    await expect(card).toHaveCount(0);
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    expect(await toolNames()).toEqual(['stable']);
    expect((await rpcError(client.callTool({ name: 'fetch', arguments: { url: 'https://example.com' } }))).code).toBe(-32013);
    // Kept blocked, not forgotten: the Servers page still offers to accept it.
    await openPage(page, /^Servers/, 'Servers');
    await expect(page.getByRole('region', { name: 'web' }).getByRole('button', { name: 'Approve new definition of fetch' })).toBeVisible();
    const audit = await exportedAudit(silas);
    expect(audit.filter((e) => e.event === 'mcp.tool_change_declined').map((e) => [e.server, e.tool])).toEqual([['web', 'fetch']]);
    expect(browserProblems).toEqual([]);
  });
});
