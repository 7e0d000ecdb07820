import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { NamedSecrets } from '../keys/named-secrets.js';
import { createModelClients } from './ai-sdk-client.js';
import { clientFor, collect, failureOf, fakeApiKey, scratchSecrets } from './testing/llm.js';
import { ModelError } from './errors.js';
import { startScriptedOpenAIServer, openaiReply, type ScriptedOpenAIServer } from './testing/scripted-openai-server.js';
import { RoleModelConfig } from '../../src-shared/llm/config.js';

// The OpenAI-compatible path end to end: the real AI SDK against the scripted server's real wire
// format, the key from the real OS keyring (scripts/with-keyring.sh).
let server: ScriptedOpenAIServer;
let secrets: NamedSecrets;
let cleanup: () => void;
let key: string;

beforeEach(async () => {
  server = await startScriptedOpenAIServer();
  ({ secrets, cleanup } = scratchSecrets());
  key = fakeApiKey();
  secrets.set('local-llm-key', key, { origins: [server.baseUrl] });
});

afterEach(async () => {
  await server.http.close();
  cleanup();
});

const config = (extra: Record<string, unknown> = {}) => ({ provider: 'openai-compatible' as const, model: 'llama3.1:8b', baseUrl: server.baseUrl, apiKeySecret: 'local-llm-key', ...extra });

describe('streaming text', () => {
  it('yields the pieces in order and finishes with usage and cost from the price table', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['Hel', 'lo, ', 'world'], usage: { prompt_tokens: 1200, completion_tokens: 300 } }));
    const client = clientFor('proxy', config({ price: { inputPerMillion: 3, outputPerMillion: 15 }, temperature: 0.2, maxTokens: 512 }), { secrets });
    const events = await collect(client.streamText({ system: 'You are Silas.', messages: [{ role: 'user', content: 'Say hello' }] }));

    expect(events.filter((e) => e.type === 'text-delta').map((e) => e.text)).toEqual(['Hel', 'lo, ', 'world']);
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1200, outputTokens: 300 }, costUsd: (1200 * 3 + 300 * 15) / 1e6 });
    expect(events.filter((e) => e.type === 'finish')).toHaveLength(1);

    const [request] = server.http.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.json).toMatchObject({
      model: 'llama3.1:8b',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 512,
      messages: [
        { role: 'system', content: 'You are Silas.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
  });

  it('sends the key only in the Authorization header', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['ok'] }));
    await collect(clientFor('proxy', config(), { secrets }).streamText({ system: 's', messages: [{ role: 'user', content: 'hi' }] }));
    const [request] = server.http.requests;
    expect(request!.headers.authorization).toBe(`Bearer ${key}`);
    const carrying = request!.rawHeaders.filter((_, i) => i % 2 === 1 && request!.rawHeaders[i]!.includes(key));
    expect(carrying).toEqual([`Bearer ${key}`]);
    expect(request!.body).not.toContain(key);
    expect(request!.path).not.toContain(key);
  });

  it('talks to a keyless local server without an Authorization header', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['local'] }));
    const { apiKeySecret: _, ...keyless } = config();
    const events = await collect(clientFor('executor', keyless, { secrets }).streamText({ system: 's', messages: [{ role: 'user', content: 'hi' }] }));
    expect(events[0]).toEqual({ type: 'text-delta', text: 'local' });
    expect(server.http.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('reports a finish without usage as zero tokens, and no cost without a price', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['x'] }));
    const events = await collect(clientFor('proxy', config(), { secrets }).streamText({ system: 's', messages: [{ role: 'user', content: 'hi' }] }));
    expect(events.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: 0, outputTokens: 0 }, costUsd: null });
  });
});

