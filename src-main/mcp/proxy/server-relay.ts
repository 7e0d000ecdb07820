import { aipError } from '../../aip/evaluate/errors.js';
import { errorLine, idKey, type Forwarded, type ProxyContext } from './context.js';
import { offerTools } from './tools-offer.js';
import { scanServerInstructions } from '../../aip/detect/tool-definition.js';
import { reviewTools } from './tools-review.js';
import { guardReturned } from './threat-guard.js';
import { askAboutResult } from './result-ask.js';

type Message = Record<string, unknown>;

/** Results that are definitions, judged by the tool-definition detector rather than the injection detector. */
const DEFINITION_METHODS = new Set(['initialize', 'tools/list']);

function isRecord(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Server → client. Responses are matched to the client request the proxy forwarded (an answer
 * to an id the server never received is dropped: it can only be forged); results and errors
 * pass through response-side DLP, tools/list results through the pins and then the policy's
 * offer (tools-offer.ts: blocked tools left out, asking ones marked), then the injection
 * detectors (threat-guard.ts; an answer they flag may be held for the person, result-ask.ts). The original line is
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
    // The server's own request or notification (sampling, elicitation, logging, progress): scanned like a result.
    const related = progressOf(ctx, message);
    const method = typeof message.method === 'string' ? message.method : undefined;
    let params = message.params;
    let changed = false;
    if (dlp && params !== undefined) {
      const scan = dlp.redactResponse(params);
      if (scan.redacted) {
        ctx.audit.dlp('downstream', 'server_message', scan.events, { method });
        params = scan.value;
        changed = true;
      }
    }
    if (params !== undefined) {
      const asks = typeof message.id === 'string' || typeof message.id === 'number';
      const threat = guardReturned(ctx, params, asks ? 'server_request' : 'server_notification', { method });
      // `ask` is for an answer the agent waits for; the server's own message answers no request, so it is withheld.
      if (threat.kind === 'block' || threat.kind === 'ask') {
        // The server waits for an answer to its request; the client never sees it.
        if (asks) ctx.toServer(errorLine(message.id as string | number, aipError('Forbidden', { reason: threat.kind === 'ask' ? threat.withheld : threat.reason })));
        return;
      }
      if (threat.kind === 'replace') {
        params = threat.value;
        changed = true;
      }
    }
    return ctx.toClient(changed ? JSON.stringify({ ...message, params }) : line, related);
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
    if (pending.method === 'initialize' && isRecord(message.result)) {
      // Kept before DLP sees the result: the pins cover what the server said, as it said it.
      const instructions = message.result.instructions;
      ctx.serverInstructions = typeof instructions === 'string' ? instructions : undefined;
      // Instructions go to the agent before anyone could decide on them: flagged ones are withheld
      // (the tools they would steer are held for the person, tools-review.ts).
      if (typeof instructions === 'string' && ctx.state().policy.threats.toolDefinitions === 'hold') {
        const findings = scanServerInstructions(instructions, { otherTools: [] });
        if (findings.length > 0) {
          ctx.audit.event('mcp.instructions_withheld', { request_id: pending.id, findings: findings.slice(0, 20).map(({ rule, description, path, excerpt }) => ({ rule, description, path, excerpt })) });
          const { instructions: _withheld, ...rest } = message.result;
          message.result = rest;
          changed = true;
        }
      }
    }
    if (pending.method === 'tools/list' && isRecord(message.result) && Array.isArray(message.result.tools)) {
      const review = reviewTools(ctx, message.result.tools, pending.id);
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
    // Tool definitions and server instructions have their own detector (tools-review.ts).
    if (!DEFINITION_METHODS.has(pending.method)) {
      const threat = guardReturned(ctx, message.result, 'result', auditFields(pending));
      if (threat.kind === 'block') return ctx.toClient(errorLine(pending.id, aipError('Forbidden', { ...(pending.tool ? { tool: pending.tool } : {}), reason: threat.reason })), pending.id);
      // Held for the person: the request stays in flight until the answer is let through or refused.
      if (threat.kind === 'ask') return askAboutResult(ctx, pending, message.result, changed ? JSON.stringify(message) : line, threat);
      if (threat.kind === 'replace') {
        message.result = threat.value;
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
