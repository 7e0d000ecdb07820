import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../src-main/llm/testing/scripted-openai-server.js';
import { sendComposition, useScriptedModels } from './fixtures/ilp.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * Knowledge distillation as the owner meets it (docs/ilp.md "Knowledge distillation"): three
 * queries answered through the runtime's ILP endpoint become episodes; "Distill now" on the ILP
 * page proposes a slice written by the scripted planner model; the proposal waits in Review with
 * its exact text; deployed there, it is listed as in force on the ILP page; rolled back, it is gone.
 */

const USAGE = { prompt_tokens: 400, completion_tokens: 40 };
const SLICE_ID = 'learned-reserve_target-spending_feedback';
const QUERIES = ['How can I stabilize my monthly spending?', 'What keeps household savings from drifting?', 'Why should an emergency fund have a target level?'];

let server: ScriptedOpenAIServer;
test.beforeEach(async () => {
  server = await startScriptedOpenAIServer();
});
test.afterEach(async () => {
  await server.http.close();
});

function scriptAnsweredQuery(): void {
  server.http.enqueue(
    openaiReply.object({ domains: ['finance'], reasoning: 'A question about money held at a level.' }, USAGE),
    openaiReply.object({ answer: 'Keep a reserve with a target and correct small drifts monthly.', concepts: ['reserve_target'], confidence: 0.88, reasoning: 'A reserve with a target level works like a set point: drift is corrected in small steps each month.', sources: [], suggestions_to_invoke: [] }, USAGE),
    openaiReply.object({ answer: 'Set a target reserve and correct drift monthly: spending is held by feedback.', concepts: ['reserve_target', 'spending_feedback'], confidence: 0.9, reasoning: 'The finance specialist described a target reserve corrected by monthly feedback; that answers the question.', emergent_insights: [] }, USAGE),
  );
}

test('a slice distilled from answered queries is asked about in Review, deployed, listed in force, and rolled back', async ({ page, silas, browserProblems }) => {
  await useScriptedModels(silas, server);
  for (const query of QUERIES) {
    scriptAnsweredQuery();
    const sent = await sendComposition(silas, query);
    expect(sent.status, sent.body).toBe(200);
  }
  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: 'ILP' }).click();
  const learned = page.getByRole('region', { name: 'Learned slices' });
  await expect(learned.getByText('No learned slices yet.', { exact: false })).toBeVisible();

  server.http.enqueue(
    openaiReply.object(
      {
        title: 'A reserve target holds spending steady',
        concepts: ['reserve_target', 'spending_feedback'],
        knowledge: 'A household reserve with a target level behaves like a set point.\nEach month compare the balance to the target and correct the difference in a small step; large corrections overshoot.',
        rationale: 'Three answered queries about spending and savings agreed that a reserve target corrected monthly keeps spending steady.',
        confidence: 0.86,
      },
      USAGE,
    ),
  );
  await learned.getByRole('button', { name: 'Distill now' }).click();
  const distillation = learned.getByRole('status', { name: 'Distillation' });
  await expect(distillation).toContainText('1 slice proposed');
  await distillation.getByRole('link', { name: 'Review' }).click();

  const card = page.getByRole('article', { name: 'Learned slice: A reserve target holds spending steady' });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: /Details/ }).click();
  await expect(card.getByLabel('Proposed slice')).toContainText('A household reserve with a target level behaves like a set point.');
  await card.getByRole('button', { name: 'Deploy the slice' }).click();
  await expect(card).toHaveCount(0);

  await mainNav(page).getByRole('link', { name: 'ILP' }).click();
  const row = learned.getByRole('table', { name: 'Learned slices' }).getByRole('row').filter({ hasText: SLICE_ID });
  await expect(row).toContainText('v1');
  await learned.getByRole('button', { name: `Roll back ${SLICE_ID}` }).first().click();
  await learned.getByRole('alertdialog', { name: `Roll back ${SLICE_ID}` }).getByRole('button', { name: 'Yes, roll back' }).click();
  await expect(learned.getByRole('status', { name: 'Rollback' })).toHaveText(`${SLICE_ID} was removed`);
  await expect(row).toContainText('not deployed');
  expect(browserProblems).toEqual([]);
});
