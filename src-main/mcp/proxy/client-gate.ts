import { aipError, type JsonRpcErrorObject, type JsonRpcId } from '../../aip/evaluate/errors.js';
import type { EvaluationInput, PolicyDecision } from '../../aip/evaluate/evaluator.js';
import { notificationAllowed } from '../../aip/evaluate/jsonrpc.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { argumentValidator } from './argument-validator.js';
import { askHuman, withdrawAsk } from './ask.js';
import { CLIENT_NOTIFICATIONS, INVALID_REQUEST, parseClientLine } from './client-message.js';
import { errorLine, idKey, refused, track, type ProxyContext } from './context.js';
import { guardCall, recordCall } from './threat-guard.js';

/**
 * Client → server. Everything here is synchronous except a human approval, so messages keep
 * their order and each decision is in the ledger before its effect; an ask continues on its
 * own while later lines are handled, so an ask never delays other calls (docs/mcp-proxy.md "Asks follow the agent").
 */
export function handleClientLine(ctx: ProxyContext, line: string): void {
  const parsed = parseClientLine(line);
  const st = ctx.state();
  switch (parsed.kind) {
    case 'invalid':
      ctx.audit.event('mcp.message_refused', { reason: parsed.reason, code: parsed.code, request_id: parsed.id ?? undefined, notification: parsed.notification });
      if (!parsed.notification) ctx.toClient(errorLine(parsed.id, { code: parsed.code, message: parsed.code === INVALID_REQUEST ? 'Invalid Request' : 'Parse error', data: { reason: parsed.reason } }), parsed.id ?? undefined);
      return;
    case 'response':
      // The client answering the server's own request (sampling, roots, elicitation, ping):
      // what a person typed or a model wrote travels to the server, so it is scanned like arguments.
      forwardClientResponse(ctx, parsed.id, parsed.message, line);
      return;
    case 'notification':
      if (!CLIENT_NOTIFICATIONS.has(parsed.method)) {
        // Never answered (the sender expects no reply), never forwarded: only the ledger knows.
        const tool = toolNameOf(parsed.params);
        ctx.audit.event('mcp.notification_dropped', { method: parsed.method, tool, reason: 'not a notification an MCP client may send; a request needs an id' });
      } else if (parsed.method === 'notifications/cancelled') cancelRequest(ctx, parsed.params, line);
      else if (notificationAllowed(st.policy, parsed.method)) ctx.toServer(line);
      else ctx.audit.event('mcp.notification_dropped', { method: parsed.method, reason: 'Method is in denied_methods' });
      return;
    case 'request':
      handleRequest(ctx, parsed.id, parsed.method, parsed.params, parsed.message, line);
  }
}

function handleRequest(ctx: ProxyContext, id: string | number, method: string, params: unknown, message: Record<string, unknown>, line: string): void {
  const key = idKey(id);
  if (ctx.forwarded.has(key) || ctx.asking.has(key)) {
    // Two calls in flight with one id cannot be told apart when the answer comes back.
    ctx.audit.event('mcp.message_refused', { reason: 'request id already in flight', code: INVALID_REQUEST, request_id: id });
    ctx.toClient(errorLine(id, { code: INVALID_REQUEST, message: 'Invalid Request', data: { reason: `request id ${JSON.stringify(id)} is already in flight` } }), id);
    return;
  }
  const st = ctx.state();
  if (method !== 'tools/call') {
    const input: EvaluationInput = { method, requestId: id };
    const decision = st.evaluator.evaluate(input);
    ctx.audit.decision(decision, input, st.policy, st.dlp);
    if (decision.decision !== 'ALLOW') return void ctx.toClient(errorLine(id, decision.error!), id);
    track(ctx, key, { id, method, tool: null, progressToken: progressTokenOf(params) });
    ctx.toServer(line);
    return;
  }

  const p = params as Record<string, unknown>;
  const tool = p.name as string;
  const args = p.arguments;
  const input: EvaluationInput = { method, tool, args, requestId: id };
  const decision = st.evaluator.evaluate(input);
  // One object for the chain detector's check and record: it classes a call once (threat-guard.ts).
  const call = { tool, args };
  const answer = (d: PolicyDecision, extra: Record<string, string> = {}) => {
    recordCall(ctx, call, true);
    ctx.audit.decision(d, input, st.policy, st.dlp, extra);
    ctx.toClient(errorLine(id, d.error!), id);
  };
  if (decision.decision === 'BLOCK' || decision.decision === 'RATE_LIMITED') return answer(decision);

  // Tool-poisoning defence: a tool whose definition changed since it was pinned is refused
  // until the person approves the new definition (the pin is read fresh for that reason).
  // Pins are keyed by the normalised name, as the policy is; the call must use the exact name
  // announced, or a server could run an unannounced variant (`Fetch`) under `fetch`'s pin.
  const normalized = normalizeName(tool);
  const announced = ctx.announcedHashes.get(normalized);
  const announcedName = ctx.toolDefs.get(normalized)?.name;
  if (announced !== undefined && announcedName !== undefined && announcedName !== tool) {
    const reason = `Tool name differs from the announced name ${JSON.stringify(announcedName)}; call the tool by its exact announced name`;
    return answer(refused(decision, aipError('SchemaMismatch', { tool, reason, announced_name: announcedName }), 'tool_pin'));
  }
  const pin = announced === undefined ? null : ctx.pins.get(ctx.server, normalized);
  if (announced !== undefined && pin && (pin.approvedHash !== announced || !pin.sealed)) {
    const reason = pin.sealed
      ? 'Tool definition changed since it was pinned; approve the new version in the Silas cockpit'
      : "The tool's pin was changed outside Silas, so it approves nothing; approve the tool's definition in the Silas cockpit";
    return answer(refused(decision, aipError('SchemaMismatch', { tool, reason, expected_hash: pin.approvedHash, actual_hash: announced }), 'tool_pin'));
  }

  let forwardArgs = args;
  if (st.dlp && args !== undefined) {
    const definition = ctx.toolDefs.get(normalized);
    const scan = st.dlp.scanRequest(args, argumentValidator(definition?.inputSchema));
    ctx.audit.dlp('upstream', 'request', scan.events, { tool, request_id: id, action: scan.action, failure_reason: scan.redactionFailure?.reason });
    if (scan.action === 'block') {
      const error: JsonRpcErrorObject = { code: scan.error!.code, message: scan.error!.message, data: { tool, ...scan.error!.data } };
      return answer(refused(decision, error, scan.error!.data.dlp_rule));
    }
    if (scan.action === 'redact') forwardArgs = scan.value;
  }
  const outgoing = forwardArgs === args ? line : JSON.stringify({ ...message, params: { ...p, arguments: forwardArgs } });

  // What rules cannot say: injected instructions, disguised commands, a dangerous chain (threat-guard.ts).
  const threat = guardCall(ctx, decision, call, forwardArgs, id);
  if (threat.kind === 'refuse') return answer(threat.decision);
  recordCall(ctx, call, false);
  const asked = threat.kind === 'ask' ? threat.decision : decision;

  const progressToken = progressTokenOf(p);
  if (asked.decision === 'ASK') {
    askHuman(ctx, { id, tool, args: forwardArgs, input, decision: asked, outgoing, progressToken });
    return;
  }
  ctx.audit.decision(decision, input, st.policy, st.dlp, forwardArgs === args ? {} : { dlp: 'redacted' });
  track(ctx, key, { id, method, tool, progressToken });
  ctx.toServer(outgoing);
}


