import { classifyClientMessage } from '../../aip/evaluate/jsonrpc.js';
import type { JsonRpcId } from '../../aip/evaluate/errors.js';
import { parseStrictJson } from './strict-json.js';

/**
 * The notifications an MCP client may send (MCP 2025-06-18 and the SDK's ClientNotification,
 * which adds tasks/status), compared exactly: JSON-RPC methods are case-sensitive, and a
 * message without an id that is not one of these (an id-less `tools/call`) would reach the
 * server without any tool evaluation.
 */
export const CLIENT_NOTIFICATIONS: ReadonlySet<string> = new Set([
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);

/** JSON-RPC 2.0 codes for input that is not a valid message at all. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

/**
 * One line from the MCP client, judged before any policy sees it. `invalid` lines are answered
 * with `code` (unless they look like a notification, which is never answered) and never
 * forwarded: the proxy only relays what it could read unambiguously.
 */
export type ParsedClientLine =
  | { kind: 'request'; id: string | number; method: string; params: unknown; message: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: JsonRpcId; message: Record<string, unknown> }
  | { kind: 'invalid'; code: number; id: JsonRpcId; reason: string; notification: boolean };

function recoverId(message: Record<string, unknown>, ambiguous: Set<string>): JsonRpcId {
  if (ambiguous.has('id')) return null;
  const id = message.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

export function parseClientLine(line: string): ParsedClientLine {
  const parsed = parseStrictJson(line);
  if (!parsed.ok) return { kind: 'invalid', code: PARSE_ERROR, id: null, reason: `not valid JSON: ${parsed.error}`, notification: false };
  const value = parsed.value;
  if (Array.isArray(value)) return { kind: 'invalid', code: INVALID_REQUEST, id: null, reason: 'batch requests are not accepted; send one JSON-RPC object per line', notification: false };
  if (value === null || typeof value !== 'object') return { kind: 'invalid', code: INVALID_REQUEST, id: null, reason: 'a JSON-RPC message must be an object', notification: false };
  const message = value as Record<string, unknown>;
  // No id member and a method member: the sender expects no answer, whatever else is wrong.
  const notification = !Object.prototype.hasOwnProperty.call(message, 'id') && parsed.topLevelKeys !== null && [...parsed.topLevelKeys].some((k) => k.toLowerCase() === 'method');
  const id = recoverId(message, parsed.ambiguousTopLevel);
  if (parsed.problems.length > 0) {
    return { kind: 'invalid', code: INVALID_REQUEST, id, reason: `ambiguous message: ${parsed.problems.slice(0, 3).join('; ')}`, notification };
  }
  const classified = classifyClientMessage(message);
  switch (classified.kind) {
    case 'invalid':
      return { kind: 'invalid', code: INVALID_REQUEST, id: classified.id, reason: classified.reason, notification };
    case 'notification':
      return { kind: 'notification', method: classified.method, params: classified.params };
    case 'response':
      return { kind: 'response', id: classified.id, message };
    case 'request': {
      if (classified.id === null) return { kind: 'invalid', code: INVALID_REQUEST, id: null, reason: 'a request id must be a string or a number, not null', notification: false };
      if (classified.method === 'tools/call') {
        const params = classified.params;
        if (params === null || typeof params !== 'object' || Array.isArray(params)) {
          return { kind: 'invalid', code: INVALID_REQUEST, id: classified.id, reason: 'tools/call params must be an object', notification: false };
        }
        const name = (params as Record<string, unknown>).name;
        if (typeof name !== 'string' || name.length === 0) {
          return { kind: 'invalid', code: INVALID_REQUEST, id: classified.id, reason: 'tools/call params.name must be a non-empty string', notification: false };
        }
      }
      return { kind: 'request', id: classified.id, method: classified.method, params: classified.params, message };
    }
  }
}
