import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StructuredOutputEvent } from '../../../src-shared/silas/agents.js';
import { ModelError } from '../../llm/errors.js';
import type { GenerateObjectRequest, GenerateObjectResult, ModelClient } from '../../llm/model-client.js';
import { modelStructuredCall, type ModelCallRecord } from './model-call.js';
import { REPAIR_NOTE_HEADER, runStructuredAgent } from './structured.js';

const Answer = z.strictObject({ answer: z.number() });
const details = { provider: 'openai-compatible' as const, role: 'executor' as const };

type Reply = GenerateObjectResult<unknown> | Error;

/** A ModelClient whose generateObject answers from a list and records each request. */
function fakeClient(replies: Reply[]) {
  const requests: GenerateObjectRequest<unknown>[] = [];
  const client: ModelClient = {
    role: 'executor',
    provider: 'openai-compatible',
    model: 'fake',
    streamText: () => {
      throw new Error('not used');
    },
    generateObject: async <T>(request: GenerateObjectRequest<T>) => {
      requests.push(request as GenerateObjectRequest<unknown>);
      const reply = replies.shift();
      if (reply === undefined) throw new Error('the fake client was called too often');
      if (reply instanceof Error) throw reply;
      return reply as GenerateObjectResult<T>;
    },
  };
  return { client, requests };
}

const ok = (object: unknown, inputTokens = 0, outputTokens = 0, costUsd: number | null = null): GenerateObjectResult<unknown> => ({
  object,
  rawText: JSON.stringify(object),
  usage: { inputTokens, outputTokens },
  costUsd,
});
const prompt = { system: 'Answer with a number.', messages: [{ role: 'user' as const, content: 'What is six times seven?' }] };

describe('modelStructuredCall', () => {
  it('sends the system prompt, messages, schema and signal, and maps usage for the budget', async () => {
    const { client, requests } = fakeClient([ok({ answer: 42 }, 100, 20, 0.003)]);
    const records: ModelCallRecord[] = [];
    const signal = new AbortController().signal;
    const result = await modelStructuredCall({ client, schema: Answer, onCall: (r) => records.push(r) })(prompt, undefined, { signal });

    expect(result).toEqual({ rawText: '{"answer":42}', object: { answer: 42 }, usage: { tokens: 120, cost_usd: 0.003 } });
    expect(requests[0]).toEqual({ system: prompt.system, messages: prompt.messages, schema: Answer, signal });
    expect(records).toEqual([{ usage: { inputTokens: 100, outputTokens: 20 }, costUsd: 0.003, repair: false }]);
  });

  it('appends the repair note as the last user message of the same prompt', async () => {
    const { client, requests } = fakeClient([ok({ answer: 1 })]);
    const records: ModelCallRecord[] = [];
    await modelStructuredCall({ client, schema: Answer, onCall: (r) => records.push(r) })(prompt, `${REPAIR_NOTE_HEADER}\n$.answer: expected number`);
    expect(requests[0]!.messages).toEqual([...prompt.messages, { role: 'user', content: `${REPAIR_NOTE_HEADER}\n$.answer: expected number` }]);
    expect(requests[0]!.system).toBe(prompt.system);
    expect(records[0]!.repair).toBe(true);
  });

  it('hands back the text of an answer that does not fit the schema, priced from the role, so it can be repaired', async () => {
    const refused = new ModelError('bad_response', 'does not match the schema', { ...details, rawText: '{"answer": "forty-two"}', usage: { inputTokens: 1_000_000, outputTokens: 0 } });
    const { client } = fakeClient([refused]);
    const records: ModelCallRecord[] = [];
    const result = await modelStructuredCall({ client, schema: Answer, price: { inputPerMillion: 2, outputPerMillion: 8 }, onCall: (r) => records.push(r) })(prompt);
    expect(result).toEqual({ rawText: '{"answer": "forty-two"}', usage: { tokens: 1_000_000, cost_usd: 2 } });
    expect(records).toEqual([{ usage: { inputTokens: 1_000_000, outputTokens: 0 }, costUsd: 2, repair: false }]);
  });

  it.each([
    ['auth', new ModelError('auth', 'rejected the API key in secret "k"', details)],
    ['unavailable', new ModelError('unavailable', 'could not reach the server', details)],
    ['a refused request (bad_response without an answer)', new ModelError('bad_response', 'HTTP 400', { ...details, status: 400 })],
    ['a non-model error', new Error('boom')],
  ])('lets %s propagate, and records no usage', async (_label, error) => {
    const { client } = fakeClient([error]);
    const records: ModelCallRecord[] = [];
    await expect(modelStructuredCall({ client, schema: Answer, onCall: (r) => records.push(r) })(prompt)).rejects.toBe(error);
    expect(records).toEqual([]);
  });
});

describe('modelStructuredCall under runStructuredAgent', () => {
  const run = (replies: Reply[]) => {
    const { client, requests } = fakeClient(replies);
    const events: StructuredOutputEvent[] = [];
    const result = runStructuredAgent({
      agent: 'executor',
      schema: Answer,
      prompt,
      call: modelStructuredCall({ client, schema: Answer }),
      fallback: () => ({ answer: -1 }),
      audit: (event) => events.push(event),
    });
    return { result, requests, events };
  };

  it('repairs an answer that is not JSON with one more call, charging both', async () => {
    const refused = new ModelError('bad_response', 'not JSON', { ...details, rawText: 'Sure! The answer is 42.', usage: { inputTokens: 10, outputTokens: 5 } });
    const { result, requests, events } = run([refused, ok({ answer: 42 }, 12, 3)]);
    await expect(result).resolves.toEqual({ value: { answer: 42 }, source: 'repaired', usage: { tokens: 30, cost_usd: 0 } });
    expect(requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: `${REPAIR_NOTE_HEADER}\n$: the answer is not JSON; answer with one JSON object and nothing else` });
    expect(events).toEqual([{ kind: 'repaired', agent: 'executor', first_error: '$: the answer is not JSON; answer with one JSON object and nothing else' }]);
  });

  it('falls back when the call itself fails, without a repair call', async () => {
    const { result, requests, events } = run([new ModelError('auth', 'rejected the API key in secret "k"', details)]);
    await expect(result).resolves.toMatchObject({ value: { answer: -1 }, source: 'fallback' });
    expect(requests).toHaveLength(1);
    expect(events).toEqual([expect.objectContaining({ kind: 'fallback', reason: 'call_failed', first_error: expect.stringContaining('rejected the API key') })]);
  });
});
