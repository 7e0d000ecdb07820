import type { JsonValue } from '../../../src-shared/schemas/json.js';
import type { ConstitutionalHeader } from '../constitution/header.js';
import { HEADER, reasonOf, type IlpHeader, type IlpMessage, type IlpMethod, type IlpRequest, type IlpResponse, type IlpStatus } from '../protocol/message.js';
import { parseIlpMessage } from '../protocol/parse.js';
import { serializeIlpMessage } from '../protocol/serialize.js';

/*
 * The messages of one hop (spec 004 §4.2, §5, §7): built as values, and always sent through the
 * codec — written to text and read back — even between agents in this process, so an in-process
 * hop is judged on exactly the bytes a remote one would be (docs/ilp.md "Composition").
 */

const ILP_CONTENT_TYPE = 'application/vnd.ilp+json; version=1.0';

/** The request payload of §7.1. */
export interface RequestPayload {
  query: string;
  context?: {
    previous_agents?: string[];
    invocation_count?: number;
    cost_so_far?: number;
    insights?: Record<string, { answer: string; concepts: string[]; confidence: number }>;
  };
}

export function requestMessage(method: IlpMethod, path: string, header: ConstitutionalHeader, body: RequestPayload, extra: readonly IlpHeader[] = []): IlpRequest {
  return {
    kind: 'request',
    method,
    path,
    version: '1.0',
    headers: [{ name: HEADER.constitutional, value: header as unknown as JsonValue }, { name: HEADER.attentionEnabled, value: true }, ...extra, { name: HEADER.contentType, value: ILP_CONTENT_TYPE }],
    body: body as unknown as JsonValue,
  };
}

export function responseMessage(status: IlpStatus, body: JsonValue, headers: readonly IlpHeader[] = []): IlpResponse {
  return { kind: 'response', status, reason: reasonOf(status), version: '1.0', headers: [...headers, { name: HEADER.contentType, value: ILP_CONTENT_TYPE }], body };
}

/** The §7.3 error payload, with the principle and severity when the constitution refused. */
export function errorResponse(status: IlpStatus, message: string, detail: { principle?: string; severity?: 'warning' | 'error' | 'fatal'; suggested_action?: string; context?: Record<string, JsonValue> } = {}): IlpResponse {
  const error: Record<string, JsonValue> = { code: status, message, severity: detail.severity ?? (status >= 500 ? 'fatal' : 'error') };
  if (detail.principle !== undefined) error['principle_id'] = detail.principle;
  if (detail.context !== undefined) error['context'] = detail.context;
  error['suggested_action'] = detail.suggested_action ?? suggestionFor(status);
  const headers: IlpHeader[] = status === 400 || status >= 500 ? [] : [{ name: HEADER.constitutionalStatus, value: 'VIOLATION' }];
  return responseMessage(status, { error }, headers);
}

function suggestionFor(status: IlpStatus): string {
  if (status === 400) return 'Fix the field named in the message and send the request again';
  if (status === 503) return 'Start or register the agent, or compose without it';
  return 'See the message';
}

/** A message written to text and read back: what the other side receives, or the codec's 400. */
export function throughCodec<M extends IlpMessage>(message: M): { ok: true; text: string; message: M } | { ok: false; text: string; field: string; error: string } {
  let text: string;
  try {
    text = serializeIlpMessage(message);
  } catch (error) {
    return { ok: false, text: '', field: 'headers', error: (error as Error).message };
  }
  const parsed = parseIlpMessage(text);
  if (!parsed.ok) return { ok: false, text, field: parsed.error.field, error: parsed.error.message };
  return { ok: true, text, message: parsed.message as M };
}
