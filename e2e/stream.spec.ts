import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WebSocket as PwWebSocket } from '@playwright/test';
import { openaiReply } from '../src-main/llm/testing/scripted-openai-server.js';
import { directRoute, executorWritesGreeting, plannerAnswer, plannerRoute, streamedJson } from '../src-main/silas/stream/testing/stream.js';
import { encodingsOf, fakeApiKey } from '../src-main/llm/testing/llm.js';
import { useScriptedModelServer, conversation, send } from './fixtures/stream.js';
import { expect, mainNav, openCockpit, test } from './fixtures/test.js';

/*
 * The Stream's journey (docs/silas/stream.md): a person with no model configured opens the Stream
 * page, is walked through choosing a provider (the key goes to the keyring through secure input,
 * never the WebSocket), tests it, talks to Silas (streamed answer), asks for work, approves Silas's
 * plan with a signature in Review, watches it execute in the sandbox and verify, and finds the
 * conversation again after a reload. The model is a scripted OpenAI-compatible server on 127.0.0.1.
 */

const scriptedServer = useScriptedModelServer();



test('configure a model, talk to Silas, approve its plan with a signature, watch it run and verify', async ({ page, silas, browserProblems }) => {
  const server = scriptedServer();
  const key = fakeApiKey();
  const frames: string[] = [];
  page.on('websocket', (ws: PwWebSocket) => {
    ws.on('framesent', (frame) => frames.push(String(frame.payload)));
    ws.on('framereceived', (frame) => frames.push(String(frame.payload)));
  });
  await openCockpit(page, silas);
  await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();

  // First run (§1.5): no model yet, so the page walks through choosing one instead of failing.
  await expect(page.getByRole('heading', { name: 'Set up a model' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message to Silas' })).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Provider' }).selectOption('openai-compatible');
  await page.getByRole('textbox', { name: 'Model' }).fill('scripted-model');
  await page.getByRole('textbox', { name: 'Base URL' }).fill(server.baseUrl);
  await page.getByRole('textbox', { name: 'Keyring secret name' }).fill('scripted-key');
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/^Saved: scripted-model/)).toBeVisible();
  server.http.enqueue(openaiReply.stream({ text: ['OK'], usage: { prompt_tokens: 5, completion_tokens: 1 } }));
  await page.getByRole('button', { name: 'Test connection' }).click();
  await expect(page.getByRole('status', { name: 'Model test' })).toContainText('answered with model "scripted-model"');
  expect(server.http.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);
  const done = page.getByRole('button', { name: 'Done' });
  if (await done.isVisible()) await done.click();

  // A direct answer, streamed.
  server.http.enqueue(streamedJson(directRoute('Hello! I can plan and run small tasks for you in a sandbox.')));
  await send(page, 'hello Silas');
  await expect(conversation(page)).toContainText('hello Silas');
  await expect(conversation(page)).toContainText('Hello! I can plan and run small tasks for you in a sandbox.');
  await expect(page.getByRole('region', { name: 'Turn usage' })).toContainText(/150|120/);

  // Work: the Planner proposes a plan (claiming it needs no approval); it waits in Review all the same.
  server.http.enqueue(streamedJson(plannerRoute()), streamedJson(plannerAnswer('I will write hello.txt and check it; approve the plan to start.', false)), ...executorWritesGreeting());
  await send(page, 'please write hello into hello.txt');
  await expect(conversation(page)).toContainText('approve the plan to start');
  const work = page.getByRole('article', { name: 'Write the greeting file' });
  await expect(work).toContainText(/awaiting approval/i);
  await work.getByRole('link', { name: 'Open in Review' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Review' })).toBeVisible();
  const card = page.getByRole('article', { name: 'Plan approval: Write the greeting file' });
  await expect(card).toBeVisible();
  await card.getByRole('button', { name: 'Approve and sign' }).click();
  await expect(page.getByText('No decisions waiting')).toBeVisible();

  // Back in the Stream: it ran in the sandbox and its check passed.
  await mainNav(page).getByRole('link', { name: 'Stream' }).click();
  await expect(work).toContainText(/done/i, { timeout: 30_000 });
  await expect(work).toContainText('PASS greeting');
  await expect(conversation(page)).toContainText('ended done');
  // The executor's next step comes back as its suggestion (it wrote it after reading tool output:
  // external), never as a reply chip; picking it puts the text in the composer and sends nothing.
  const suggestion = page.getByRole('group', { name: /^Suggestions from the executor/ }).getByRole('button', { name: 'Show me hello.txt' });
  await expect(suggestion).toBeVisible();
  await expect(page.getByRole('group', { name: 'Suggested replies' })).toHaveCount(0);
  const modelCalls = server.http.requests.length;
  await suggestion.click();
  await expect(page.getByRole('textbox', { name: 'Message to Silas' })).toHaveValue('Show me hello.txt');
  expect(server.http.requests.length).toBe(modelCalls);
  const workRoot = join(silas.home, 'work');
  const [workDir] = readdirSync(workRoot).filter((name) => name.startsWith('task-stream-greeting-'));
  expect(readFileSync(join(workRoot, workDir!, 'hello.txt'), 'utf8')).toBe('hello');

  // A reload resumes the same conversation from the runtime (sessionStorage keeps the scope's key).
  await page.reload();
  await expect(conversation(page)).toContainText('hello Silas');
  await expect(conversation(page)).toContainText('ended done');

  // The key went to the keyring only: not over the WebSocket, not into the ledger, the database or the log.
  expect(frames.length).toBeGreaterThan(10);
  const traffic = frames.join('\n');
  for (const form of encodingsOf(key)) expect(traffic).not.toContain(form);
  for (const file of ['silas.db', 'silas.db-wal', 'runtime.log', 'models.json']) {
    const path = join(silas.home, file);
    if (!existsSync(path)) continue;
    const bytes = readFileSync(path).toString('latin1');
    for (const form of encodingsOf(key)) expect(bytes.includes(form), `${file} holds the key`).toBe(false);
  }
  // Nor into any prompt the model received.
  for (const request of server.http.requests) for (const form of encodingsOf(key)) expect(request.body).not.toContain(form);
  expect(browserProblems).toEqual([]);
});

test('stop ends a turn whose model does not answer', async ({ page, silas }) => {
  const server = scriptedServer();
  await openCockpit(page, silas);
  await page.getByRole('combobox', { name: 'Provider' }).selectOption('openai-compatible');
  await page.getByRole('textbox', { name: 'Model' }).fill('scripted-model');
  await page.getByRole('textbox', { name: 'Base URL' }).fill(server.baseUrl);
  await page.getByRole('button', { name: 'Save' }).click();
  const done = page.getByRole('button', { name: 'Done' });
  await expect(page.getByText(/^Saved: scripted-model/)).toBeVisible();
  if (await done.isVisible()) await done.click();
  server.http.enqueue(openaiReply.hang());
  await send(page, 'take your time');
  await expect.poll(() => server.http.requests.length).toBe(1);
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Turn usage' })).toContainText('stopped');
  await expect.poll(() => server.http.requests[0]?.disconnected).toBe(true);
});

test('two cockpit tabs are two conversations: neither sees the other', async ({ page, silas, browser }) => {
  const server = scriptedServer();
  await openCockpit(page, silas);
  await page.getByRole('combobox', { name: 'Provider' }).selectOption('openai-compatible');
  await page.getByRole('textbox', { name: 'Model' }).fill('scripted-model');
  await page.getByRole('textbox', { name: 'Base URL' }).fill(server.baseUrl);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(/^Saved: scripted-model/)).toBeVisible();
  const done = page.getByRole('button', { name: 'Done' });
  if (await done.isVisible()) await done.click();
  server.http.enqueue(streamedJson(directRoute('Noted, 4417 it is.')));
  await send(page, 'my locker code is 4417');
  await expect(conversation(page)).toContainText('Noted, 4417 it is.');

  const other = await (await browser.newContext()).newPage();
  await openCockpit(other, silas);
  server.http.enqueue(streamedJson(directRoute('I do not know any locker code.')));
  await send(other, 'what is my locker code?');
  await expect(conversation(other)).toContainText('I do not know any locker code.');
  await expect(conversation(other)).not.toContainText('4417');
  // The second tab's prompt carried nothing of the first conversation.
  expect(server.http.requests.at(-1)!.body).not.toContain('4417');
  await expect(conversation(page)).not.toContainText('what is my locker code?');
  await other.context().close();
});
