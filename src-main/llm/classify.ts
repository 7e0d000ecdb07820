import type { ModelProvider, ModelRole } from '../../src-shared/llm/config.js';
import { ModelError, providerHttpFailure, quoteDetail, retryAfterMs, type ModelErrorCode, type ProviderHttpFailure } from './errors.js';
import type { ModelUsage } from './model-client.js';
import type { AttemptDeadline } from './retry.js';

/*
 * Turns whatever a call threw (the AI SDK's errors, fetch's, an abort) into a ModelError, and
 * says whether it may be tried again. Each message names who failed, what they said (redacted),
 * and the one thing the person can do about it.
 */

export interface CallContext {
  role: ModelRole;
  provider: ModelProvider;
  model: string;
  baseUrl: string;
  apiKeySecret: string | undefined;
  timeoutMs: number;
  maxRetryAfterMs: number;
  redact: (text: string) => string;
}

export interface Failure {
  error: ModelError;
  /** A 429 or 5xx: worth another attempt if any are left. */
  retryable: boolean;
  /** The pause the provider asked for, when it did. */
  retryAfterMs?: number;
}

/** Who the person should look at: a local server by its address, a hosted provider by name. */
export function who(ctx: CallContext): string {
  return ctx.provider === 'openai-compatible' ? `the OpenAI-compatible server at ${ctx.baseUrl}` : ctx.provider;
}

export function modelError(ctx: CallContext, code: ModelErrorCode, message: string, extra: { status?: number; rawText?: string; usage?: ModelUsage } = {}): ModelError {
  return new ModelError(code, ctx.redact(message), { provider: ctx.provider, role: ctx.role, ...extra });
}

/** The request was aborted: by the caller (cancelled) or by the attempt's own timer (timeout). */
export function abortFailure(ctx: CallContext, callerSignal: AbortSignal | undefined, deadline: AttemptDeadline | undefined, streaming: boolean): Failure | null {
  if (callerSignal?.aborted) return { error: modelError(ctx, 'cancelled', `the call to model "${ctx.model}" (${ctx.role}) was cancelled`), retryable: false };
  if (deadline?.timedOut) {
    const waited = streaming ? `sent nothing for ${ctx.timeoutMs} ms` : `did not answer within ${ctx.timeoutMs} ms`;
    return {
      error: modelError(ctx, 'timeout', `${who(ctx)} ${waited} (model "${ctx.model}"): check that it is running and not overloaded, or raise models.${ctx.role}.timeoutMs`),
      retryable: false,
    };
  }
  return null;
}

/** `attempts` is how many attempts have been made, this one included. */
export function classifyFailure(error: unknown, ctx: CallContext, attempts: number, signals: { caller?: AbortSignal; deadline?: AttemptDeadline; streaming: boolean }): Failure {
  const aborted = abortFailure(ctx, signals.caller, signals.deadline, signals.streaming);
  if (aborted) return aborted;
  if (error instanceof ModelError) return { error, retryable: false };
  const http = providerHttpFailure(error);
  if (http) return httpFailure(http, ctx, attempts);
  const name = typeof error === 'object' && error !== null ? String((error as { name?: unknown }).name) : '';
  if (name === 'AbortError' || name === 'TimeoutError') return { error: modelError(ctx, 'cancelled', `the call to model "${ctx.model}" (${ctx.role}) was aborted`), retryable: false };
  const detail = quoteDetail(error instanceof Error ? error.message : String(error), ctx.redact);
  const rawText = typeof (error as { text?: unknown })?.text === 'string' ? (error as { text: string }).text : undefined;
  return {
    error: modelError(ctx, 'bad_response', `model "${ctx.model}" (${who(ctx)}) gave an answer that could not be used${detail ? `: ${detail}` : ''}`, rawText === undefined ? {} : { rawText: ctx.redact(rawText) }),
    retryable: false,
  };
}

function httpFailure(http: ProviderHttpFailure, ctx: CallContext, attempts: number): Failure {
  const { status } = http;
  const said = quoteDetail(http.message, ctx.redact);
  const detail = status === undefined ? '' : ` (HTTP ${status}${said && said !== String(status) ? `: ${said}` : ''})`;
  const fail = (code: ModelErrorCode, message: string, retryable = false, retryAfter?: number): Failure => ({
    error: modelError(ctx, code, message, status === undefined ? {} : { status }),
    retryable,
    ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }),
  });
  const tries = attempts === 1 ? 'once' : `${attempts} times`;
  if (status === undefined) {
    const where = ctx.provider === 'openai-compatible' ? `that the server is running and that models.${ctx.role}.baseUrl is right` : 'the network connection';
    return fail('unavailable', `could not reach ${who(ctx)}${http.networkCode ? ` (${http.networkCode})` : ''}${said ? `: ${said}` : ''}; check ${where}`);
  }
  if (status === 401 || status === 403) {
    const secret = ctx.apiKeySecret;
    if (secret === undefined) {
      return fail('auth', `${who(ctx)} asks for an API key${detail}: store it with \`silas secrets set NAME\` and write apiKeySecret: NAME under models.${ctx.role}`);
    }
    if (status === 403) {
      return fail('auth', `${who(ctx)} refused the API key in secret "${secret}" for model "${ctx.model}"${detail}: check that the key may use this model, or run \`silas secrets set ${secret}\` with one that may`);
    }
    return fail('auth', `${who(ctx)} rejected the API key in secret "${secret}"${detail}: run \`silas secrets set ${secret}\` with a valid key`);
  }
  if (status === 429) {
    const wait = retryAfterMs(http.headers);
    if (wait !== undefined && wait > ctx.maxRetryAfterMs) {
      return fail('rate_limited', `${who(ctx)} is rate-limiting model "${ctx.model}" and asks to wait ${Math.ceil(wait / 1000)} s${detail}: try again after that`);
    }
    return fail('rate_limited', `${who(ctx)} is rate-limiting model "${ctx.model}"${detail} and refused ${tries}: wait a minute and try again, or raise models.${ctx.role}.maxRetries`, true, wait);
  }
  if (status >= 500) {
    const check = ctx.provider === 'openai-compatible' ? 'check the server\'s log' : `the service may be down; try again later`;
    return fail('unavailable', `${who(ctx)} failed to answer for model "${ctx.model}"${detail}, ${tries}: ${check}`, true, retryAfterMs(http.headers));
  }
  if (status === 404) {
    return fail('unavailable', `${who(ctx)} has no model "${ctx.model}"${detail}: check models.${ctx.role}.model${ctx.provider === 'openai-compatible' ? ' and baseUrl' : ''}`);
  }
  return fail('bad_response', `${who(ctx)} refused the request for model "${ctx.model}"${detail}: check models.${ctx.role} (model, maxTokens, temperature)`);
}
