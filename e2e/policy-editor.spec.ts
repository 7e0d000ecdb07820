import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { SERVERS, connectThroughProxy, type ProxiedClient } from '../src-main/mcp/testing/proxy-harness.js';
import { signPolicy } from './fixtures/mcp-proxy.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * The policy editor's journey (docs/policy-editor.md): a policy governing a real MCP server
 * (through `silas proxy`) is opened in the cockpit's editor; a typo'd key is underlined with the
 * loader's "did you mean"; fixed, the draft is run against the server's recorded calls and shows
 * what changes; saved (signed), the running proxy enforces the new rule on a real call; restoring
 * the previous version brings the old rule back.
 */

const POLICY = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  mode: enforce\n  # echo is for the smoke test only\n  allowed_tools: [echo, read_file]\n';
const WITHOUT_ECHO = POLICY.replace('[echo, read_file]', '[read_file]');

let proxied: ProxiedClient | null = null;
test.afterEach(async () => {
  await proxied?.close();
  proxied = null;
});

/** Replaces the editor's text as a person pasting would: select all, then insert. */
async function replaceText(page: import('@playwright/test').Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Policy YAML' }).click();
  await page.keyboard.press('Control+a');
  await page.keyboard.insertText(text);
}

async function echo(client: ProxiedClient): Promise<string> {
  try {
    const result = (await client.client.callTool({ name: 'echo', arguments: { message: 'hi' } })) as { isError?: boolean };
    return result.isError ? 'error' : 'allowed';
  } catch (error) {
    return error instanceof McpError ? `refused ${error.code}` : 'failed';
  }
}

