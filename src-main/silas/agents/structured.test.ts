import { describe, expect, it } from 'vitest';
import { AgentResponse, StructuredOutputEvent, routeDecisionSchema, type AgentResponseInput } from '../../../src-shared/silas/agents.js';
import { plannerFallback, proxyFallback } from './fallbacks.js';
import { REPAIR_NOTE_HEADER, jsonPath, runStructuredAgent, type AgentPrompt, type StructuredCall, type StructuredCallResult } from './structured.js';

const prompt: AgentPrompt = { system: 'You are a test.', messages: [{ role: 'user', content: 'hello' }] };
const good: AgentResponseInput = { message: 'Hi there' };
const KEY = `sk-proj-${'A1b2C3d4'.repeat(6)}`;

/** A fake model: answers in order and records what it was asked. */
function fakeModel(answers: ReadonlyArray<StructuredCallResult | Error>) {
  const calls: Array<{ prompt: AgentPrompt; repairNote: string | undefined }> = [];
  const call: StructuredCall = async (p, repairNote) => {
    calls.push({ prompt: p, repairNote });
    const answer = answers[calls.length - 1];
    if (answer === undefined) throw new Error('the fake model was called too often');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { call, calls };
}

function run(answers: ReadonlyArray<StructuredCallResult | Error>, extra: { signal?: AbortSignal } = {}) {
  const model = fakeModel(answers);
  const events: StructuredOutputEvent[] = [];
  const result = runStructuredAgent({ agent: 'planner', schema: AgentResponse, prompt, call: model.call, fallback: plannerFallback, audit: (e) => events.push(e), ...extra });
  return { result, model, events };
}

describe('runStructuredAgent (§5.1.0)', () => {
  it('returns a valid first answer as it is, with defaults filled, after one call and no audit event', async () => {
    const { result, model, events } = run([{ rawText: '', object: good, usage: { tokens: 12, cost_usd: 0.001 } }]);
    await expect(result).resolves.toEqual({
      value: { message: 'Hi there', memory_queries: [], memory_ops: [], plan_action: null, needs_approval: true },
      source: 'model',
      usage: { tokens: 12, cost_usd: 0.001 },
    });
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]!.repairNote).toBeUndefined();
    expect(events).toEqual([]);
  });

  it('parses the raw text as JSON when the provider gives no object (a ```json fence is tolerated)', async () => {
    await expect(run([{ rawText: JSON.stringify(good) }]).result).resolves.toMatchObject({ source: 'model', value: { message: 'Hi there' } });
    await expect(run([{ rawText: '```json\n{"message": "fenced"}\n```' }]).result).resolves.toMatchObject({ source: 'model', value: { message: 'fenced' } });
  });

  it('makes exactly one repair call that carries the validation errors by JSON path, and returns the repaired answer', async () => {
    const invalid = { message: 'ok', memory_queries: [1, 2, 3, 4].map((n) => ({ strategy: 'keyword', query: `q${n}` })), plan_action: { action: 'launch' } };
    const { result, model, events } = run([
      { rawText: '', object: invalid, usage: { tokens: 10 } },
      { rawText: '', object: good, usage: { tokens: 5, cost_usd: 0.5 } },
    ]);
    await expect(result).resolves.toMatchObject({ source: 'repaired', value: { message: 'Hi there' }, usage: { tokens: 15, cost_usd: 0.5 } });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[1]!.prompt).toBe(prompt);
    const note = model.calls[1]!.repairNote!;
    expect(note.startsWith(`${REPAIR_NOTE_HEADER}\n`)).toBe(true);
    expect(note).toContain('$.memory_queries: at most 3 memory queries per response');
    expect(note).toContain('$.plan_action.action: expected one of: propose, revise, execute_next, abort');
    expect(events).toEqual([{ kind: 'repaired', agent: 'planner', first_error: expect.stringContaining('$.memory_queries') }]);
  });

  it('after a second invalid answer returns the fallback and audits both error summaries, never the whole answer', async () => {
    const secretAnswer = `{"message": "the key is ${KEY}", "needs_approval": "no", ${'"padding": "x", '.repeat(50)}"z": 1}`;
    const { result, model, events } = run([{ rawText: 'I would rather chat.' }, { rawText: secretAnswer }]);
    const outcome = await result;
    expect(outcome.source).toBe('fallback');
    expect(outcome.value).toEqual(AgentResponse.parse(plannerFallback()));
    expect(outcome.value.plan_action).toBeNull();
    expect(model.calls).toHaveLength(2);
    expect(events).toHaveLength(1);
    const event = StructuredOutputEvent.parse(events[0]);
    expect(event).toMatchObject({ kind: 'fallback', agent: 'planner', reason: 'schema_invalid_twice', raw_chars: secretAnswer.length });
    if (event.kind !== 'fallback') throw new Error('expected a fallback event');
    expect(event.first_error).toBe('$: the answer is not JSON; answer with one JSON object and nothing else');
    expect(event.repair_error).toContain('$.needs_approval: expected true or false');
    expect(event.repair_error).toContain('$: unknown field(s) "padding", "z"');
    expect(event.raw_excerpt.length).toBeLessThanOrEqual(201);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain('I would rather chat');
  });

  it('returns the fallback when the call throws, without a repair call, and audits the redacted error', async () => {
    const { result, model, events } = run([new Error(`provider rejected key ${KEY}`)]);
    await expect(result).resolves.toMatchObject({ source: 'fallback', value: { message: plannerFallback().message } });
    expect(model.calls).toHaveLength(1);
    expect(events).toEqual([{ kind: 'fallback', agent: 'planner', reason: 'call_failed', first_error: expect.stringContaining('Error: provider rejected key'), repair_error: null, raw_chars: 0, raw_excerpt: '' }]);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('returns the fallback when the repair call throws', async () => {
    const { result, model, events } = run([{ rawText: '[]' }, new Error('timeout after 30s')]);
    await expect(result).resolves.toMatchObject({ source: 'fallback' });
    expect(model.calls).toHaveLength(2);
    expect(events[0]).toMatchObject({ kind: 'fallback', reason: 'repair_call_failed', first_error: expect.stringContaining('$:'), repair_error: 'Error: timeout after 30s' });
  });

  it('treats an empty answer from the client as a failed call', async () => {
    const { result, events } = run([undefined as unknown as StructuredCallResult]);
    await expect(result).resolves.toMatchObject({ source: 'fallback' });
    expect(events[0]).toMatchObject({ reason: 'call_failed' });
  });

  it('rethrows instead of falling back when the turn was cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, events } = run([new Error('aborted')], { signal: controller.signal });
    await expect(result).rejects.toThrow('aborted');
    expect(events).toEqual([]);
  });

  it('gives the Proxy its own fallback: a direct route with an error message, status register, confirm mode and the default profile', async () => {
    const schema = routeDecisionSchema(['conversation', 'coding']);
    const model = fakeModel([{ rawText: '', object: { route: 'planner', reason: 'x', response: { message: 'both' }, interaction_register: 'execution', interaction_mode: 'act_and_report', context_profile: 'unknown' } }, { rawText: 'nope' }]);
    const events: StructuredOutputEvent[] = [];
    const outcome = await runStructuredAgent({ agent: 'proxy', schema, prompt, call: model.call, fallback: proxyFallback('conversation'), audit: (e) => events.push(e) });
    expect(model.calls[1]!.repairNote).toContain('$.response: a planner route has no response');
    expect(model.calls[1]!.repairNote).toContain('$.context_profile: unknown context profile; expected one of: conversation, coding');
    expect(outcome).toMatchObject({
      source: 'fallback',
      value: { route: 'direct', interaction_register: 'status', interaction_mode: 'confirm_only_when_required', context_profile: 'conversation', response: { plan_action: null } },
    });
    expect(events[0]).toMatchObject({ agent: 'proxy', reason: 'schema_invalid_twice' });
  });

  it('surfaces a fallback that does not fit its own schema as a bug', async () => {
    const model = fakeModel([new Error('down')]);
    const attempt = runStructuredAgent({ agent: 'proxy', schema: routeDecisionSchema(['coding']), prompt, call: model.call, fallback: proxyFallback('conversation'), audit: () => undefined });
    await expect(attempt).rejects.toThrow(/unknown context profile/);
  });
});

describe('jsonPath', () => {
  it('names nested fields, list indexes and odd keys', () => {
    expect(jsonPath([])).toBe('$');
    expect(jsonPath(['response', 'memory_ops', 2, 'content'])).toBe('$.response.memory_ops[2].content');
    expect(jsonPath(['args', 'a key'])).toBe('$.args["a key"]');
  });
});
