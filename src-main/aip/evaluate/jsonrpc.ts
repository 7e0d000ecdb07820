import { normalizeName } from '../../../src-shared/policy/normalize.js';
import type { AgentPolicy } from '../policy/types.js';
import type { JsonRpcId } from './errors.js';

/**
 * What one JSON-RPC message from an MCP client is, for the method gate. Only requests are
 * authorised: a notification cannot be answered with an error, and a client's response to a
 * server request (sampling, roots, elicitation) is not a call at all — refusing either breaks
 * the session, a hole of the reference implementation we do not copy.
 */
export type ClientMessage =
  | { kind: 'request'; id: JsonRpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: JsonRpcId }
  | { kind: 'invalid'; id: JsonRpcId; reason: string };

function validId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/** Classifies a parsed JSON value. Keys are case-sensitive (`Method` is not `method`), as JSON-RPC requires. */
export function classifyClientMessage(message: unknown): ClientMessage {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return { kind: 'invalid', id: null, reason: 'a JSON-RPC message must be an object' };
  }
  const m = message as Record<string, unknown>;
  const id = validId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' };
  const hasId = Object.prototype.hasOwnProperty.call(m, 'id');
  if (hasId && m.id !== null && !validId(m.id)) return { kind: 'invalid', id: null, reason: 'id must be a string or a number' };
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method.length === 0) return { kind: 'invalid', id, reason: 'method must be a non-empty string' };
    if ('result' in m || 'error' in m) return { kind: 'invalid', id, reason: 'a message cannot be both a request and a response' };
    return hasId ? { kind: 'request', id, method: m.method, params: m.params } : { kind: 'notification', method: m.method, params: m.params };
  }
  if (hasId && ('result' in m) !== ('error' in m)) return { kind: 'response', id };
  return { kind: 'invalid', id, reason: 'neither a request, a notification nor a response' };
}

/**
 * Notifications are forwarded unless the policy explicitly denies their method: an operator
 * who writes `denied_methods: [notifications/x]` means it, and dropping needs no reply.
 */
export function notificationAllowed(policy: AgentPolicy | null, method: string): boolean {
  return !(policy?.deniedMethods.has(normalizeName(method)) ?? false);
}
