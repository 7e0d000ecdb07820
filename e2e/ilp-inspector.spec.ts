import type { Page } from '@playwright/test';
import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../src-main/llm/testing/scripted-openai-server.js';
import { QUERY_HEADER, scriptComposition, sendComposition, useScriptedModels } from './fixtures/ilp.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * The composition inspector (docs/ilp.md "Inspector"): a query composed by the meta-agent from two
 * specialists through the runtime's ILP endpoint, on a fresh home with a scripted model, is listed
 * on the ILP page; its hops are read from the graph's list; a replay with a budget too small for
 * one model call is refused with 429, shown beside the original 200.
 */

const QUERY = 'How can I stabilize my spending?';

let server: ScriptedOpenAIServer;
test.beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
test.afterEach(async () => {
  await server.http.close();
});

const hops = (page: Page) => page.getByRole('list', { name: 'Hops' }).getByRole('listitem');

test('a composition is listed, its hops drawn, and a replay under a tiny budget is refused with 429 beside the original 200', async ({ page, silas, browserProblems }) => {
  await useScriptedModels(silas, server);
  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: 'ILP' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'ILP' })).toBeVisible();

  scriptComposition(server);
  const sent = await sendComposition(silas, QUERY);
  expect(sent.status, sent.body).toBe(200);

  // Live: the composition reaches the open page as `ilp.composition`, without a reload.
  const compositions = page.getByRole('list', { name: 'Compositions' });
  await compositions.getByRole('button', { name: QUERY }).click();
  await expect(page.getByRole('figure', { name: 'Composition graph' })).toBeVisible();
  await expect(hops(page)).toHaveCount(3);
  await expect(hops(page).filter({ hasText: '(meta-agent)' })).toHaveCount(1);
  await expect(hops(page).filter({ hasText: '(specialist)' })).toHaveCount(2);
  await expect(hops(page).filter({ hasText: /^meta-agent/ })).toContainText('200 OK');

  const header = page.getByRole('textbox', { name: 'Constitutional-Header' });
  expect(JSON.parse(await header.inputValue())).toMatchObject(QUERY_HEADER);
  await header.fill(JSON.stringify({ ...QUERY_HEADER, max_budget_usd: 0.0001 }, null, 2));
  scriptComposition(server);
  await page.getByRole('button', { name: 'Replay' }).click();
  await expect(page.getByRole('status', { name: 'Replay outcome' })).toHaveText(/^Original 200 OK · Replay 429 Budget Exceeded$/);
  await expect(compositions.getByRole('listitem').filter({ hasText: 'Replay of' })).toHaveCount(1);
  expect(browserProblems).toEqual([]);
});
