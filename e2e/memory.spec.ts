import { directRoute, streamedJson } from '../src-main/silas/stream/testing/stream.js';
import { useScriptedModels } from './fixtures/ilp.js';
import { useScriptedModelServer, conversation, send } from './fixtures/stream.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * Silas memory as the owner meets it (spec 002 §6, §3.8; docs/silas/chronicle-and-memory.md):
 * every cockpit tab is its own conversation but shares the owner's memory, so a preference the
 * agent stored in one tab reaches the prompt of a new tab. The Memory page finds it, edits it,
 * and asks to verify it; the promotion is signed in Review, and the memory then shows as verified
 * with no way to change it from the page. The model is a scripted server on 127.0.0.1.
 */

const PREFERENCE = 'The owner indents code with tabs, never spaces';
const EDITED = 'The owner indents code with tabs (width 4), never spaces';

const scriptedServer = useScriptedModelServer();



test('a preference told in one tab is used in a new tab; the Memory page finds, edits and promotes it (the promotion signed in Review)', async ({ page, silas, browserProblems }) => {
  const server = scriptedServer();
  await useScriptedModels(silas, server);
  await openCockpit(page, silas);
  server.http.enqueue(streamedJson(directRoute('Noted: tabs, never spaces.', { memory_ops: [{ op: 'store', content: PREFERENCE, memory_type: 'preference' }] })));
  await send(page, 'I always indent with tabs, never spaces');
  await expect(conversation(page)).toContainText('Noted: tabs, never spaces.');

  // A new tab is a new conversation: nothing of the first one, but the owner's memory is recalled into its prompt.
  const other = await page.context().newPage();
  await openCockpit(other, silas);
  server.http.enqueue(streamedJson(directRoute('With tabs.')));
  const before = server.http.requests.length;
  await send(other, 'how should I format the indentation in this file?');
  await expect(conversation(other)).toContainText('With tabs.');
  await expect(conversation(other)).not.toContainText('I always indent with tabs');
  // The prompt of the new tab's turn (found by its message, whatever else asked the model meanwhile) carried the memory.
  const prompt = server.http.requests.slice(before).find((request) => request.body.includes('how should I format the indentation in this file?'));
  expect(prompt?.body).toContain(PREFERENCE);

  // The Memory page finds it by a word of it.
  await mainNav(other).getByRole('link', { name: 'Memory' }).click();
  await expect(other.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  await expect(other.getByRole('status', { name: 'Memory status' })).toContainText('Recall by meaning:');
  await other.getByRole('searchbox', { name: 'Search memory' }).fill('tabs');
  await other.getByRole('button', { name: 'Search', exact: true }).click();
  const memories = other.getByRole('list', { name: 'Memories' });
  const memory = memories.getByRole('listitem').filter({ hasText: 'The owner indents code with tabs' });
  await expect(memory).toHaveCount(1);
  await expect(memory).toContainText(PREFERENCE);
  await expect(memory).toContainText('Preference');
  await expect(memory).toContainText('Working');

  // Edited inline.
  await memory.getByRole('button', { name: 'Edit' }).click();
  await memory.getByRole('textbox', { name: 'Memory text' }).fill(EDITED);
  await memory.getByRole('button', { name: 'Save' }).click();
  await expect(memory).toContainText(EDITED);
  await expect(memory.getByRole('textbox', { name: 'Memory text' })).toHaveCount(0);

  // Asked to verify: a card waits in Review for the owner's signature.
  await memory.getByRole('button', { name: 'Ask to verify…' }).click();
  await memory.getByRole('textbox', { name: 'Why (optional, shown on the card)' }).fill('It is how I always work');
  await memory.getByRole('button', { name: 'Send to Review' }).click();
  await expect(memory).toContainText('Waiting for your signature in Review');
  await memory.getByRole('link', { name: 'Open Review' }).click();

  const card = other.getByRole('article', { name: `Memory to verify: ${EDITED}` });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: /Details/ }).click();
  await expect(card.getByLabel('Memory content')).toHaveText(EDITED);
  await expect(card).toContainText('It is how I always work');
  await card.getByRole('button', { name: 'Verify the memory' }).click();
  await expect(card).toHaveCount(0);

  // Verified: shown so, and no longer changed from the page.
  await mainNav(other).getByRole('link', { name: 'Memory' }).click();
  await expect(memory).toContainText('Verified: changes only through Review');
  await expect(memory.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await expect(memory.getByRole('button', { name: 'Delete' })).toHaveCount(0);
  expect(browserProblems).toEqual([]);
  await other.close();
});
