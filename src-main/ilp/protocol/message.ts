import type { JsonValue } from '../../../src-shared/schemas/json.js';
import { ILP_STATUS_REASONS } from '../../../src-shared/schemas/ilp.js';

/*
 * The ILP/1.0 wire message (spec 004 §5): a request line `METHOD /path ILP/1.0` or a status line
 * `ILP/1.0 200 OK`, header fields, a blank line and a JSON body. The codec (parse.ts,
 * serialize.ts) reads and writes exactly this; what a header or body means is decided above it.
 */

/** The five methods of §3.2. */
export const ILP_METHODS = ['THINK', 'COMPOSE', 'VALIDATE', 'TRANSLATE', 'TRACE'] as const;
export type IlpMethod = (typeof ILP_METHODS)[number];

/** The only version this codec speaks. */
export const ILP_VERSION = '1.0';

export type IlpStatus = keyof typeof ILP_STATUS_REASONS;

/** The reason phrase a status line carries. */
export function reasonOf(status: IlpStatus): string {
  return ILP_STATUS_REASONS[status];
}

export function isIlpStatus(code: number): code is IlpStatus {
  return Object.hasOwn(ILP_STATUS_REASONS, code);
}

/** The media types of §11.3, and plain `application/json`, which every example of §13 uses. */
export const ILP_MEDIA_TYPES = ['application/json', 'application/vnd.ilp+json', 'application/vnd.ilp.attention+json', 'application/vnd.ilp.constitution+json'] as const;

/** The header fields of §6 (and the two of §5) whose values the codec reads into types. */
export const HEADER = {
  constitutional: 'Constitutional-Header',
  attentionEnabled: 'Attention-Enabled',
  reasoningTrace: 'Reasoning-Trace',
  attentionPayload: 'Attention-Payload',
  constitutionalStatus: 'Constitutional-Status',
  contentType: 'Content-Type',
  contentLength: 'Content-Length',
} as const;

export const CONSTITUTIONAL_STATUSES = ['PASSED', 'WARNING', 'VIOLATION'] as const;

/**
 * One header field as it stands in the message: its name as written and its value, read into a
 * type where the RFC gives one (a JSON object for the three JSON headers, a boolean for
 * Attention-Enabled, a number for Content-Length) and a string otherwise.
 */
export interface IlpHeader {
  name: string;
  value: JsonValue;
}

interface MessageCommon {
  version: typeof ILP_VERSION;
  /** In message order; names are unique, compared without case. */
  headers: IlpHeader[];
  /** The JSON body, or null when the message has none. */
  body: JsonValue | null;
}

export interface IlpRequest extends MessageCommon {
  kind: 'request';
  method: IlpMethod;
  /** The request target: a path from `/`, with its query when it has one. */
  path: string;
}

export interface IlpResponse extends MessageCommon {
  kind: 'response';
  status: IlpStatus;
  reason: string;
}

export type IlpMessage = IlpRequest | IlpResponse;

/** Why a message was refused: a 400 naming the field (§8.2), with what to do. */
export interface IlpSyntaxError {
  status: 400;
  /** `start-line`, `method`, `path`, `version`, `status`, `headers`, a header's name, or `body`. */
  field: string;
  message: string;
}

export type IlpParseResult = { ok: true; message: IlpMessage } | { ok: false; error: IlpSyntaxError };

/** The header named `name` (without regard to case), or undefined. */
export function headerOf(message: Pick<IlpMessage, 'headers'>, name: string): IlpHeader | undefined {
  const wanted = name.toLowerCase();
  return message.headers.find((h) => h.name.toLowerCase() === wanted);
}
