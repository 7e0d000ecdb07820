import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { fakeApiKey } from '../../llm/testing/llm.js';
import { openaiReply } from '../../llm/testing/scripted-openai-server.js';
import { anthropicReply, startScriptedAnthropicServer } from '../../llm/testing/scripted-anthropic-server.js';
import { NamedSecrets } from '../../keys/named-secrets.js';
import { saveModelsAsOwner } from '../../llm/testing/sealed-models.js';
import { useTempDirs } from '../../testing/temp.js';
import { PLANNER_FALLBACK_MESSAGE, PROXY_FALLBACK_MESSAGE } from '../agents/fallbacks.js';
import { planCards, directRoute, executorWritesGreeting, homeIn, plannerAnswer, plannerRoute, startStreamHarness, streamedJson, until, type StreamHarness } from './testing/stream.js';

// The Stream end to end in the runtime (spec 002 §5.1, §5.1.2; docs/silas/stream.md): the scripted
// OpenAI-compatible server plays every model role; ledger, queue, approval engine and sandbox are
// real.
const tempDir = useTempDirs('silas-stream-');
let harness: StreamHarness | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
});

async function start(options: Parameters<typeof startStreamHarness>[1] = {}): Promise<StreamHarness> {
  harness = await startStreamHarness(homeIn(tempDir()), options);
  return harness;
}

const ledger = (h: StreamHarness, event: string) => h.runtime.audit.tail(2000).filter((entry) => entry.event === event).map((entry) => entry.data as Record<string, unknown>);
const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((event): event is Extract<StreamEvent, { type: T }> => event.type === type);

