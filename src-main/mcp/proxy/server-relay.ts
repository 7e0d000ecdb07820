import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { toolSchemaHash, type McpToolDefinition } from '../../aip/policy/schema-hash.js';
import { aipError } from '../../aip/evaluate/errors.js';
import { errorLine, idKey, type Forwarded, type ProxyContext } from './context.js';
import { offerTools } from './tools-offer.js';

type Message = Record<string, unknown>;

function isRecord(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Server → client. Responses are matched to the client request the proxy forwarded (an answer
 * to an id the server never received is dropped: it can only be forged); results and errors
 * pass through response-side DLP, tools/list results through the pins and then the policy's
 * offer (tools-offer.ts: blocked tools left out, asking ones marked). The original line is
 * forwarded when nothing changed, so the relay costs one JSON.parse per message.
 */
export function handleServerLine(ctx: ProxyContext, line: string): void {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    ctx.log(`silas proxy: dropped a line from ${ctx.server} that is not JSON (${line.length} characters)`);
    return;
  }
  if (!isRecord(message)) {
    ctx.log(`silas proxy: dropped a message from ${ctx.server} that is not a JSON-RPC object`);
    return;
  }
  const dlp = ctx.state().dlp;
  if ('method' in message) {
    // The server's own request or notification (sampling, logging, progress): scanned like a result.
    const related = progressOf(ctx, message);
    if (dlp && message.params !== undefined) {
      const scan = dlp.redactResponse(message.params);
      if (scan.redacted) {
        ctx.audit.dlp('downstream', 'server_message', scan.events, { method: typeof message.method === 'string' ? message.method : undefined });
        return ctx.toClient(JSON.stringify({ ...message, params: scan.value }), related);
      }
    }
    return ctx.toClient(line, related);
  }
  const id = message.id;
  const pending = typeof id === 'string' || typeof id === 'number' ? ctx.forwarded.get(idKey(id)) : undefined;
  if (!pending) {
    ctx.log(`silas proxy: dropped a response from ${ctx.server} to id ${JSON.stringify(id)}, which the proxy never forwarded`);
    return;
  }
  ctx.forwarded.delete(idKey(pending.id));
  let changed = false;
  if (isRecord(message.error) && dlp) {
    const scan = dlp.redactError(message.error as { code: number; message: string });
    if (scan.redacted) {
      ctx.audit.dlp('downstream', 'error', scan.events, auditFields(pending));
      message.error = scan.value;
      changed = true;
    }
  }
  if ('result' in message) {
    if (pending.method === 'tools/list' && isRecord(message.result) && Array.isArray(message.result.tools)) {
      const review = reviewTools(ctx, message.result.tools);
      if (!review.ok) {
        const reason = `the server announced tools whose names normalise alike (${review.names.map((n) => JSON.stringify(n)).join(', ')} are both "${review.normalized}"); the list is refused because a policy rule or pin for one would also cover the other`;
        ctx.audit.event('mcp.tools_list_refused', { reason: 'tool names normalise alike', normalized: review.normalized, names: review.names, request_id: pending.id });
        return ctx.toClient(errorLine(pending.id, aipError('SchemaMismatch', { reason, names: review.names })), pending.id);
      }
      // Every announced tool is pinned above; the client is offered only what may run.
      const offered = offerTools(ctx.state().policy, review.kept);
      if (offered !== review.kept || review.kept.length !== message.result.tools.length) {
        message.result = { ...message.result, tools: offered };
        changed = true;
      }
    }
    if (dlp) {
      const scan = dlp.redactResponse(message.result);
      if (scan.redacted) {
        ctx.audit.dlp('downstream', 'result', scan.events, auditFields(pending));
        message.result = scan.value;
        changed = true;
      }
    }
  }
  ctx.toClient(changed ? JSON.stringify(message) : line, pending.id);
}

/**
 * The client request a server's progress notification belongs to, by the `progressToken` that
 * request carried; the server's other requests and notifications belong to none the proxy can
 * tell (transport.ts `ClientSendOptions`).
 */
function progressOf(ctx: ProxyContext, message: Message): string | number | undefined {
  if (message.method !== 'notifications/progress' || !isRecord(message.params)) return undefined;
  const token = message.params.progressToken;
  if (token === undefined) return undefined;
  for (const pending of ctx.forwarded.values()) if (pending.progressToken === token) return pending.id;
  return undefined;
}

function auditFields(pending: Forwarded) {
  return { method: pending.method, tool: pending.tool ?? undefined, request_id: pending.id };
}

type ToolReview = { ok: true; kept: unknown[] } | { ok: false; normalized: string; names: string[] };

/**
 * Records each announced tool (definition for schema_hash, hash for the pin) and returns the
 * tools the client may see: a tool whose definition differs from its pin, or from the
 * policy's schema_hash, is hidden until the person approves it. Pins, definitions and hashes
 * are keyed by the normalised name, the form the policy judges: `Fetch` or `fetch`+U+200B is
 * the pinned `fetch` changed, never a new tool. A list in which two names normalise alike
 * cannot be judged one tool at a time, so nothing of it is recorded and the caller refuses it.
 */
function reviewTools(ctx: ProxyContext, tools: unknown[]): ToolReview {
  const byName = new Map<string, string>();
  for (const tool of tools) {
    if (!isRecord(tool) || typeof tool.name !== 'string') continue;
    const normalized = normalizeName(tool.name);
    const first = byName.get(normalized);
    if (first !== undefined) return { ok: false, normalized, names: [first, tool.name] };
    byName.set(normalized, tool.name);
  }
  const policy = ctx.state().policy;
  const kept = tools.filter((tool) => {
    if (!isRecord(tool) || typeof tool.name !== 'string') return false;
    const definition: McpToolDefinition = { name: tool.name };
    if (typeof tool.description === 'string') definition.description = tool.description;
    if (tool.inputSchema !== undefined) definition.inputSchema = tool.inputSchema;
    const hash = toolSchemaHash(definition);
    const normalized = normalizeName(tool.name);
    const names = { tool: normalized, announced_name: tool.name };
    ctx.toolDefs.set(normalized, definition);
    const previous = ctx.announcedHashes.get(normalized);
    ctx.announcedHashes.set(normalized, hash);

    const rule = policy.toolRules.get(normalized);
    if (rule?.schemaHash) {
      const actual = toolSchemaHash(definition, rule.schemaHash.algorithm);
      if (actual !== rule.schemaHash.source.toLowerCase()) {
        if (previous !== hash) ctx.audit.event('mcp.tool_hidden', { ...names, reason: 'schema_hash mismatch', expected_hash: rule.schemaHash.source, actual_hash: actual });
        return false;
      }
    }
    const seen = ctx.pins.observe(ctx.server, normalized, hash);
    if (seen.kind === 'pinned') ctx.audit.event('mcp.tool_pinned', { ...names, hash });
    if (seen.kind !== 'changed') return true;
    if (seen.fresh) ctx.audit.event('mcp.tool_changed', { ...names, expected_hash: seen.expected, actual_hash: seen.actual });
    return false;
  });
  return { ok: true, kept };
}
