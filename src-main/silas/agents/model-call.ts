import type { z } from 'zod';
import type { ModelPrice } from '../../../src-shared/llm/config.js';
import { isModelError } from '../../llm/errors.js';
import { costOf, type ModelClient, type ModelMessage, type ModelUsage } from '../../llm/model-client.js';
import type { StructuredCall, StructuredCallResult } from './structured.js';

/**
 * A model client seen as an agent's `StructuredCall` (spec 002 §5.1.0). The division of labour:
 * the client turns every provider failure into a ModelError; this adapter decides which of them
 * are a bad *answer* (worth the one repair retry) and which a failed *call* (the fallback);
 * runStructuredAgent does the validating, repairing and auditing.
 */

/** One model call as it is accounted for: what was spent, never what was said. */
export interface ModelCallRecord {
  usage: ModelUsage;
  /** US dollars, or null when the role has no price. */
  costUsd: number | null;
  /** The call carried a repair note. */
  repair: boolean;
}

export interface ModelStructuredCallOptions<T> {
  client: ModelClient;
  /** The agent's output schema, sent to the provider; runStructuredAgent validates the answer again. */
  schema: z.ZodType<T>;
  /** The role's price, for answers the client refused (it reports their tokens, not their cost). */
  price?: ModelPrice;
  /** Each call that reached the model and was answered, valid or not. */
  onCall?: (record: ModelCallRecord) => void;
}

/** The budget's view of a call: tokens in and out together, an unpriced call as free. */
export function agentUsage(usage: ModelUsage, costUsd: number | null): { tokens: number; cost_usd: number } {
  return { tokens: usage.inputTokens + usage.outputTokens, cost_usd: costUsd ?? 0 };
}

export function modelStructuredCall<T>(options: ModelStructuredCallOptions<T>): StructuredCall {
  const { client, schema } = options;
  return async (prompt, repairNote, callOptions) => {
    const repair = repairNote !== undefined;
    // The note rides at the end of the same prompt, so the repair is the same request plus why
    // the answer was refused (§5.1.0 rule 2: same model, same limits).
    const messages: ModelMessage[] = [...prompt.messages, ...(repair ? [{ role: 'user' as const, content: repairNote }] : [])];
    const account = (usage: ModelUsage, costUsd: number | null) => {
      options.onCall?.({ usage, costUsd, repair });
      return agentUsage(usage, costUsd);
    };
    try {
      const answer = await client.generateObject({ system: prompt.system, messages, schema, ...(callOptions?.signal ? { signal: callOptions.signal } : {}) });
      return { rawText: answer.rawText, object: answer.object, usage: account(answer.usage, answer.costUsd) } satisfies StructuredCallResult;
    } catch (error) {
      // An answer that does not fit the schema is still an answer: hand its text back so that
      // runStructuredAgent names what is wrong and asks once more. A bad_response without text
      // (the provider refused the request itself) is a failed call, like every other code.
      if (isModelError(error) && error.code === 'bad_response' && error.rawText !== undefined) {
        const usage = error.usage ?? { inputTokens: 0, outputTokens: 0 };
        return { rawText: error.rawText, usage: account(usage, costOf(usage, options.price)) } satisfies StructuredCallResult;
      }
      throw error;
    }
  };
}