describe('a turn of the Stream', () => {
  it('answers directly: the message is streamed as drafts, then sent, metered and recorded', async () => {
    const h = await start();
    const owner = h.connect('session-a');
    const opened = await owner.ok<StreamOpenResult>('stream.open', {});
    expect(opened).toMatchObject({ resumed: false, history: [], busy: false, models: { ready: true } });
    h.server.http.enqueue(streamedJson(directRoute('Hello! I am Silas. How can I help today?'), { prompt_tokens: 300, completion_tokens: 40 }));

    const sent = await owner.ok<{ turn_id: string }>('stream.send', { scope: opened.scope, text: 'hello there' });
    const events = await owner.turn(sent.turn_id);

    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['turn_started', 'draft', 'message', 'turn_finished']));
    const drafts = ofType(events, 'draft');
    expect(drafts.length).toBeGreaterThan(2);
    expect(drafts.map((draft) => draft.delta).join('')).toBe('Hello! I am Silas. How can I help today?');
    const [answer] = ofType(events, 'message');
    expect(answer!.message).toMatchObject({ sender: 'silas', text: 'Hello! I am Silas. How can I help today?', taint: 'auth', turn: 1 });
    const [finished] = ofType(events, 'turn_finished');
    expect(finished).toMatchObject({ outcome: 'answered', error: null, usage: { input_tokens: 300, output_tokens: 40, model_calls: 1 } });
    expect(finished!.usage.prompt_tokens).toBeGreaterThan(100);
    expect(finished!.usage.cost_usd).toBeCloseTo((300 * 1 + 40 * 2) / 1e6, 12);

    expect(ledger(h, 'silas.stream.message_received')).toEqual([{ scope_id: opened.scope, turn: 1, taint: 'auth', chars: 11, signed: false }]);
    expect(ledger(h, 'silas.stream.routed')).toEqual([expect.objectContaining({ scope_id: opened.scope, turn: 1, route: 'direct', register: 'status', profile: 'conversation', source: 'model' })]);
    expect(ledger(h, 'silas.stream.turn_completed')).toEqual([expect.objectContaining({ scope_id: opened.scope, turn: 1, outcome: 'answered', input_tokens: 300, output_tokens: 40, model_calls: 1 })]);
    // The prompt carried the person's message in the chronicle's format.
    const body = h.server.http.requests[0]!.json as { messages: { role: string; content: string }[]; stream: boolean };
    expect(body.stream).toBe(true);
    expect(body.messages.at(-1)!.content).toContain('[auth] cockpit: hello there');
  });

  it('a proposed plan is shown for approval even when the agent says it needs none; approved in Review, executed in the sandbox, verified and reported', async () => {
    const h = await start();
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    h.server.http.enqueue(streamedJson(plannerRoute()), streamedJson(plannerAnswer('I will write the greeting file; approve the plan to start.', false)), ...executorWritesGreeting());

    const sent = await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'please write hello into hello.txt' });
    const events = await owner.turn(sent.turn_id);
    expect(ofType(events, 'turn_finished')[0]).toMatchObject({ outcome: 'planned' });
    expect(ofType(events, 'message')[0]!.message.text).toBe('I will write the greeting file; approve the plan to start.');
    expect(ledger(h, 'silas.stream.plan_proposed')).toEqual([expect.objectContaining({ scope_id: scope, work_item_id: 'task-stream-greeting', agent_needs_approval: false, approval_forced: true })]);

    // The plan waits in Review as a card the person signs.
    const card = await until(() => planCards(h).find((c) => c.kind === 'plan'), 'the plan card');
    expect(ofType(owner.events, 'work').map((w) => w.status)).toEqual(['awaiting_approval']);
    const decided = await h.runtime.router.dispatch('review.decide', { id: card.id, choice: 'approve' }, { transport: 'ipc' });
    expect(decided.ok).toBe(true);

    await until(() => ofType(owner.events, 'work').some((w) => w.status === 'done'), 'the work to finish');
    expect(ofType(owner.events, 'work').map((w) => w.status)).toEqual(['awaiting_approval', 'approved', 'running', 'done']);
    const done = ofType(owner.events, 'work').at(-1)!;
    expect(done.detail).toContain('PASS greeting');
    const report = ofType(owner.events, 'message').at(-1)!;
    // Written after reading tool output: external (§5.12).
    expect(report.message).toMatchObject({ sender: 'system', text: expect.stringContaining('ended done'), taint: 'external' });
    // The executor's next steps come back as suggestion chips marked with their source (§5.1 step 13, §0.5 item 8).
    expect(report.chips).toEqual([{ value: 'Show me hello.txt', label: 'Show me hello.txt', source: 'executor', taint: 'external' }]);
    const workDirs = ledger(h, 'silas.executor.tool_call').length;
    expect(workDirs).toBeGreaterThan(0);
    expect(ledger(h, 'silas.plan_approval.approved')).toHaveLength(1);
    expect(ledger(h, 'silas.stream.work_progress').map((p) => p.status)).toEqual(['awaiting_approval', 'approved', 'running', 'done']);
    // The executor's calls are costed against the work item.
    expect(ledger(h, 'silas.agent.model_usage').filter((u) => u.work_item_id === 'task-stream-greeting')).toHaveLength(2);
  });

  it('a denied plan runs nothing and says so in the conversation', async () => {
    const h = await start();
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    h.server.http.enqueue(streamedJson(plannerRoute()), streamedJson(plannerAnswer('Here is a plan.', true)));
    await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'write the greeting' })).turn_id);
    const card = await until(() => planCards(h).find((c) => c.kind === 'plan'), 'the plan card');
    expect((await h.runtime.router.dispatch('review.decide', { id: card.id, choice: 'deny' }, { transport: 'ipc' })).ok).toBe(true);
    await until(() => ofType(owner.events, 'work').some((w) => w.status === 'declined'), 'the decline');
    expect(ofType(owner.events, 'message').at(-1)!.message.text).toContain('was not approved');
    expect(ledger(h, 'silas.executor.execute_requested')).toEqual([]);
    expect(h.server.http.pending).toBe(0);
  });

  it('an answer that fails its schema twice gets the fallback, recorded in the ledger; the turn is still answered', async () => {
    const h = await start();
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    h.server.http.enqueue(openaiReply.stream({ text: ['Sure, happy to help!'] }), streamedJson({ route: 'direct', reason: 'x' }));
    const events = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'hi' })).turn_id);
    expect(ofType(events, 'message')[0]!.message.text).toBe(PROXY_FALLBACK_MESSAGE);
    expect(ofType(events, 'turn_finished')[0]).toMatchObject({ outcome: 'answered', usage: { model_calls: 2 } });
    expect(ledger(h, 'silas.agent.output_fallback')).toEqual([expect.objectContaining({ scope_id: scope, turn: 1, agent: 'proxy', reason: 'schema_invalid_twice' })]);
    expect(PLANNER_FALLBACK_MESSAGE).not.toBe(PROXY_FALLBACK_MESSAGE);
  });

  it('retries a 429 and answers; a provider that hangs ends the turn with a clear message', async () => {
    const h = await start({ timeoutMs: 1500 });
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    h.server.http.enqueue(openaiReply.error(429, 'slow down', { 'retry-after': '0' }), streamedJson(directRoute('Back again.')));
    const first = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'are you there?' })).turn_id);
    expect(ofType(first, 'message')[0]!.message.text).toBe('Back again.');

    h.server.http.enqueue(openaiReply.hang());
    const second = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'and now?' })).turn_id);
    const [finished] = ofType(second, 'turn_finished');
    expect(finished!.error).toMatch(/OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+\/v1 sent nothing for 1500 ms/);
    expect(finished!.error).toContain('raise models.proxy.timeoutMs');
    expect(ofType(second, 'message')[0]!.message).toMatchObject({ sender: 'system', text: finished!.error });
  });

  it('with no model set up, open says so and a message gets the first-run instruction, never a stack trace', async () => {
    const h = await start({ configure: false });
    const owner = h.connect('session-a');
    const opened = await owner.ok<StreamOpenResult>('stream.open', {});
    expect(opened.models.ready).toBe(false);
    expect(opened.models.roles.find((r) => r.role === 'proxy')!.problem).toContain("cockpit's Stream page");
    const events = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope: opened.scope, text: 'hello' })).turn_id);
    expect(ofType(events, 'turn_finished')[0]).toMatchObject({ outcome: 'failed', error: expect.stringContaining('no model is set up for the proxy role') });
  });

  it('a provider that rejects the key: the Stream names the provider and the fix, and the key appears nowhere', async () => {
    const key = fakeApiKey();
    const h = await start({ key });
    const owner = h.connect('session-a');
    const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
    h.server.http.enqueue(openaiReply.error(401, `Incorrect API key provided: ${key}`));
    const events = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'hello' })).turn_id);
    const error = ofType(events, 'turn_finished')[0]!.error!;
    expect(error).toContain('OpenAI-compatible server');
    expect(error).toContain('run `silas secrets set scripted-key` with a valid key');
    expect(JSON.stringify(owner.events)).not.toContain(key);
    expect(h.server.http.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    await h.close();
    harness = null;
    for (const file of ['silas.db', 'silas.db-wal', 'runtime.log']) {
      const path = join(h.home, file);
      if (existsSync(path)) expect(readFileSync(path).includes(Buffer.from(key))).toBe(false);
    }
  });

  it('speaks Anthropic\'s and OpenRouter\'s wire formats too: the same turn, streamed, with the key from the keyring', async () => {
    const h = await start();
    const anthropic = await startScriptedAnthropicServer();
    try {
      const key = fakeApiKey('sk-ant');
      new NamedSecrets(h.store).set('anthropic-key', key, { origins: [anthropic.baseUrl] });
      new NamedSecrets(h.store).set('openrouter-key', fakeApiKey('sk-or'), { origins: [h.server.baseUrl] });
      const anthropicRole = { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: anthropic.baseUrl, apiKeySecret: 'anthropic-key' };
      const routerRole = { provider: 'openrouter', model: 'meta-llama/llama-3.1-8b-instruct', baseUrl: h.server.baseUrl, apiKeySecret: 'openrouter-key' };
      expect(saveModelsAsOwner(h.home, h.store, { proxy: anthropicRole, planner: routerRole, executor: routerRole }).ok).toBe(true);
      const owner = h.connect('session-a');
      const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
      const text = JSON.stringify(directRoute('Hello from Claude.'));
      anthropic.http.enqueue(anthropicReply.stream([text.slice(0, 40), text.slice(40, 80), text.slice(80)]));
      const events = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'hi' })).turn_id);
      expect(ofType(events, 'draft').map((d) => d.delta).join('')).toBe('Hello from Claude.');
      expect(ofType(events, 'message')[0]!.message.text).toBe('Hello from Claude.');
      expect(anthropic.http.requests[0]!.headers['x-api-key']).toBe(key);

      anthropic.http.enqueue(anthropicReply.stream([JSON.stringify(plannerRoute())]));
      h.server.http.enqueue(streamedJson({ message: 'Planned via OpenRouter.', plan_action: null, needs_approval: true }));
      const planned = await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'think harder' })).turn_id);
      expect(ofType(planned, 'message')[0]!.message.text).toBe('Planned via OpenRouter.');
      expect(h.server.http.requests.at(-1)!.headers.authorization).toMatch(/^Bearer sk-or-/);
      expect(h.server.http.pending).toBe(0);
      expect(ledger(h, 'silas.agent.output_repaired')).toEqual([]);
    } finally {
      await anthropic.http.close();
    }
  });
});
