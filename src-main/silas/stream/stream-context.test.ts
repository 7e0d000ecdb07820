import { afterEach, describe, expect, it } from 'vitest';
import type { StreamContextView, StreamEvent, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { saveModelsAsOwner } from '../../llm/testing/sealed-models.js';
import { openaiReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from '../../llm/testing/scripted-openai-server.js';
import { useTempDirs } from '../../testing/temp.js';
import { directRoute, homeIn, startStreamHarness, streamedJson, type StreamHarness, type TestConnection } from './testing/stream.js';

/*
 * The context that forgets deliberately (spec 002 §5.7 Tier 2, ADR-015), through the real runtime:
 * the `scorer` role is one more model in HOME/models.json, on its own scripted server. A small
 * window makes a long conversation reach Tier 2: total 3000 tokens, eviction above 50%, and a
 * profile giving the chronicle 70%, so Tier 1 (zone budgets) is not enough and the scorer is asked.
 */

const tempDir = useTempDirs('silas-stream-context-');
let harness: StreamHarness | null = null;
let scorer: ScorerServer | null = null;
type ScorerServer = ScriptedOpenAIServer;

afterEach(async () => {
  await harness?.close();
  await scorer?.http.close();
  harness = null;
  scorer = null;
});

const BUDGET = { total: 3_000, system_max: 0, eviction_threshold_pct: 0.5, profiles: { conversation: { chronicle_pct: 0.7, memory_pct: 0.05, workspace_pct: 0.05 } }, default_profile: 'conversation' };

async function start(): Promise<{ h: StreamHarness; scorer: ScorerServer }> {
  const h = (harness = await startStreamHarness(homeIn(tempDir()), { overrides: { contextBudget: BUDGET } }));
  const s = (scorer = await startScriptedOpenAIServer());
  const role = (baseUrl: string, maxRetries: number) => ({ provider: 'openai-compatible', model: 'scripted-model', baseUrl, maxRetries });
  const saved = saveModelsAsOwner(h.home, h.store, { proxy: role(h.server.baseUrl, 2), planner: role(h.server.baseUrl, 2), executor: role(h.server.baseUrl, 2), scorer: role(s.baseUrl, 0) });
  if (!saved.ok) throw new Error(saved.problems.join('; '));
  return { h, scorer: s };
}

const ledger = (h: StreamHarness, event: string) => h.runtime.audit.tail(5000).filter((entry) => entry.event === event).map((entry) => entry.data as Record<string, unknown>);
/** About 200 tokens (§5.13: characters ÷ 3.5), each naming its turn so its episode can be found. */
const message = (i: number) => `message ${i} about topic-${i}: ${'we are planning the garden beds and the watering rota '.repeat(12)}`;

async function say(h: StreamHarness, tab: TestConnection, scope: string, i: number): Promise<StreamEvent[]> {
  h.server.http.enqueue(streamedJson(directRoute(`Noted ${i}.`)));
  return tab.turn((await tab.ok<{ turn_id: string }>('stream.send', { scope, text: message(i) })).turn_id);
}

describe('Tier 2 eviction in a running conversation (§5.7)', () => {
  it.each([
    ['websocket', 'auth'],
    ['local-socket', 'external'],
  ] as const)('over %s: the scorer evicts the groups it names, then its fallback takes over; every evicted item lands in the raw lane with its taint (%s)', async (transport, taint) => {
    const { h, scorer: s } = await start();
    const tab = h.connect('session-tab', transport);
    const { scope } = await tab.ok<StreamOpenResult>('stream.open', {});
    // The owner's conversations share the owner's memory; an unsigned terminal keeps its own (turn-processor.ts).
    const memoryScope = transport === 'websocket' ? 'owner' : scope;
    const context = () => tab.ok<StreamContextView>('stream.context', { scope });

    // A long conversation: before each turn, the scorer is scripted to evict the two oldest chronicle blocks.
    let named: string[] = [];
    let scorerTurn: StreamEvent[] | null = null;
    for (let i = 1; i <= 14 && scorerTurn === null; i += 1) {
      const chronicle = (await context()).zones[1]!.items;
      if (s.http.pending === 0 && chronicle.length >= 2) {
        named = [chronicle[0]!.ctx_id, chronicle[1]!.ctx_id];
        s.http.enqueue(openaiReply.object({ keep_groups: [], evict_groups: [{ reason: 'the opening exchange', block_ids: named }] }));
      }
      const events = await say(h, tab, scope, i);
      if (ledger(h, 'silas.stream.context_evicted').some((entry) => entry.tier === 'scorer')) scorerTurn = events;
    }
    expect(scorerTurn).not.toBeNull();

    expect(ledger(h, 'silas.stream.context_evicted')).toEqual([expect.objectContaining({ scope_id: scope, tier: 'scorer', scorer: 'model', items: 2, chronicle: 2, over_threshold: false, reason: 'scorer: the opening exchange' })]);
    const prompt = (s.http.requests[0]!.json as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('Current goal: ');
    expect(prompt).toContain(`id=${named[0]} `);
    // The scorer's call is part of the turn's cost.
    const finished = scorerTurn!.find((event) => event.type === 'turn_finished');
    expect(finished).toMatchObject({ outcome: 'answered', usage: { model_calls: 2 } });

    const after = await context();
    expect(after.zones[1]!.items.map((item) => item.ctx_id)).not.toEqual(expect.arrayContaining([named[0]]));
    expect(after.last_eviction).toMatchObject({ tier: 'scorer', why: 'scorer: the opening exchange', items: named.map((ctx_id) => expect.objectContaining({ ctx_id, reason: 'scorer' })) });

    // The scorer has nothing more scripted (it answers 400): the next turn over the threshold uses the aggressive heuristic.
    for (let i = 15; i <= 20 && !ledger(h, 'silas.stream.context_evicted').some((entry) => entry.tier === 'fallback'); i += 1) await say(h, tab, scope, i);
    expect(ledger(h, 'silas.stream.context_evicted').at(-1)).toMatchObject({ tier: 'fallback', scorer: 'fallback', over_threshold: false });
    expect(ledger(h, 'silas.agent.output_fallback').at(-1)).toMatchObject({ scope_id: scope, agent: 'scorer', reason: 'call_failed' });
    expect((await context()).last_eviction).toMatchObject({ tier: 'fallback' });

    // Every evicted item is an episode of the raw lane, with its taint, from this conversation.
    const evicted = ledger(h, 'silas.stream.context_evicted').reduce((sum, entry) => sum + (entry.items as number), 0);
    const raw = h.runtime.silasMemory().memory.list(memoryScope, { tier: 'low_reingestion', types: ['episode'], limit: 100 });
    const episodes = raw.filter((episode) => episode.source_kind === 'context_evicted');
    expect(episodes).toHaveLength(evicted);
    expect(episodes.every((episode) => episode.taint === taint && episode.session_id === scope)).toBe(true);
    expect(episodes.some((episode) => episode.content.includes('message 1 about topic-1:'))).toBe(true);
  });

  it('shows the context only to the session holding the scope', async () => {
    const { h } = await start();
    const alice = h.connect('session-alice');
    const bob = h.connect('session-bob');
    const { scope } = await alice.ok<StreamOpenResult>('stream.open', {});
    await say(h, alice, scope, 1);

    const view = await alice.ok<StreamContextView>('stream.context', { scope });
    expect(view).toMatchObject({ scope, turns: 1, profile: 'conversation', total_budget: 3_000, threshold: 1_500 });
    expect(view.zones[1]!.items.map((item) => item.source)).toEqual(['channel:cockpit', 'agent:proxy']);

    expect(await bob.call('stream.context', { scope })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(ledger(h, 'silas.stream.scope_refused')).toEqual([expect.objectContaining({ scope_id: scope, reason: 'the scope is not held by this session' })]);
  });
});