/**
 * MCP cancellation from the client. A call still waiting for the person is withdrawn here and
 * never reaches the server (docs/mcp-proxy.md "Asks follow the agent"); only a call the server
 * has is told to the server, and only if the policy lets the notification through.
 */
function cancelRequest(ctx: ProxyContext, params: unknown, line: string): void {
  const p = params !== null && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  const requestId = p.requestId;
  const key = typeof requestId === 'string' || typeof requestId === 'number' ? idKey(requestId) : null;
  const method = 'notifications/cancelled';
  if (key !== null && ctx.asking.has(key)) {
    withdrawAsk(ctx, key, { reason: 'client_cancelled', ...(typeof p.reason === 'string' ? { detail: p.reason.slice(0, 200) } : {}) });
    return;
  }
  if (key === null || !ctx.forwarded.has(key)) {
    ctx.audit.event('mcp.notification_dropped', { method, reason: 'no call with this requestId is in flight at the server' });
    return;
  }
  if (notificationAllowed(ctx.state().policy, method)) ctx.toServer(line);
  else ctx.audit.event('mcp.notification_dropped', { method, reason: 'Method is in denied_methods' });
}

/** `params._meta.progressToken`, when the client asked for progress on this request. */
function progressTokenOf(params: unknown): string | number | undefined {
  if (params === null || typeof params !== 'object') return undefined;
  const meta = (params as Record<string, unknown>)._meta;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  const token = (meta as Record<string, unknown>).progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The tool an id-less call names, for the ledger (first 200 characters). */
function toolNameOf(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return undefined;
  const name = (params as Record<string, unknown>).name;
  return typeof name === 'string' ? name.slice(0, 200) : undefined;
}

/**
 * Request-side DLP (scan_requests, on_request_match) over a client's answer to the server. A
 * blocked answer is replaced by a JSON-RPC error to the server's request, so the server is not
 * left waiting and learns nothing of what was said.
 */
function forwardClientResponse(ctx: ProxyContext, id: JsonRpcId, message: Record<string, unknown>, line: string): void {
  const dlp = ctx.state().dlp;
  const field = 'result' in message ? 'result' : 'error';
  if (!dlp) return ctx.toServer(line);
  const scan = dlp.scanRequest(message[field]);
  ctx.audit.dlp('upstream', 'client_response', scan.events, { request_id: id ?? undefined, field, action: scan.action });
  if (scan.action === 'block') {
    const rule = scan.error!.data.dlp_rule;
    return ctx.toServer(errorLine(id, { code: scan.error!.code, message: scan.error!.message, data: { reason: "DLP pattern matched in the client's answer; it was not forwarded", dlp_rule: rule } }));
  }
  ctx.toServer(scan.action === 'redact' ? JSON.stringify({ ...message, [field]: scan.value }) : line);
}
