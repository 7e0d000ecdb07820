import { startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../src-main/llm/testing/scripted-openai-server.js';
import { DISTILL_QUERIES, DISTILLED_SLICE_ID, DISTILLED_TITLE, scriptAnsweredQuery, scriptDistilledSlice } from '../src-main/ilp/testing/distillation.js';
import { sendComposition, useScriptedModels } from './fixtures/ilp.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * Knowledge distillation as the owner meets it (docs/ilp.md "Knowledge distillation"): three
 * queries answered through the runtime's ILP endpoint become episodes; "Distill now" on the ILP
 * page proposes a slice written by the scripted planner model; the proposal waits in Review with
 * its exact text; deployed there, it is listed as in force on the ILP page; rolled back, it is gone.
 */

const USAGE = { prompt_tokens: 400, completion_tokens: 40 };

let server: ScriptedOpenAIServer;
test.beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
test.afterEach(async () => {
  await server.http.close();
});

test('a slice distilled from answered queries is asked about in Review, deployed, listed in force, and rolled back', async ({ page, silas, browserProblems }) => {
  await useScriptedModels(silas, server);
  for (const query of DISTILL_QUERIES) {
    scriptAnsweredQuery(server, USAGE);
    const sent = await sendComposition(silas, query);
    expect(sent.status, sent.body).toBe(200);
  }
  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: 'ILP' }).click();
  const learned = page.getByRole('region', { name: 'Learned slices' });
  await expect(learned.getByText('No learned slices yet.', { exact: false })).toBeVisible();

  scriptDistilledSlice(server, USAGE);
  await learned.getByRole('button', { name: 'Distill now' }).click();
  const distillation = learned.getByRole('status', { name: 'Distillation' });
  await expect(distillation).toContainText('1 slice proposed');
  await distillation.getByRole('link', { name: 'Review' }).click();

  const card = page.getByRole('article', { name: `Learned slice: ${DISTILLED_TITLE}` });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: /Details/ }).click();
  await expect(card.getByLabel('Proposed slice')).toContainText('A household reserve with a target level behaves like a set point.');
  await card.getByRole('button', { name: 'Deploy the slice' }).click();
  await expect(card).toHaveCount(0);

  await mainNav(page).getByRole('link', { name: 'ILP' }).click();
  const row = learned.getByRole('table', { name: 'Learned slices' }).getByRole('row').filter({ hasText: DISTILLED_SLICE_ID });
  await expect(row).toContainText('v1');
  await learned.getByRole('button', { name: `Roll back ${DISTILLED_SLICE_ID}` }).first().click();
  await learned.getByRole('alertdialog', { name: `Roll back ${DISTILLED_SLICE_ID}` }).getByRole('button', { name: 'Yes, roll back' }).click();
  await expect(learned.getByRole('status', { name: 'Rollback' })).toHaveText(`${DISTILLED_SLICE_ID} was removed`);
  await expect(row).toContainText('not deployed');
  expect(browserProblems).toEqual([]);
});
