import type { JsonRpcErrorObject, JsonRpcId } from '../../aip/evaluate/errors.js';
import type { PolicyDecision, ToolDefinition } from '../../aip/evaluate/evaluator.js';
import { announcedRoots, type PathBases } from '../../aip/evaluate/paths/path-bases.js';
import type { ApprovalConsumer } from './approval-consumer.js';
import type { Approver } from './approver.js';
import type { PolicyState } from './policy-source.js';
import type { DecisionExtra, ProxyAudit } from './proxy-audit.js';
import type { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import type { ChainSession } from './threat-guard.js';

/** A client request the proxy forwarded and the server has not answered yet. */
export interface Forwarded {
  id: string | number;
  method: string;
  tool: string | null;
  /** The request's `params._meta.progressToken`: the server's progress on it belongs to this request. */
  progressToken?: string | number;
}

/** A call waiting for a human: aborting `controller` withdraws the question; `end` records the call's final decision. */
export interface AskInFlight {
  readonly controller: AbortController;
  /** Records the final `aip.decision` of a call the agent no longer waits for (ask.ts `withdrawAsk`). */
  end(decision: Partial<PolicyDecision>, extra: DecisionExtra): void;
}

/** What the client-side gate and the server-side relay share within one proxy run. */
export interface ProxyContext {
  readonly server: string;
  readonly sessionId: string;
  readonly audit: ProxyAudit;
  readonly pins: ToolPinRepository;
  readonly approvals: ApprovalConsumer;
  readonly approver: Approver;
  /** How long an ask waits when its request carries no `progressToken` (ask-timing.ts). */
  readonly askTimeoutMs: number;
  /** How long an ask waits when the client hears progress on its request. */
  readonly progressAskTimeoutMs: number;
  /** How often a waiting ask whose request carries a `progressToken` sends `notifications/progress` (ask-timing.ts). */
  readonly progressIntervalMs: number;
  state(): PolicyState;
  /** Latest definitions from tools/list, by normalised name (the evaluator's schema_hash input). */
  readonly toolDefs: Map<string, ToolDefinition>;
  /** Latest definition hash (aip/policy/definition-hash.ts) of each announced tool, by normalised name. */
  readonly announcedHashes: Map<string, string>;
  /**
   * The `instructions` of the server's initialize result, once it answered: part of every tool's
   * pin (the agent reads them with the tools), scanned with each tools/list (tools-review.ts).
   */
  serverInstructions?: string;
  readonly forwarded: Map<string, Forwarded>;
  /** The calls of this session as the chain detector remembers them (threat-guard.ts). */
  readonly chains: ChainSession;
  /** Calls waiting for a human, by id key. */
  readonly asking: Map<string, AskInFlight>;
  /** True once the proxy is shutting down: late answers are dropped. */
  stopped(): boolean;
  toServer(line: string): void;
  /** `relatedRequestId`: the client request this line answers or belongs to (transport.ts `ClientSendOptions`). */
  toClient(line: string, relatedRequestId: string | number | undefined): void;
  log(text: string): void;
}

/** Ids are matched by type and value: 1 and "1" are different requests. */
export function idKey(id: string | number): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

export function errorLine(id: JsonRpcId, error: JsonRpcErrorObject | { code: number; message: string; data?: unknown }): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

/** A refusal in the evaluator's shape, so every decision is audited the same way. */
export function refused(base: PolicyDecision, error: JsonRpcErrorObject, failedRule: string | null = null): PolicyDecision {
  const reason = typeof error.data.reason === 'string' ? error.data.reason : error.message;
  return { ...base, decision: 'BLOCK', violation: true, monitored: false, errorCode: error.code, error, reason, failedRule: failedRule ?? base.failedRule };
}

/** Registered at once, so a second request with the same id in the same chunk is refused; undone if the decision cannot be recorded. */
export function track(ctx: ProxyContext, key: string, entry: Forwarded): void {
  ctx.forwarded.set(key, entry);
  ctx.audit.onDrop(() => {
    if (ctx.forwarded.get(key) === entry) ctx.forwarded.delete(key);
  });
}

/**
 * MCP roots the client announces (its answer to the server's `roots/list`) become path bases
 * before the next tool call is evaluated: a filesystem server resolves relative paths against
 * them. Only lines that can hold roots are parsed.
 */
export function noteAnnouncedRoots(bases: PathBases, line: string, log: (text: string) => void): void {
  if (!line.includes('"roots"')) return;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return; // the gate answers malformed lines
  }
  for (const dir of announcedRoots(message)) {
    if (bases.add(dir)) log(`silas proxy: relative paths are also checked against the announced root ${dir}`);
  }
}
