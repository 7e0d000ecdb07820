import { ScriptedHttpServer, type ScriptedReply, type SseEvent } from './scripted-http-server.js';

/*
 * A scripted OpenAI-compatible chat-completions server for tests: the wire format of POST
 * /v1/chat/completions as OpenAI, Ollama, vLLM and OpenRouter speak it, JSON and SSE (`data: {...}`
 * chunks with `choices[0].delta`, tool calls streamed as argument fragments, `data: [DONE]`). Point
 * a client at `server.baseUrl` and queue what it should answer.
 */

export interface ScriptedOpenAIServer {
  /** `http://127.0.0.1:PORT/v1`, the base URL a client is configured with. */
  readonly baseUrl: string;
  readonly http: ScriptedHttpServer;
}

export async function startScriptedOpenAIServer(): Promise<ScriptedOpenAIServer> {
  const http = await ScriptedHttpServer.start();
  return { baseUrl: `${http.origin}/v1`, http };
}

export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** The JSON arguments; streamed, each piece is one delta. */
  arguments: string | readonly string[];
}

const CREATED = 1_767_225_600;
const usageOf = (usage: ScriptedUsage | undefined) => (usage === undefined ? undefined : { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens });
const argumentsOf = (call: ScriptedToolCall) => (typeof call.arguments === 'string' ? call.arguments : call.arguments.join(''));

export const openaiReply = {
  /** A complete answer: text, tool calls, or both. */
  completion(options: { content?: string | null; toolCalls?: readonly ScriptedToolCall[]; usage?: ScriptedUsage; finishReason?: string; model?: string }): ScriptedReply {
    const toolCalls = options.toolCalls ?? [];
    return {
      kind: 'json',
      body: {
        id: 'chatcmpl-scripted',
        object: 'chat.completion',
        created: CREATED,
        model: options.model ?? 'scripted-model',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: options.content ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: argumentsOf(call) } })) } : {}),
            },
            finish_reason: options.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
          },
        ],
        ...(options.usage ? { usage: usageOf(options.usage) } : {}),
      },
    };
  },

  /** A structured answer: the object as the JSON text of the message. */
  object(value: unknown, usage?: ScriptedUsage): ScriptedReply {
    return openaiReply.completion({ content: JSON.stringify(value), ...(usage ? { usage } : {}) });
  },

  /** A streamed answer: each text piece and each tool call argument fragment is one chunk, then usage, then [DONE]. */
  stream(options: { text?: readonly string[]; toolCalls?: readonly ScriptedToolCall[]; usage?: ScriptedUsage; finishReason?: string; stallAfter?: boolean }): ScriptedReply {
    const chunk = (delta: object, finishReason: string | null = null) => ({
      id: 'chatcmpl-scripted',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: 'scripted-model',
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
    for (const piece of options.text ?? []) chunks.push(chunk({ content: piece }));
    (options.toolCalls ?? []).forEach((call, index) => {
      const fragments = typeof call.arguments === 'string' ? [call.arguments] : call.arguments;
      chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const fragment of fragments) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    });
    const events: SseEvent[] = chunks.map((c) => ({ data: JSON.stringify(c) }));
    if (options.stallAfter) return { kind: 'sse', events, stallAfter: true };
    events.push({ data: JSON.stringify(chunk({}, options.finishReason ?? ((options.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop'))) });
    if (options.usage) events.push({ data: JSON.stringify({ ...chunk({}), choices: [], usage: usageOf(options.usage) }) });
    events.push({ data: '[DONE]' });
    return { kind: 'sse', events };
  },

  /** An HTTP error in OpenAI's error shape, e.g. `error(429, 'slow down', { 'retry-after': '1' })`. */
  error(status: number, message: string, headers?: Readonly<Record<string, string>>): ScriptedReply {
    const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
    return { kind: 'error', status, body: { error: { message, type, code: null } }, ...(headers ? { headers } : {}) };
  },

  hang(): ScriptedReply {
    return { kind: 'hang' };
  },
};
