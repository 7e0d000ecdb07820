import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { bundleText, memoryItem } from '../src-main/silas/memory/testing/memory-bundles.js';
import { expect, mainNav, openCockpit, test, withSilasRuntime } from './fixtures/test.js';

/*
 * Export and import on the Memory page as the owner meets them (spec 002 §4.2.3, §6.5;
 * docs/silas/memory-portability.md "From the cockpit"): a bundle imported into one runtime is
 * found by search and downloaded again; a truncated bundle is refused naming its line, changing
 * nothing; and the downloaded bundle, imported with Replace (asked first) into a runtime on a
 * fresh home, brings the memory there.
 */

const DEPLOY = 'The deploy window is Tuesday afternoon, never Friday';

async function openMemory(page: Page): Promise<void> {
  await mainNav(page).getByRole('link', { name: 'Memory' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
}

async function importBundle(page: Page, name: string, text: string, mode: 'Merge' | 'Replace' = 'Merge'): Promise<void> {
  await page.getByLabel('Bundle file').setInputFiles({ name, mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await page.getByRole('radio', { name: new RegExp(`^${mode}`) }).check();
  await page.getByRole('button', { name: 'Import memory' }).click();
}

async function search(page: Page, words: string) {
  await page.getByRole('searchbox', { name: 'Search memory' }).fill(words);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  return page.getByRole('list', { name: 'Memories' }).getByRole('listitem').filter({ hasText: DEPLOY });
}

test('memory is exported as a download, a truncated bundle is refused by its line, and the export restores the memory in a fresh home', async ({ page, silas, browserProblems }, testInfo) => {
  await openCockpit(page, silas);
  await openMemory(page);
  const importProgress = page.getByRole('status', { name: 'Import progress' });

  // A bundle the owner kept: merged in, then found by a word of it.
  await importBundle(page, 'kept.jsonl', bundleText([memoryItem('deploy-window', { content: DEPLOY })]));
  await expect(importProgress).toHaveText('Imported kept.jsonl (merge): 1 memory: 1 new, 0 updated, 0 unchanged, 0 removed.');
  await expect(await search(page, 'deploy')).toHaveCount(1);

  // Export: the browser downloads the bundle, named by the day.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export memory' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^silas-memory-\d{4}-\d{2}-\d{2}\.jsonl$/);
  const exported = await readFile(await download.path(), 'utf8');
  const lines = exported.trimEnd().split('\n');
  expect(JSON.parse(lines[0]!)).toMatchObject({ kind: 'silas.memory.bundle', include_raw: true, count: 1 });
  expect(JSON.parse(lines[1]!)).toMatchObject({ memory_id: 'deploy-window', content: DEPLOY, trust_level: 'working' });
  await expect(page.getByRole('status', { name: 'Export progress' })).toHaveText(`Saved 1 memory as ${download.suggestedFilename()}.`);

  // Cut in the middle of its memory: refused, naming the line, and nothing changes.
  const cut = exported.slice(0, exported.indexOf(DEPLOY));
  await importBundle(page, 'cut.jsonl', cut, 'Replace');
  await expect(page.getByRole('alertdialog', { name: 'Replace memory' })).toBeVisible();
  await page.getByRole('button', { name: 'Yes, replace' }).click();
  await expect(page.getByRole('alert')).toContainText('Could not import cut.jsonl: cut.jsonl: the bundle is truncated: its last line (2) is cut short');
  await expect(await search(page, 'deploy')).toHaveCount(1);

  // The download, imported with Replace into a runtime on a fresh home, brings the memory there.
  await withSilasRuntime(
    {},
    async (other) => {
      const fresh = await page.context().newPage();
      await openCockpit(fresh, other);
      await openMemory(fresh);
      await expect(await search(fresh, 'deploy')).toHaveCount(0);
      await importBundle(fresh, download.suggestedFilename(), exported, 'Replace');
      await fresh.getByRole('button', { name: 'Yes, replace' }).click();
      await expect(fresh.getByRole('status', { name: 'Import progress' })).toHaveText(`Imported ${download.suggestedFilename()} (replace): 1 memory: 1 new, 0 updated, 0 unchanged, 0 removed.`);
      const found = await search(fresh, 'Tuesday');
      await expect(found).toHaveCount(1);
      await expect(found).toContainText('Working');
      await fresh.close();
    },
    testInfo,
  );
  expect(browserProblems).toEqual([]);
});
