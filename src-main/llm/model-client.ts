import type { z } from 'zod';
import type { ModelPrice, ModelProvider, ModelRole } from '../../src-shared/llm/config.js';

/*
 * What an agent sees of a model. The interface is ours, not the AI SDK's, so agents and their tests
 * never depend on a provider library, and every call goes through the one place that applies
 * timeouts, retries, cancellation, cost and key hygiene (`ai-sdk-client.ts`).
 */

/**
 * The conversation so far. Tool calls the model asked for are executed by the caller (the
 * runtime decides whether they run at all), whose results come back as `tool` messages.
 */
export type ModelMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: readonly ModelToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; output: string; isError?: boolean };

interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** A tool offered to the model. It has no `execute`: the model only proposes calls. */
export interface ModelTool {
  description: string;
  inputSchema: z.ZodType;
}

/** Tokens as the provider reported them; 0 where it reported none (some local servers). */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

export type ModelStreamEvent =
  | { type: 'text-delta'; text: string }
  /** `invalid` says why the proposed input was refused (unknown tool, input not matching its schema). */
  | ({ type: 'tool-call'; invalid?: string } & ModelToolCall)
  | { type: 'finish'; finishReason: string; usage: ModelUsage; costUsd: number | null };

interface ModelCallBase {
  system: string;
  messages: readonly ModelMessage[];
  /** Aborting it ends the call with a `cancelled` ModelError. */
  signal?: AbortSignal;
}

export interface StreamTextRequest extends ModelCallBase {
  tools?: Readonly<Record<string, ModelTool>>;
}

export interface GenerateObjectRequest<T> extends ModelCallBase {
  schema: z.ZodType<T>;
}

export interface GenerateObjectResult<T> {
  object: T;
  usage: ModelUsage;
  costUsd: number | null;
  /** The text the model wrote, before parsing. */
  rawText: string;
}

export interface ModelClient {
  readonly role: ModelRole;
  readonly provider: ModelProvider;
  readonly model: string;
  /** Ends with exactly one `finish` event, or throws a ModelError. */
  streamText(request: StreamTextRequest): AsyncIterable<ModelStreamEvent>;
  /** Output that does not match `schema` is a `bad_response` ModelError carrying `rawText`, for the caller's one repair retry (§5.1.0). */
  generateObject<T>(request: GenerateObjectRequest<T>): Promise<GenerateObjectResult<T>>;
}

/** US dollars for `usage` at `price`, or null when the role has no price (a local model, or not yet priced). */
export function costOf(usage: ModelUsage, price: ModelPrice | undefined): number | null {
  if (price === undefined) return null;
  return (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
}
