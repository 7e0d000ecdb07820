import { ScriptedHttpServer, type ScriptedReply, type SseEvent } from './scripted-http-server.js';

/*
 * A scripted Anthropic Messages API server for tests: POST /v1/messages answered with a message
 * object, or with the SSE stream of `event:`/`data:` pairs (message_start, content_block_*,
 * message_delta, message_stop). Text only: tool use goes through the same code in the SDK as
 * the OpenAI format's, which the OpenAI fixture covers.
 */

export interface ScriptedAnthropicServer {
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  readonly http: ScriptedHttpServer;
}

export async function startScriptedAnthropicServer(): Promise<ScriptedAnthropicServer> {
  const http = await ScriptedHttpServer.start();
  return { baseUrl: `${http.origin}/v1`, http };
}

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
}

const message = (model: string, content: object[], usage: AnthropicUsage, stopReason: string | null) => ({
  id: 'msg_scripted',
  type: 'message',
  role: 'assistant',
  model,
  content,
  stop_reason: stopReason,
  stop_sequence: null,
  usage,
});

const event = (type: string, data: object): SseEvent => ({ event: type, data: JSON.stringify({ type, ...data }) });

export const anthropicReply = {
  message(text: string, usage: AnthropicUsage = { input_tokens: 0, output_tokens: 0 }, model = 'claude-scripted'): ScriptedReply {
    return { kind: 'json', body: message(model, [{ type: 'text', text }], usage, 'end_turn') };
  },

  stream(pieces: readonly string[], usage: AnthropicUsage = { input_tokens: 0, output_tokens: 0 }, model = 'claude-scripted'): ScriptedReply {
    return {
      kind: 'sse',
      events: [
        event('message_start', { message: message(model, [], { input_tokens: usage.input_tokens, output_tokens: 1 }, null) }),
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        ...pieces.map((text) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })),
        event('content_block_stop', { index: 0 }),
        event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
        event('message_stop', {}),
      ],
    };
  },

  /** Anthropic's error shape; `type` as the API names it (authentication_error, rate_limit_error, overloaded_error…). */
  error(status: number, type: string, text: string, headers?: Readonly<Record<string, string>>): ScriptedReply {
    return { kind: 'error', status, body: { type: 'error', error: { type, message: text } }, ...(headers ? { headers } : {}) };
  },
};
