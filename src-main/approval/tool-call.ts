import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src-shared/canonical.js';
import type { JsonObject } from '../../src-shared/schemas/json.js';
import type { ApprovalScope, ApprovalToken } from '../../src-shared/silas/approval.js';
import type { ApprovalEngine } from './engine.js';
import { payloadHash } from './signing.js';
import type { ApprovalSubject } from './validate.js';

/**
 * One MCP tool call as the approval engine sees it (docs/architecture.md §3 "Decisions"): a human's
 * "yes" is an ApprovalToken of scope `single_step` from the same engine that signs plans, bound to
 * the hash of the exact call — server, tool, canonical arguments, JSON-RPC id and proxy session —
 * so it cannot be redirected to another call or session, used late, or (through the engine's
 * consumption ledger) used twice (DESIGN invariant 1).
 */
export interface ToolCallBinding {
  server: string;
  tool: string;
  /** `argumentsHash` of the arguments: computed once per call by whoever holds them (the proxy, the runtime). */
  argsHash: string;
  requestId: string | number;
  sessionId: string;
}

export const TOOL_CALL_SCOPE = 'single_step' satisfies ApprovalScope;

export function argumentsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args ?? {}), 'utf8').digest('hex');
}

/** The signed description of the call: carried in the token's conditions so the ledger shows what was allowed. */
function toolCallConditions(binding: ToolCallBinding): JsonObject {
  return { type: 'silas.mcp.tool_call/v1', server: binding.server, tool: binding.tool, args_hash: binding.argsHash, request_id: binding.requestId, session_id: binding.sessionId };
}

/** The engine's subject for a call: its "plan hash" is the §4.4 payload hash of the call's description. */
export function toolCallSubject(binding: ToolCallBinding): ApprovalSubject {
  const hash = payloadHash(toolCallConditions(binding));
  return { kind: 'tool_call', id: `mcp-call-${hash.slice(0, 32)}`, hash };
}

/** The person's "yes" to one call: the engine's token of scope single_step over exactly that call. */
export function issueToolCallToken(engine: Pick<ApprovalEngine, 'issueToken'>, call: ToolCallBinding, ttlMs: number): ApprovalToken {
  return engine.issueToken(toolCallSubject(call), { verdict: 'approved', conditions: toolCallConditions(call) }, { scope: TOOL_CALL_SCOPE, ttlMs });
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
 * markers stand for text. The card shows `display`; the signature binds `args`, so a display that
 * says anything else about the call is refused: "always allow" on a harmless-looking card must
 * never grant a different call.
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
