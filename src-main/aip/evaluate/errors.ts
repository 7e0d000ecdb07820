import type { JsonObject } from '../../../src-shared/schemas/json.js';

/** AIP JSON-RPC error codes (spec 001 §7) with the messages the spec and vectors use. */
export const AipError = {
  Forbidden: { code: -32001, message: 'Forbidden' },
  RateLimited: { code: -32002, message: 'Rate limit exceeded' },
  UserDenied: { code: -32004, message: 'User denied' },
  UserTimeout: { code: -32005, message: 'User approval timeout' },
  MethodNotAllowed: { code: -32006, message: 'Method not allowed' },
  ProtectedPath: { code: -32007, message: 'Access denied: protected path' },
  TokenRequired: { code: -32008, message: 'Token required' },
  TokenInvalid: { code: -32009, message: 'Token invalid' },
  PolicySignatureInvalid: { code: -32010, message: 'Policy signature invalid' },
  TokenRevoked: { code: -32011, message: 'Token revoked' },
  AudienceMismatch: { code: -32012, message: 'Audience mismatch' },
  SchemaMismatch: { code: -32013, message: 'Schema mismatch' },
  DlpRedactionFailed: { code: -32014, message: 'DLP redaction failed' },
} as const;

export type AipErrorKind = keyof typeof AipError;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data: JsonObject;
}

export type JsonRpcId = string | number | null;

export function aipError(kind: AipErrorKind, data: JsonObject): JsonRpcErrorObject {
  const { code, message } = AipError[kind];
  return { code, message, data };
}

/** §7.1: the error response, echoing the request id exactly (string or number). */
export function errorResponse(id: JsonRpcId, error: JsonRpcErrorObject): { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject } {
  return { jsonrpc: '2.0', id, error };
}