test('write, test against recorded calls, sign, deploy and roll back a policy', async ({ page, silas, browserProblems }) => {
  mkdirSync(join(silas.home, 'policies'), { recursive: true });
  const file = join(silas.home, 'policies', 'files.yaml');
  writeFileSync(file, POLICY);
  // Signed with `silas policy sign` (put in force) before the proxy starts: it enforces nothing else.
  signPolicy(silas, file);
  proxied = await connectThroughProxy({ home: silas.home, policy: file, server: SERVERS.fileTools, extra: ['--name', 'files'] });
  const client = proxied;
  // Recorded history for the bench: two allowed calls.
  expect(await echo(client)).toBe('allowed');
  expect(await echo(client)).toBe('allowed');

  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: 'Policies' }).click();
  const item = page.getByRole('list', { name: 'Policies' }).getByRole('listitem', { name: 'files.yaml' });
  await expect(item).toContainText('Signed');
  await expect(item).toContainText('Changed outside the cockpit');
  // Take the file as it is (signed): version 1, the one to roll back to.
  await item.getByRole('button', { name: 'Adopt files.yaml' }).click();
  await expect(item).toContainText('Signed');
  await expect.poll(() => readFileSync(file, 'utf8')).toMatch(/signature: ["']?ed25519:/);

  await page.getByRole('button', { name: 'Open files.yaml' }).click();
  const editor = page.getByRole('textbox', { name: 'Policy YAML' });
  await expect(editor).toContainText('allowed_tools: [echo, read_file]');

  // A typo'd key: underlined, listed with the loader's hint, and Save refuses with the reason.
  await replaceText(page, WITHOUT_ECHO.replace('allowed_tools', 'alowed_tools'));
  const problems = page.getByRole('region', { name: 'Problems' });
  await expect(problems).toContainText('unknown key "alowed_tools"');
  await expect(problems).toContainText('did you mean "allowed_tools"');
  await expect(page.locator('.cm-lintRange-error')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Save and sign' })).toBeDisabled();

  // Fixed: no problems, and the draft runs against the server's recorded calls.
  await replaceText(page, WITHOUT_ECHO);
  await expect(problems).toContainText('No problems');
  const bench = page.getByRole('region', { name: 'Test bench' });
  await bench.getByRole('textbox', { name: 'Server' }).fill('files');
  await bench.getByRole('button', { name: 'Replay' }).click();
  const results = page.getByRole('table', { name: 'Test results' });
  await expect(results.locator('.bench-row--changed')).toHaveCount(2);
  await expect(results).toContainText('echo');

  // Saved and signed: the running proxy hot-reloads it and refuses echo on a real call.
  await page.getByRole('button', { name: 'Save and sign' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved version' })).toHaveText('Saved version 2, signed');
  await expect.poll(() => echo(client), { timeout: 15_000, intervals: [250] }).toMatch(/^refused -32\d+$/);

  // Rolled back from history: version 1 again, and echo is allowed again.
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('button', { name: 'Restore version 1', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Restored' })).toHaveText('Restored version 1 as version 3, signed');
  await expect.poll(() => echo(client), { timeout: 15_000, intervals: [250] }).toBe('allowed');
  expect(readFileSync(file, 'utf8')).toContain('# echo is for the smoke test only');

  // The form view edits the same document: the tool joins the list, the comment stays.
  const form = page.getByRole('region', { name: 'Form' });
  await form.getByRole('textbox', { name: 'Allow tool' }).fill('search_files');
  await form.getByRole('button', { name: 'Add tool' }).click();
  await expect(editor).toContainText('allowed_tools: [echo, read_file, search_files]');
  await expect(editor).toContainText('# echo is for the smoke test only');
  await expect(problems).toContainText('No problems');
  expect(browserProblems).toEqual([]);
});

test('a policy from a template: its suite passes, fields explain themselves, versions compare, and an unsaved draft is not dropped silently', async ({ page, silas, browserProblems }) => {
  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: 'Policies' }).click();

  // The gallery: a read-only filesystem policy, made, signed and opened.
  const gallery = page.getByRole('region', { name: 'New policy from a template' });
  await gallery.getByRole('button', { name: 'Show the templates' }).click();
  await expect(gallery.getByRole('radio')).toHaveCount(6);
  await gallery.getByRole('radio', { name: 'Filesystem, read-only' }).check();
  await gallery.getByRole('textbox', { name: 'Name of the new policy' }).fill('project-files');
  await gallery.getByRole('button', { name: 'Create and open' }).click();
  await expect(gallery.getByRole('status')).toContainText('Created project-files.yaml from "Filesystem, read-only", signed as version 1');
  const file = join(silas.home, 'policies', 'project-files.yaml');
  expect(readFileSync(file, 'utf8')).toMatch(/^ {2}name: project-files$/m);
  expect(readFileSync(file, 'utf8')).toMatch(/^ {2}signature: ["']?ed25519:/m);
  const editor = page.getByRole('textbox', { name: 'Policy YAML' });
  await expect(editor).toContainText('name: project-files');
  await expect(page.getByRole('list', { name: 'Policies' }).getByRole('listitem', { name: 'project-files.yaml' })).toContainText('Signed');

  // Its suite came with it, and passes.
  await page.getByRole('region', { name: 'Test bench' }).getByRole('button', { name: 'Run suite' }).click();
  await expect(page.getByText(/^Suite .*project-files\.suite\.json: \d+ passed, 0 failed; no decision changes$/)).toBeVisible();

  // Hovering a key shows the schema's documentation of that field.
  await editor.getByText('mode', { exact: true }).first().hover();
  const doc = page.getByRole('tooltip', { name: 'About spec.mode' });
  await expect(doc).toContainText('monitor only logs them');
  await expect(doc).toContainText('Values: enforce, monitor');

  // A second version, then version 1 compared with version 2.
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('# reviewed by Ada\n');
  await expect(page.getByRole('region', { name: 'Problems' })).toContainText('No problems');
  await page.getByRole('button', { name: 'Save and sign' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved version' })).toHaveText('Saved version 2, signed');
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('button', { name: 'Diff version 1' }).click();
  await history.getByRole('combobox', { name: 'Compare version 1 with' }).selectOption({ label: 'Version 2' });
  await expect(history.getByLabel(/^Version 1 \(−\) against version 2 \(\+\): \d+ removed, \d+ added$/)).toContainText('+ # reviewed by Ada');

  // An unsaved edit: closing the editor asks first; "Keep editing" keeps it, "Discard changes" drops it.
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('# not saved\n');
  await page.getByRole('button', { name: 'Close the editor' }).click();
  const question = page.getByRole('alertdialog', { name: 'Unsaved changes' });
  await expect(question).toContainText('Your changes to project-files.yaml are not saved. Discard them and close the editor?');
  await expect(question.getByRole('button', { name: 'Keep editing' })).toBeFocused();
  await question.getByRole('button', { name: 'Keep editing' }).click();
  await expect(editor).toContainText('# not saved');
  await page.getByRole('button', { name: 'Close the editor' }).click();
  await question.getByRole('button', { name: 'Discard changes' }).click();
  await expect(editor).toHaveCount(0);
  expect(readFileSync(file, 'utf8')).not.toContain('# not saved');
  expect(browserProblems).toEqual([]);
});
