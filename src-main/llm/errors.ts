import type { ModelProvider, ModelRole } from '../../src-shared/llm/config.js';
import type { ModelUsage } from './model-client.js';

/*
 * Every way a model call fails, as one typed error whose message a person can act on. Provider
 * errors are turned into these here and nowhere else, and their text passes through the
 * redactor first: a provider may echo the key it rejected, and an HTTP library may quote the
 * header it could not send. The provider's own error object is never kept as `cause`, because
 * it carries response bodies and headers nobody has redacted.
 */

export type ModelErrorCode = 'auth' | 'rate_limited' | 'timeout' | 'unavailable' | 'bad_response' | 'cancelled';

export interface ModelErrorDetails {
  provider: ModelProvider;
  role: ModelRole;
  /** The HTTP status the provider answered with, when it answered. */
  status?: number;
  /** A `bad_response`'s text, for the caller's repair retry. */
  rawText?: string;
  /** Tokens spent on an answer that was then refused (still paid for). */
  usage?: ModelUsage;
}

export class ModelError extends Error {
  readonly code: ModelErrorCode;
  readonly provider: ModelProvider;
  readonly role: ModelRole;
  readonly status?: number;
  readonly rawText?: string;
  readonly usage?: ModelUsage;

  constructor(code: ModelErrorCode, message: string, details: ModelErrorDetails) {
    super(message);
    this.name = 'ModelError';
    this.code = code;
    this.provider = details.provider;
    this.role = details.role;
    if (details.status !== undefined) this.status = details.status;
    if (details.rawText !== undefined) this.rawText = details.rawText;
    if (details.usage !== undefined) this.usage = details.usage;
  }
}

export function isModelError(value: unknown): value is ModelError {
  return value instanceof ModelError;
}

/** The forms a secret may take in text: as is, base64 (both alphabets, padded or not), and URL-encoded; longest first. */
function secretForms(secret: string | null): string[] {
  if (secret === null || secret === '') return [];
  const base64 = Buffer.from(secret, 'utf8').toString('base64');
  const forms = new Set([secret, base64, base64.replace(/=+$/, ''), Buffer.from(secret, 'utf8').toString('base64url'), encodeURIComponent(secret), encodeURI(secret)]);
  // Longest first, so a form is never half-replaced by a shorter one it contains.
  return [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
}

const REDACTED = '[redacted]';

/** Replaces a secret in every form it may take in text. */
export function redactor(secret: string | null): (text: string) => string {
  const forms = secretForms(secret);
  if (forms.length === 0) return (text) => text;
  return (text) => forms.reduce((out, form) => out.split(form).join(REDACTED), text);
}

/**
 * Redacts a text that arrives in pieces, where a key could be split between two of them: the
 * end of each piece that could be the start of a key is held back until the next piece (or the
 * end) shows it is not. Only text ending in a key's first characters is delayed, and only that.
 */
export class StreamRedactor {
  private held = '';
  private readonly forms: string[];
  private readonly redact: (text: string) => string;

  constructor(secret: string | null) {
    this.forms = secretForms(secret);
    this.redact = redactor(secret);
  }

  push(piece: string): string {
    const text = this.redact(this.held + piece);
    const keep = this.pendingLength(text);
    this.held = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** What is still held: the start of a key that never came, so no key. */
  flush(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  private pendingLength(text: string): number {
    let longest = 0;
    for (const form of this.forms) {
      for (let length = Math.min(form.length - 1, text.length); length > longest; length--) {
        if (text.endsWith(form.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}

/**
 * `value` with the secret redacted from every string inside it (a tool call's input, a parsed
 * object). Only arrays and plain objects are rebuilt: anything else a schema produced (a Date,
 * a Map) is returned as it is.
 */
export function redactDeep(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (typeof value === 'object' && value !== null && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [redact(name), redactDeep(item, redact)]));
  }
  return value;
}

/** What the AI SDK's APICallError (from any copy of @ai-sdk/provider) tells us, read by shape. */
export interface ProviderHttpFailure {
  status: number | undefined;
  headers: Readonly<Record<string, string>>;
  message: string;
  /** The network error's code (ECONNREFUSED…) when the request never got an answer. */
  networkCode: string | undefined;
}

export function providerHttpFailure(error: unknown): ProviderHttpFailure | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { name?: unknown; statusCode?: unknown; responseHeaders?: unknown; message?: unknown; cause?: unknown };
  if (e.name !== 'AI_APICallError') return null;
  const headers: Record<string, string> = {};
  if (typeof e.responseHeaders === 'object' && e.responseHeaders !== null) {
    for (const [name, value] of Object.entries(e.responseHeaders)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  return {
    status: typeof e.statusCode === 'number' ? e.statusCode : undefined,
    headers,
    message: typeof e.message === 'string' ? e.message : '',
    networkCode: networkCode(e.cause),
  };
}

function networkCode(cause: unknown): string | undefined {
  for (let at = cause, depth = 0; typeof at === 'object' && at !== null && depth < 4; depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
}

/** How long the provider asked us to wait, from `retry-after-ms` (OpenAI) or `Retry-After` (seconds or an HTTP date). */
export function retryAfterMs(headers: Readonly<Record<string, string>>, now = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers['retry-after']?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A provider's message, shortened and redacted, ready to quote after a colon. */
export function quoteDetail(message: string, redact: (text: string) => string, max = 300): string {
  const oneLine = redact(message).replace(/\s+/g, ' ').trim();
  if (oneLine === '') return '';
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
