import type { ModelPrice } from '../../../src-shared/llm/config.js';
import { isModelError, type ModelError } from '../../llm/errors.js';
import { costOf, type ModelClient, type ModelMessage, type ModelUsage } from '../../llm/model-client.js';
import type { ModelCallRecord } from '../agents/model-call.js';
import { agentUsage } from '../agents/model-call.js';
import type { StructuredCall } from '../agents/structured.js';
import { MessageFieldStreamer } from './message-streamer.js';

/**
 * The Proxy's and the Planner's structured call in the Stream: the model's JSON answer is
 * streamed (`client.streamText`), the text of its `message` field goes to the person as a draft
 * while it is written, and the whole answer is handed to runStructuredAgent to validate, repair
 * or replace by the fallback (§5.1.0). A repair attempt voids the draft first.
 */
export interface StreamingCallOptions {
  client: ModelClient;
  price?: ModelPrice;
  /** Each call that was answered: its usage, for the turn's meter and the ledger. */
  onCall?: (record: ModelCallRecord) => void;
  /** Decoded message text as it arrives; null: the draft so far is void (a new attempt). */
  onDraft?: (delta: string | null) => void;
}

export interface StreamingCall {
  call: StructuredCall;
  /** The last call's failure, when it failed: its message names the provider and the fix. */
  lastFailure(): ModelError | null;
}

export function streamingStructuredCall(options: StreamingCallOptions): StreamingCall {
  let failure: ModelError | null = null;
  let attempts = 0;
  const call: StructuredCall = async (prompt, repairNote, callOptions) => {
    const repair = repairNote !== undefined;
    if (attempts++ > 0) options.onDraft?.(null);
    const messages: ModelMessage[] = [...prompt.messages, ...(repair ? [{ role: 'user' as const, content: repairNote }] : [])];
    const streamer = new MessageFieldStreamer();
    let raw = '';
    try {
      for await (const event of options.client.streamText({ system: prompt.system, messages, ...(callOptions?.signal ? { signal: callOptions.signal } : {}) })) {
        if (event.type === 'text-delta') {
          raw += event.text;
          const delta = streamer.push(event.text);
          if (delta !== '') options.onDraft?.(delta);
        } else if (event.type === 'finish') {
          failure = null;
          const record = { usage: event.usage, costUsd: event.costUsd ?? costOf(event.usage, options.price), repair };
          options.onCall?.(record);
          return { rawText: raw, usage: agentUsage(record.usage, record.costUsd) };
        }
      }
      // A stream that ends without `finish` is not an answer: the client's contract was broken.
      return { rawText: raw, usage: agentUsage(zeroUsage(), null) };
    } catch (error) {
      if (isModelError(error)) failure = error;
      throw error;
    }
  };
  return { call, lastFailure: () => failure };
}

const zeroUsage = (): ModelUsage => ({ inputTokens: 0, outputTokens: 0 });
