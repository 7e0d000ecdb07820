import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { homePaths } from '../home/paths.js';
import { openaiReply, type ScriptedOpenAIServer } from '../llm/testing/scripted-openai-server.js';
import { startIlpRuntime, type IlpTestRuntime } from './testing/ilp-runtime.js';
import { useTempDirs } from '../testing/temp.js';
import { DISTILL_QUERIES, DISTILLED_SLICE_ID, scriptAnsweredQuery, scriptDistilledSlice } from '../ilp/testing/distillation.js';
import type { Runtime } from './types.js';

/*
 * Knowledge distillation in the running runtime (docs/ilp.md "Knowledge distillation"): three
 * compositions answered over HTTP become episodes; the cockpit's `ilp.distill` asks the planner
 * model for a slice from their shared concepts; the proposal waits in Review as an `ilp_slice`
 * card; deployed there, a specialist loads it at the next request; rolled back on the ILP page, it
 * is gone at once. Every step is in the ledger.
 */

const tempDir = useTempDirs();
const USAGE = { prompt_tokens: 1000, completion_tokens: 100 };
const SLICE_ID = DISTILLED_SLICE_ID;

let server: ScriptedOpenAIServer;
let runtime: Runtime;
let home: string;
let started: IlpTestRuntime;

beforeEach(async () => {
  started = await startIlpRuntime(tempDir());
  ({ server, runtime, home } = started);
});
afterEach(() => started.stop());

async function think(agent: string, query: string) {
  const { token, url } = JSON.parse(readFileSync(homePaths(home).controlFile, 'utf8')) as { token: string; url: string };
  const res = await fetch(`${url}ilp/${agent}/insight`, { method: 'POST', headers: { 'ILP-Method': 'THINK', Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Constitutional-Header': JSON.stringify({ domain: 'meta', depth: 0, budget_usd: 0 }) }, body: JSON.stringify({ query }) });
  return res.status;
}

async function call<T>(method: string, args: unknown): Promise<T> {
  const result = (await runtime.router.dispatch(method, args, { transport: 'ipc' })) as { ok: boolean; value?: T; error?: { message: string } };
  if (!result.ok) throw new Error(`${method}: ${result.error?.message}`);
  return result.value as T;
}

const entries = (event: string) => runtime.audit.tail(1000).filter((e) => e.event === event);

async function answerThree(): Promise<void> {
  for (const query of DISTILL_QUERIES) {
    scriptAnsweredQuery(server, USAGE);
    expect(await think('meta-agent', query)).toBe(200);
  }
}

describe('knowledge distillation in the running runtime', () => {
  it('proposes a slice from answered queries, asks in Review, deploys it for the specialists, and rolls it back', async () => {
    await answerThree();
    scriptDistilledSlice(server, USAGE);
    const distilled = await call<{ patterns: number; proposed: { id: string; slice_id: string }[] }>('ilp.distill', { min_frequency: 3 });
    expect(distilled.proposed).toEqual([expect.objectContaining({ slice_id: SLICE_ID })]);
    expect(entries('ilp.distillation')).toHaveLength(1);

    const queue = await call<{ cards: { id: string; kind: string; details: { sliceId: string; text: string }; origin?: { requester: string } }[] }>('review.list', {});
    const card = queue.cards.find((c) => c.kind === 'ilp_slice');
    expect(card).toMatchObject({ details: { sliceId: SLICE_ID, text: expect.stringContaining('A household reserve with a target level') }, origin: { requester: expect.stringContaining('knowledge distillation') } });
    await call('review.decide', { id: card!.id, choice: 'deploy' });
    expect(entries('ilp.slice_deployed')).toEqual([expect.objectContaining({ data: expect.objectContaining({ slice_id: SLICE_ID, version: 1 }) })]);
    expect((await call<{ cards: { kind: string }[] }>('review.list', {})).cards.filter((c) => c.kind === 'ilp_slice')).toEqual([]);

    // The finance specialist reads the learned slice at the next request.
    server.http.enqueue(openaiReply.object({ answer: 'Give the reserve a target and correct drift monthly.', concepts: ['reserve_target'], confidence: 0.9, reasoning: 'The learned slice says a reserve target corrected in small monthly steps keeps spending steady.', sources: [SLICE_ID], suggestions_to_invoke: [] }, USAGE));
    expect(await think('finance-agent', 'How big should my reserve target be, and how do I correct spending feedback?')).toBe(200);
    const lastHop = entries('ilp.request').at(-1)!.data as { agent: string; slices: string[] };
    expect(lastHop).toMatchObject({ agent: 'finance-agent', slices: expect.arrayContaining([SLICE_ID]) });

    const listed = await call<{ slices: { slice_id: string; deployed_version: number | null; history: { status: string; trusted: boolean }[] }[] }>('ilp.slices', {});
    expect(listed.slices).toEqual([expect.objectContaining({ slice_id: SLICE_ID, deployed_version: 1, history: [expect.objectContaining({ status: 'deployed', trusted: true })] })]);

    expect(await call('ilp.rollback', { slice_id: SLICE_ID })).toMatchObject({ kind: 'removed' });
    expect(entries('ilp.slice_rolled_back')).toHaveLength(1);
    server.http.enqueue(openaiReply.object({ answer: 'Keep a reserve.', concepts: ['reserve_target'], confidence: 0.9, reasoning: 'The budgeting basics slice says to keep a reserve and to review spending against it every month.', sources: [], suggestions_to_invoke: [] }, USAGE));
    expect(await think('finance-agent', 'How big should my reserve target be, and how do I correct spending feedback?')).toBe(200);
    expect((entries('ilp.request').at(-1)!.data as { slices: string[] }).slices).not.toContain(SLICE_ID);
  });

  it('proposes nothing and calls no model when no pattern has enough answered queries', async () => {
    await answerThree();
    const before = server.http.requests.length;
    const distilled = await call<{ patterns: number; proposed: unknown[] }>('ilp.distill', { min_frequency: 4 });
    expect(distilled).toMatchObject({ patterns: 0, proposed: [] });
    expect(server.http.requests.length).toBe(before);
    expect((await call<{ cards: { kind: string }[] }>('review.list', {})).cards.filter((c) => c.kind === 'ilp_slice')).toEqual([]);
  });
});
