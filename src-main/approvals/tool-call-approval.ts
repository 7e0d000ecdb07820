import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson } from '../../src-shared/canonical.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import type { OwnerSigner } from '../keys/owner-key.js';

/**
 * A human's signed "yes" to one MCP tool call (DESIGN invariant 1). It binds the exact call —
 * server, tool, canonical arguments, JSON-RPC id and proxy session — to a single-use nonce and
 * an expiry, so it cannot be replayed, redirected to another call, or used late.
 */
export interface ToolCallApprovalPayload {
  type: 'silas.mcp.approval/v1';
  server: string;
  tool: string;
  /** sha256 hex of the RFC 8785 canonical arguments. */
  argsHash: string;
  requestId: string | number;
  sessionId: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
}

export interface SignedToolCallApproval {
  payload: ToolCallApprovalPayload;
  keyFingerprint: string;
  /** base64 Ed25519 signature over RFC 8785 of the payload. */
  signature: string;
}

export interface ToolCallBinding {
  server: string;
  tool: string;
  args: unknown;
  requestId: string | number;
  sessionId: string;
}

export function argumentsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args ?? {}), 'utf8').digest('hex');
}

export function approvalSigningBytes(payload: ToolCallApprovalPayload): Buffer {
  const { type, server, tool, argsHash, requestId, sessionId, nonce, issuedAt, expiresAt } = payload;
  return Buffer.from(canonicalJson({ type, server, tool, argsHash, requestId, sessionId, nonce, issuedAt, expiresAt }), 'utf8');
}

export function signToolCallApproval(binding: ToolCallBinding, signer: OwnerSigner, now: Date, ttlMs: number): SignedToolCallApproval {
  const { args, ...rest } = binding;
  return issueToolCallApproval({ ...rest, argsHash: argumentsHash(args) }, signer, now, ttlMs);
}

/** Signs an approval for a call known by its arguments' hash, which the signer computed itself. */
export function issueToolCallApproval(
  binding: Omit<ToolCallBinding, 'args'> & { argsHash: string },
  signer: OwnerSigner,
  now: Date,
  ttlMs: number,
): SignedToolCallApproval {
  const payload: ToolCallApprovalPayload = {
    type: 'silas.mcp.approval/v1',
    server: binding.server,
    tool: binding.tool,
    argsHash: binding.argsHash,
    requestId: binding.requestId,
    sessionId: binding.sessionId,
    nonce: randomBytes(16).toString('hex'),
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ttlMs).toISOString(),
  };
  return { payload, keyFingerprint: signer.fingerprint, signature: signer.sign(approvalSigningBytes(payload)).toString('base64') };
}

export type ApprovalCheck = { ok: true; nonce: string } | { ok: false; reason: string };

/**
 * Checks signature, key, binding and expiry. Replay is the caller's second half: it must record
 * the nonce under a UNIQUE key in the same transaction that lets the call through.
 */
export function checkToolCallApproval(approval: unknown, expected: ToolCallBinding, trustedKeys: ReadonlyMap<string, Uint8Array>, now: Date): ApprovalCheck {
  if (approval === null || typeof approval !== 'object') return { ok: false, reason: 'approval is not an object' };
  const { payload, keyFingerprint, signature } = approval as Partial<SignedToolCallApproval>;
  if (!payload || typeof payload !== 'object' || payload.type !== 'silas.mcp.approval/v1') return { ok: false, reason: 'approval payload has the wrong type' };
  if (typeof keyFingerprint !== 'string' || typeof signature !== 'string') return { ok: false, reason: 'approval is missing its key or signature' };
  const key = trustedKeys.get(keyFingerprint);
  if (!key) return { ok: false, reason: `approval signed by an unknown key ${keyFingerprint}` };
  let bytes: Buffer;
  try {
    bytes = approvalSigningBytes(payload);
  } catch {
    return { ok: false, reason: 'approval payload is not canonicalisable' };
  }
  if (!verifyEd25519(key, bytes, Buffer.from(signature, 'base64'))) return { ok: false, reason: 'approval signature is invalid' };
  if (payload.server !== expected.server) return { ok: false, reason: 'approval is for another server' };
  if (payload.tool !== expected.tool) return { ok: false, reason: 'approval is for another tool' };
  if (payload.sessionId !== expected.sessionId) return { ok: false, reason: 'approval is for another proxy session' };
  if (payload.requestId !== expected.requestId) return { ok: false, reason: 'approval is for another request id' };
  if (payload.argsHash !== argumentsHash(expected.args)) return { ok: false, reason: 'approval is for other arguments' };
  const expires = Date.parse(payload.expiresAt);
  if (!Number.isFinite(expires) || expires <= now.getTime()) return { ok: false, reason: 'approval has expired' };
  if (typeof payload.nonce !== 'string' || !/^[0-9a-f]{32}$/.test(payload.nonce)) return { ok: false, reason: 'approval nonce is malformed' };
  return { ok: true, nonce: payload.nonce };
}

const MARKER = /\[REDACTED:[^\]\n]*\]/;

/**
 * Whether `text` can be `pattern` with each `[REDACTED:…]` marker standing for some span of it
 * (leftmost-first matching of the literal pieces is exact for wildcards alone).
 */
function matchesRedacted(pattern: string, text: string): boolean {
  const pieces = pattern.split(MARKER);
  if (pieces.length === 1) return pattern === text;
  const first = pieces[0]!;
  const last = pieces[pieces.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length) return false;
  let at = first.length;
  for (let i = 1; i < pieces.length - 1; i += 1) {
    const found = text.indexOf(pieces[i]!, at);
    if (found < 0) return false;
    at = found + pieces[i]!.length;
  }
  return text.length - last.length >= at && text.endsWith(last);
}

/**
 * Why `display` is not `args` as DLP redacts it, or null when it is: the same structure, every
 * value equal, except strings, keys and numbers (as their JSON text) in which `[REDACTED:…]`
 * markers stand for text. The card shows `display`; the signature binds `args`, so a display
 * that says anything else about the call is refused (issue 9 item 9).
 */
export function displayMismatch(display: unknown, args: unknown, path = 'args'): string | null {
  if (typeof display === 'string' && typeof args === 'number') return matchesRedacted(display, String(args)) && MARKER.test(display) ? null : path;
  if (typeof display === 'string' && typeof args === 'string') return matchesRedacted(display, args) ? null : path;
  if (display === null || args === null || typeof display !== 'object' || typeof args !== 'object') return Object.is(display, args) || (display === 0 && args === 0) ? null : path;
  if (Array.isArray(display) !== Array.isArray(args)) return path;
  if (Array.isArray(display)) {
    const list = args as unknown[];
    if (display.length !== list.length) return path;
    for (let i = 0; i < list.length; i += 1) {
      const inner = displayMismatch(display[i], list[i], `${path}[${i}]`);
      if (inner !== null) return inner;
    }
    return null;
  }
  const shown = Object.keys(display);
  const real = Object.keys(args);
  if (shown.length !== real.length) return path;
  for (let i = 0; i < real.length; i += 1) {
    if (!matchesRedacted(shown[i]!, real[i]!)) return `${path}.${real[i]}`;
    const inner = displayMismatch((display as Record<string, unknown>)[shown[i]!], (args as Record<string, unknown>)[real[i]!], `${path}.${real[i]}`);
    if (inner !== null) return inner;
  }
  return null;
}
