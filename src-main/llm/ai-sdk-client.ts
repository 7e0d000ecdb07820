import { generateText, Output, streamText, tool, type ModelMessage as SdkMessage, type ToolSet } from 'ai';
import type { ModelRole, ModelsConfig, RoleModelConfig } from '../../src-shared/llm/config.js';
import { MODEL_ROLES } from '../../src-shared/llm/config.js';
import { abortFailure, classifyFailure, modelError, who, type CallContext, type Failure } from './classify.js';
import { quoteDetail, redactDeep, redactor, StreamRedactor } from './errors.js';
import { costOf, type GenerateObjectRequest, type GenerateObjectResult, type ModelClient, type ModelMessage, type ModelStreamEvent, type ModelTool, type ModelUsage, type StreamTextRequest } from './model-client.js';
import { baseUrlOf, resolveModel, type SecretReader } from './providers.js';
import { AttemptDeadline, DEFAULT_RETRY_POLICY, retryDelayMs, sleep as realSleep, type RetryPolicy, type Sleep } from './retry.js';

/*
 * The one ModelClient: the AI SDK does the wire formats, this file does the rest. The SDK's own
 * retries are off (maxRetries: 0) so that what is retried, how long we wait and what the person
 * is told are decided in one place (classify.ts, retry.ts). A stream is retried only before its
 * first event: once text has reached the caller, a second attempt would repeat it.
 */

export interface ModelClientDeps {
  secrets: SecretReader;
  retryPolicy?: Partial<RetryPolicy>;
  /** Injected by tests to see the pauses without waiting them out. */
  sleep?: Sleep;
  random?: () => number;
}

type Attempt = { ctx: CallContext; deadline: AttemptDeadline; model: ReturnType<typeof resolveModel>['model']; text: StreamRedactor };

class AiSdkModelClient implements ModelClient {
  readonly provider;
  readonly model;
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly random: () => number;

  constructor(
    readonly role: ModelRole,
    private readonly config: RoleModelConfig,
    private readonly deps: ModelClientDeps,
  ) {
    this.provider = config.provider;
    this.model = config.model;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...deps.retryPolicy };
    this.sleep = deps.sleep ?? realSleep;
    this.random = deps.random ?? Math.random;
  }

  async *streamText(request: StreamTextRequest): AsyncGenerator<ModelStreamEvent> {
    for (let attempts = 1; ; attempts++) {
      const attempt = this.begin(request.signal);
      let started = false;
      try {
        const result = streamText({
          ...this.settings(attempt, request),
          ...(request.tools ? { tools: toSdkTools(request.tools) } : {}),
          // The default handler prints the provider's error, response body and all, to the console.
          onError: () => {},
        });
        for await (const part of result.fullStream) {
          attempt.deadline.touch();
          switch (part.type) {
            case 'text-delta': {
              const text = attempt.text.push(part.text);
              started ||= part.text !== '';
              if (text !== '') yield { type: 'text-delta', text };
              break;
            }
            case 'tool-call': {
              started = true;
              const invalid = part.invalid ? attempt.ctx.redact(part.error instanceof Error ? part.error.message : 'the tool call could not be used') : undefined;
              const rest = attempt.text.flush();
              if (rest !== '') yield { type: 'text-delta', text: rest };
              const input = redactDeep(part.input, attempt.ctx.redact);
              yield { type: 'tool-call', toolCallId: part.toolCallId, toolName: part.toolName, input, ...(invalid === undefined ? {} : { invalid }) };
              break;
            }
            case 'error':
              throw part.error;
            case 'abort':
              throw abortFailure(attempt.ctx, request.signal, attempt.deadline, true)?.error ?? modelError(attempt.ctx, 'cancelled', `the call to model "${this.model}" was aborted`);
            case 'finish': {
              const rest = attempt.text.flush();
              if (rest !== '') yield { type: 'text-delta', text: rest };
              const usage = toUsage(part.totalUsage);
              yield { type: 'finish', finishReason: part.finishReason, usage, costUsd: costOf(usage, this.config.price) };
              return;
            }
          }
        }
        throw modelError(attempt.ctx, 'bad_response', `the answer of model "${this.model}" ended without finishing; try again`);
      } catch (error) {
        const failure = classifyFailure(error, attempt.ctx, attempts, { caller: request.signal, deadline: attempt.deadline, streaming: true });
        if (started) throw failure.error;
        await this.pauseOrThrow(failure, attempts, request.signal, attempt.ctx);
      } finally {
        attempt.deadline.dispose();
      }
    }
  }

  async generateObject<T>(request: GenerateObjectRequest<T>): Promise<GenerateObjectResult<T>> {
    for (let attempts = 1; ; attempts++) {
      const attempt = this.begin(request.signal);
      try {
        const result = await generateText({ ...this.settings(attempt, request), output: Output.object({ schema: request.schema }) });
        const usage = toUsage(result.usage);
        return { object: redactDeep(result.output, attempt.ctx.redact) as T, usage, costUsd: costOf(usage, this.config.price), rawText: attempt.ctx.redact(result.text) };
      } catch (error) {
        const failure = classifyFailure(error, attempt.ctx, attempts, { caller: request.signal, deadline: attempt.deadline, streaming: false });
        const refused = failure.error.code === 'bad_response' ? refusedOutput(error) : null;
        if (refused) {
          const detail = quoteDetail(refused.why, attempt.ctx.redact);
          throw modelError(attempt.ctx, 'bad_response', `model "${this.model}" (${who(attempt.ctx)}) answered with output that does not match the expected schema${detail ? `: ${detail}` : ''}`, {
            rawText: attempt.ctx.redact(refused.text),
            ...(refused.usage ? { usage: refused.usage } : {}),
          });
        }
        await this.pauseOrThrow(failure, attempts, request.signal, attempt.ctx);
      } finally {
        attempt.deadline.dispose();
      }
    }
  }

  /** Reads the key (failing before any request when it is missing) and starts the attempt's timer. */
  private begin(signal: AbortSignal | undefined): Attempt {
    const resolved = resolveModel(this.role, this.config, this.deps.secrets);
    const ctx: CallContext = {
      role: this.role,
      provider: this.provider,
      model: this.model,
      baseUrl: baseUrlOf(this.config),
      apiKeySecret: this.config.apiKeySecret,
      timeoutMs: this.config.timeoutMs,
      maxRetryAfterMs: this.policy.maxRetryAfterMs,
      redact: redactor(resolved.apiKey),
    };
    const cancelled = abortFailure(ctx, signal, undefined, false);
    if (cancelled) throw cancelled.error;
    // A provider could echo the key into its answer; it must not reach the chronicle through us.
    return { ctx, deadline: new AttemptDeadline(this.config.timeoutMs, signal), model: resolved.model, text: new StreamRedactor(resolved.apiKey) };
  }

  private settings(attempt: Attempt, request: StreamTextRequest | GenerateObjectRequest<unknown>) {
    return {
      model: attempt.model,
      system: request.system,
      messages: toSdkMessages(request.messages),
      abortSignal: attempt.deadline.signal,
      maxRetries: 0,
      ...(this.config.temperature === undefined ? {} : { temperature: this.config.temperature }),
      ...(this.config.maxTokens === undefined ? {} : { maxOutputTokens: this.config.maxTokens }),
    };
  }

  /** Waits before the next attempt, or throws when the failure is final or no attempts are left. */
  private async pauseOrThrow(failure: Failure, attempts: number, signal: AbortSignal | undefined, ctx: CallContext): Promise<void> {
    if (!failure.retryable || attempts > this.config.maxRetries) throw failure.error;
    try {
      await this.sleep(retryDelayMs(attempts - 1, this.policy, this.random, failure.retryAfterMs), signal);
    } catch {
      throw abortFailure(ctx, signal, undefined, false)?.error ?? failure.error;
    }
  }
}

