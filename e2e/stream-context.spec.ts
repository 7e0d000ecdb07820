import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { directRoute, streamedJson } from '../src-main/silas/stream/testing/stream.js';
import { useScriptedModels } from './fixtures/ilp.js';
import { useScriptedModelServer, conversation, send } from './fixtures/stream.js';
import { expect, openCockpit, test } from './fixtures/test.js';

/*
 * The context inspector beside the Stream (spec 002 §5.7 context_inspection, §0.5;
 * docs/silas/context.md "Context inspection"): the person opens it and sees what the
 * conversation's context holds and why. The message sent is in the chronicle zone with whose
 * words it is; a preference the agent stored in the first turn is recalled by the second into the
 * memory zone, with its relevance; the panel follows each finished turn while it is open. The
 * model is a scripted server on 127.0.0.1.
 */

const PREFERENCE = 'The owner indents code with tabs, never spaces';
const FIRST = 'I always indent with tabs, never spaces';
const SECOND = 'should this file use tabs or spaces for indentation?';

const scriptedServer = useScriptedModelServer();

const inspector = (page: Page) => page.getByRole('region', { name: 'Context inspector' });
const zone = (page: Page, name: string) => inspector(page).getByRole('region', { name, exact: true });


test('the context inspector shows the message in the chronicle with its taint, and a recalled memory after the next turn', async ({ page, silas, browserProblems }) => {
  const server = scriptedServer();
  await useScriptedModels(silas, server);
  await openCockpit(page, silas);
  server.http.enqueue(streamedJson(directRoute('Noted: tabs, never spaces.', { memory_ops: [{ op: 'store', content: PREFERENCE, memory_type: 'preference' }] })));
  await send(page, FIRST);
  await expect(conversation(page)).toContainText('Noted: tabs, never spaces.');

  await page.getByRole('button', { name: 'Show context' }).click();
  await expect(page.getByRole('button', { name: 'Hide context' })).toHaveAttribute('aria-expanded', 'true');
  await expect(inspector(page)).toContainText('Profile');
  await expect(inspector(page)).toContainText(/In context\s*[\d,]+ of [\d,]+ tokens/);
  await expect(inspector(page)).toContainText(/Eviction above\s*[\d,]+ tokens/);

  // The person's message, in the chronicle, marked as written in their signed-in session.
  const said = zone(page, 'Chronicle').getByRole('listitem').filter({ hasText: FIRST });
  await expect(said).toHaveCount(1);
  await expect(said).toContainText('message');
  await expect(said).toContainText('from your session');
  await expect(said).toContainText('turn 1');
  await expect(zone(page, 'Chronicle')).toContainText(/[\d,]+ of [\d,]+ tokens \(\d+% share\)/);
  await expect(zone(page, 'System')).toContainText('fixed system budget');

  // The next turn recalls the stored preference; the open panel reads the context again when it finishes.
  server.http.enqueue(streamedJson(directRoute('Tabs.')));
  await send(page, SECOND);
  await expect(conversation(page)).toContainText('Tabs.');
  const recalled = zone(page, 'Memory').getByRole('listitem').filter({ hasText: PREFERENCE });
  await expect(recalled).toHaveCount(1);
  await expect(recalled).toContainText('memory');
  await expect(recalled).toContainText(/relevance \d\.\d\d/);
  await expect(recalled).toContainText('turn 2');
  await expect(zone(page, 'Chronicle').getByRole('listitem').filter({ hasText: SECOND })).toHaveCount(1);
  await expect(zone(page, 'Last eviction')).toContainText('Nothing has been evicted from this conversation yet.');

  await page.getByRole('button', { name: 'Hide context' }).click();
  await expect(inspector(page)).toHaveCount(0);
  expect(browserProblems).toEqual([]);
});

test('the person keeps a file in context from the inspector: it is listed, reaches the next prompt, and can be deactivated', async ({ page, silas, browserProblems }) => {
  const server = scriptedServer();
  await useScriptedModels(silas, server);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'silas-e2e-subs-')));
  try {
    const file = join(dir, 'garden.md');
    writeFileSync(file, 'Beds: tomatoes, beans, garlic\n');
    await openCockpit(page, silas);
    server.http.enqueue(streamedJson(directRoute('Hello.')));
    await send(page, 'hello');
    await expect(conversation(page)).toContainText('Hello.');
    await page.getByRole('button', { name: 'Show context' }).click();

    const kept = zone(page, 'Kept in context');
    await expect(kept).toContainText('Nothing is kept in context.');
    // A relative path is refused with the field and the fix; nothing is kept.
    await kept.getByLabel('File path').fill('garden.md');
    await kept.getByRole('button', { name: 'Keep in context' }).click();
    await expect(kept.getByRole('alert')).toContainText('not an absolute path');

    await kept.getByLabel('File path').fill(file);
    await kept.getByRole('button', { name: 'Keep in context' }).click();
    const row = kept.getByRole('listitem').filter({ hasText: file });
    await expect(row).toHaveCount(1);
    await expect(row).toContainText('active');
    await expect(kept.getByRole('alert')).toHaveCount(0);

    server.http.enqueue(streamedJson(directRoute('You grow tomatoes, beans and garlic.')));
    await send(page, 'what is in my beds?');
    await expect(conversation(page)).toContainText('You grow tomatoes');
    const prompt = JSON.stringify(server.http.requests.at(-1)!.json);
    expect(prompt).toContain(`--- subscription:file | ${file} | live`);
    expect(prompt).toContain('Beds: tomatoes, beans, garlic');
    await expect(row).toContainText('last changed turn 2');
    await expect(zone(page, 'Workspace').getByRole('listitem').filter({ hasText: 'Beds: tomatoes' })).toContainText('from outside');

    await row.getByRole('button', { name: `Deactivate ${file}` }).click();
    await expect(row).toContainText('inactive');
    await expect(row).toContainText('deactivated by you');
    await expect(row).toContainText('0 tokens');
    expect(browserProblems).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
