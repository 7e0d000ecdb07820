import type { GenerateObjectRequest, GenerateObjectResult, ModelClient } from '../../llm/model-client.js';

/** A scripted reply: the object the model "returns" and what it cost. */
export interface FakeReply {
  object: unknown;
  costUsd?: number;
}

/**
 * A ModelClient answering generateObject from a queue, recording each request, for composition
 * tests that need no HTTP (the scripted OpenAI server covers the wire, composition.http.test.ts).
 */
export class FakeModel implements ModelClient {
  readonly role = 'planner' as const;
  readonly provider = 'openai-compatible' as const;
  readonly model = 'fake';
  readonly requests: GenerateObjectRequest<unknown>[] = [];
  private readonly queue: FakeReply[] = [];

  reply(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  // eslint-disable-next-line require-yield
  async *streamText(): AsyncIterable<never> {
    throw new Error('FakeModel answers generateObject only');
  }

  async generateObject<T>(request: GenerateObjectRequest<T>): Promise<GenerateObjectResult<T>> {
    this.requests.push(request as GenerateObjectRequest<unknown>);
    const next = this.queue.shift();
    if (next === undefined) throw new Error('FakeModel: no reply queued for this call');
    const object = request.schema.parse(next.object);
    return { object, usage: { inputTokens: 10, outputTokens: 10 }, costUsd: next.costUsd ?? 0.001, rawText: JSON.stringify(next.object) };
  }
}

/** A specialist's answer that passes the constitution. */
export function insight(answer: string, extra: Record<string, unknown> = {}, costUsd = 0.001): FakeReply {
  return { object: { answer, concepts: ['homeostasis'], confidence: 0.85, reasoning: 'Drew on the loaded slices of my domain and compared them with the query at hand.', sources: [], suggestions_to_invoke: [], ...extra }, costUsd };
}

export const decompose = (...domains: string[]): FakeReply => ({ object: { domains, reasoning: 'These domains hold what the query needs.' }, costUsd: 0.001 });

export const synthesis = (answer = 'Treat the budget as a homeostatic system with a set point and feedback.'): FakeReply => ({
  object: { answer, concepts: ['homeostasis', 'feedback_loop'], confidence: 0.88, reasoning: 'Composed the specialists insights into one answer; each contributed a different mechanism.' },
  costUsd: 0.001,
});