export function createModelClient(role: ModelRole, config: RoleModelConfig, deps: ModelClientDeps): ModelClient {
  return new AiSdkModelClient(role, config, deps);
}

/** A client for each configured role; a role without a model has none (the first-run flow asks for one). */
export function createModelClients(config: ModelsConfig, deps: ModelClientDeps): Partial<Record<ModelRole, ModelClient>> {
  const clients: Partial<Record<ModelRole, ModelClient>> = {};
  for (const role of MODEL_ROLES) {
    const roleConfig = config[role];
    if (roleConfig !== undefined) clients[role] = createModelClient(role, roleConfig, deps);
  }
  return clients;
}

function toUsage(usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined): ModelUsage {
  return { inputTokens: usage?.inputTokens ?? 0, outputTokens: usage?.outputTokens ?? 0 };
}

/** The text and usage of an answer the SDK could not parse into the schema (NoObjectGeneratedError and kin). */
function refusedOutput(error: unknown): { text: string; why: string; usage?: ModelUsage } | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { name?: unknown; text?: unknown; usage?: unknown; message?: unknown; cause?: unknown };
  if (typeof e.name !== 'string' || !e.name.startsWith('AI_No') || typeof e.text !== 'string') return null;
  // The cause (a JSON or schema validation error) says what was wrong; the outer message only that something was.
  const why = e.cause instanceof Error ? e.cause.message : typeof e.message === 'string' ? e.message : '';
  return { text: e.text, why, ...(typeof e.usage === 'object' && e.usage !== null ? { usage: toUsage(e.usage as ModelUsage) } : {}) };
}

function toSdkTools(tools: Readonly<Record<string, ModelTool>>): ToolSet {
  return Object.fromEntries(Object.entries(tools).map(([name, spec]) => [name, tool({ description: spec.description, inputSchema: spec.inputSchema })]));
}

function toSdkMessages(messages: readonly ModelMessage[]): SdkMessage[] {
  return messages.map((message): SdkMessage => {
    switch (message.role) {
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant':
        if (!message.toolCalls || message.toolCalls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            ...message.toolCalls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.toolCallId, toolName: call.toolName, input: call.input })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: message.toolCallId, toolName: message.toolName, output: { type: message.isError ? 'error-text' : 'text', value: message.output } }],
        };
    }
  });
}