describe('tool calls', () => {
  const tools = {
    shell_exec: { description: 'Run a shell command in the sandbox', inputSchema: z.object({ command: z.string(), timeout_s: z.number().optional() }) },
  };

  it('assembles streamed argument fragments into one call, and offers the tools in the request', async () => {
    server.http.enqueue(
      openaiReply.stream({
        text: ['Let me look.'],
        toolCalls: [{ id: 'call_1', name: 'shell_exec', arguments: ['{"comm', 'and": "ls -', 'la", "timeout_s": 5}'] }],
        usage: { prompt_tokens: 50, completion_tokens: 20 },
      }),
    );
    const events = await collect(clientFor('executor', config(), { secrets }).streamText({ system: 's', messages: [{ role: 'user', content: 'list files' }], tools }));
    expect(events).toEqual([
      { type: 'text-delta', text: 'Let me look.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'shell_exec', input: { command: 'ls -la', timeout_s: 5 } },
      { type: 'finish', finishReason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 20 }, costUsd: null },
    ]);
    const body = server.http.requests[0]!.json as { tools: { type: string; function: { name: string; description: string; parameters: { properties: object } } }[] };
    expect(body.tools).toHaveLength(1);
    expect(body.tools[0]).toMatchObject({ type: 'function', function: { name: 'shell_exec', description: 'Run a shell command in the sandbox', parameters: { properties: { command: { type: 'string' } } } } });
  });

  it('marks a call whose input does not match the tool schema as invalid instead of failing the stream', async () => {
    server.http.enqueue(openaiReply.stream({ toolCalls: [{ id: 'call_2', name: 'shell_exec', arguments: '{"cmd": 1}' }] }));
    const events = await collect(clientFor('executor', config(), { secrets }).streamText({ system: 's', messages: [{ role: 'user', content: 'x' }], tools }));
    const call = events.find((e) => e.type === 'tool-call');
    expect(call).toMatchObject({ type: 'tool-call', toolName: 'shell_exec', invalid: expect.any(String) });
  });

  it('sends earlier tool calls and their results back in the wire format', async () => {
    server.http.enqueue(openaiReply.stream({ text: ['Done.'] }));
    await collect(
      clientFor('executor', config(), { secrets }).streamText({
        system: 's',
        tools,
        messages: [
          { role: 'user', content: 'list files' },
          { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'call_1', toolName: 'shell_exec', input: { command: 'ls' } }] },
          { role: 'tool', toolCallId: 'call_1', toolName: 'shell_exec', output: 'a.txt\nb.txt' },
        ],
      }),
    );
    const messages = (server.http.requests[0]!.json as { messages: unknown[] }).messages;
    expect(messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'shell_exec', arguments: '{"command":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\nb.txt' },
    ]);
  });
});

describe('structured output', () => {
  const RouteDecision = z.object({ route: z.enum(['direct', 'planner']), reason: z.string() });

  it('parses the answer through the zod schema and asks for it with a JSON schema', async () => {
    server.http.enqueue(openaiReply.object({ route: 'planner', reason: 'needs a plan' }, { prompt_tokens: 400, completion_tokens: 30 }));
    const client = clientFor('proxy', config({ price: { inputPerMillion: 0.5, outputPerMillion: 1.5 } }), { secrets });
    const result = await client.generateObject({ system: 'Route the message.', messages: [{ role: 'user', content: 'refactor the parser' }], schema: RouteDecision });
    expect(result.object).toEqual({ route: 'planner', reason: 'needs a plan' });
    expect(result.rawText).toBe('{"route":"planner","reason":"needs a plan"}');
    expect(result.usage).toEqual({ inputTokens: 400, outputTokens: 30 });
    expect(result.costUsd).toBeCloseTo((400 * 0.5 + 30 * 1.5) / 1e6, 12);
    const body = server.http.requests[0]!.json as { response_format: { type: string; json_schema: { schema: { properties: object } } } };
    expect(body.response_format.type).toBe('json_schema');
    expect(Object.keys(body.response_format.json_schema.schema.properties)).toEqual(['route', 'reason']);
  });

  it('refuses an answer that does not match, keeping its text and usage for the repair retry', async () => {
    server.http.enqueue(openaiReply.object({ route: 'sideways' }, { prompt_tokens: 10, completion_tokens: 5 }));
    const error = await failureOf(clientFor('proxy', config(), { secrets }).generateObject({ system: 's', messages: [{ role: 'user', content: 'x' }], schema: RouteDecision }));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'bad_response', rawText: '{"route":"sideways"}', usage: { inputTokens: 10, outputTokens: 5 } });
    expect((error as ModelError).message).toMatch(/does not match the expected schema/);
    expect(server.http.requests).toHaveLength(1);
  });

  it('refuses text that is not JSON at all', async () => {
    server.http.enqueue(openaiReply.completion({ content: 'Sure! Here is the route: planner' }));
    const error = await failureOf(clientFor('proxy', config(), { secrets }).generateObject({ system: 's', messages: [{ role: 'user', content: 'x' }], schema: RouteDecision }));
    expect(error).toMatchObject({ code: 'bad_response', rawText: 'Sure! Here is the route: planner' });
  });
});

describe('clients per role', () => {
  it('builds one client for each configured role and none for the others', () => {
    const clients = createModelClients({ planner: RoleModelConfig.parse(config()), executor: RoleModelConfig.parse(config({ model: 'qwen2.5-coder' })) }, { secrets });
    expect(Object.keys(clients).sort()).toEqual(['executor', 'planner']);
    expect(clients.executor).toMatchObject({ role: 'executor', provider: 'openai-compatible', model: 'qwen2.5-coder' });
  });
});
