import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { SERVERS, connectThroughProxy, type ProxiedClient } from '../src-main/mcp/testing/proxy-harness.js';
import { exportedAudit } from './fixtures/mcp-proxy.js';
import { SILAS_BIN } from './fixtures/silas-runtime.js';
import { signPolicy } from './fixtures/mcp-proxy.js';
import { expect, test } from './fixtures/silas-runtime-env.js';
import { mainNav, openCockpit } from './fixtures/test.js';

/*
 * The alignment journey (docs/alignment.md): a real MCP server behind a real `silas proxy` (wrapped
 * in the test's own Claude Desktop configuration, so its card is derived from its policy) allows,
 * blocks and asks. Every decision becomes a verified AP-Trace; the agent's behaviour changes
 * halfway (plain reads, then writes nobody approves) and exactly one drift alert follows, on the
 * Alignment page and in the chain. Then the card is edited in the cockpit (signed save) to forbid
 * echo, the next echo is a violation, and the trace inspector shows which check failed.
 */

const POLICY = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: files
spec:
  allowed_tools: [echo, read_file, write_file]
  tool_rules:
    - tool: write_file
      action: ask
    - tool: delete_file
      action: block
`;

let proxied: ProxiedClient | null = null;
test.afterEach(async () => {
  await proxied?.close();
  proxied = null;
});

async function call(client: ProxiedClient, tool: string, args: Record<string, unknown>): Promise<string> {
  try {
    const result = (await client.client.callTool({ name: tool, arguments: args })) as { isError?: boolean };
    return result.isError ? 'error' : 'allowed';
  } catch (error) {
    return error instanceof McpError ? `refused ${error.code}` : 'failed';
  }
}

test('real decisions become verified traces; a change of behaviour raises one drift alert; an edited card catches a violation', async ({ page, silas, userHome, browserProblems }) => {
  test.setTimeout(90_000);
  mkdirSync(join(silas.home, 'policies'), { recursive: true });
  const policy = join(silas.home, 'policies', 'files.yaml');
  writeFileSync(policy, POLICY);
  // A proxy enforces only a policy the owner signed and put in force (docs/mcp-proxy.md "Signed policies").
  signPolicy(silas, policy);
  mkdirSync(join(userHome, '.config', 'Claude'), { recursive: true });
  const entry = { command: process.execPath, args: [SILAS_BIN, 'proxy', '--name', 'files', '--policy', policy, '--home', silas.home, '--client', 'claude-desktop', '--', process.execPath, SERVERS.fileTools] };
  writeFileSync(join(userHome, '.config', 'Claude', 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { files: entry } }));
  proxied = await connectThroughProxy({ home: silas.home, policy, server: SERVERS.fileTools, extra: ['--name', 'files', '--client', 'claude-desktop', '--ask-timeout', '1'] });
  const client = proxied;

  // Twelve plain calls, one blocked delete, then six writes that ask and are never answered.
  for (let i = 0; i < 12; i += 1) expect(await call(client, 'echo', { message: `hi ${i}` })).toBe('allowed');
  expect(await call(client, 'delete_file', { path: join(userHome, 'x') })).toMatch(/^refused -32\d+$/);
  const writes = await Promise.all(Array.from({ length: 6 }, (_, i) => call(client, 'write_file', { path: join(userHome, `w${i}`), content: 'x' })));
  expect(writes.every((w) => /^refused -32\d+$/.test(w))).toBe(true);

  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: 'Alignment' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Alignment' })).toBeVisible();
  await page.getByRole('region', { name: 'Agents' }).getByRole('button', { name: 'Show mcp:claude-desktop/files' }).click();
  const drift = page.getByRole('region', { name: 'Drift' });
  await expect(drift.getByRole('img', { name: 'Similarity to baseline: 19 traces, 1 drift alert' })).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('region', { name: 'Violations' })).toContainText('No violations');

  // The alert is in the chain too, once.
  const audit = await exportedAudit(silas);
  expect(audit.filter((e) => e.event === 'aap.drift_alert')).toEqual([expect.objectContaining({ agent_id: 'mcp:claude-desktop/files', sustained: 3 })]);
  expect(audit.filter((e) => e.event === 'aap.trace')).toHaveLength(19);

  // The card, derived from the policy, edited to forbid echo: saved and signed.
  const cardRegion = page.getByRole('region', { name: 'Alignment card' });
  const cardText = cardRegion.getByRole('textbox', { name: 'Card JSON' });
  await expect(cardText).toHaveValue(/"bounded_actions": \[\s*"echo",\s*"read_file"\s*\]/);
  const card = JSON.parse(await cardText.inputValue()) as { card_id: string; autonomy_envelope: { bounded_actions: string[]; forbidden_actions: string[] } };
  card.card_id = 'ac-files-no-echo';
  card.autonomy_envelope.bounded_actions = ['read_file'];
  card.autonomy_envelope.forbidden_actions = ['delete_file', 'echo'];
  await cardText.fill(JSON.stringify(card, null, 2));
  await expect(cardRegion.getByRole('status', { name: 'Card check' })).toHaveText('The card validates.');
  await cardRegion.getByRole('button', { name: 'Save and sign' }).click();
  await expect(cardRegion).toContainText('ac-files-no-echo');

  // The next echo breaks the card: a violation, listed live; the inspector names the failed checks.
  expect(await call(client, 'echo', { message: 'once more' })).toBe('allowed');
  const violations = page.getByRole('region', { name: 'Violations' });
  const inspect = violations.getByRole('button', { name: /^Inspect trace tr-/ });
  await expect(inspect).toHaveCount(1, { timeout: 15_000 });
  await inspect.click();
  const inspector = page.getByRole('region', { name: 'Trace inspector' });
  const checks = inspector.getByRole('list', { name: 'Checks' });
  await expect(checks).toContainText("Action 'echo' is forbidden");
  await expect(inspector).toContainText('ac-files-no-echo');
  expect(browserProblems).toEqual([]);
});
