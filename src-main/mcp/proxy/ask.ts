import { aipError } from '../../aip/evaluate/errors.js';
import { resolveAsk, type EvaluationInput, type PolicyDecision } from '../../aip/evaluate/evaluator.js';
import type { AskingRule, AskWithdrawReason, ReturnedFinding } from '../../../src-shared/schemas/approval.js';
import type { DecisionExtra } from './proxy-audit.js';
import { argumentsHash } from '../../approval/tool-call.js';
import type { ApprovalAnswer, AskWithdrawal } from './approver.js';
import { ASK_PROGRESS_MESSAGE } from './ask-timing.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { errorLine, idKey, refused, track, type AskInFlight, type ProxyContext } from './context.js';

export interface PendingAsk {
  id: string | number;
  /** The tool name as the client sent it: what the approval binds. */
  tool: string;
  /** The arguments that will be forwarded (after request DLP): what the approval's hash binds, checked here on its return. */
  args: unknown;
  input: EvaluationInput;
  decision: PolicyDecision;
  /** The line to send to the server once approved. */
  outgoing: string;
  /** The request's `params._meta.progressToken`: while the person decides, the client hears progress on it. */
  progressToken?: string | number;
}

/**
 * One question to the person about a request the agent waits for: a call before it runs
 * (`askHuman`), or a server's answer before it reaches the agent (result-ask.ts). Both go through
 * the same approver, timeouts, withdrawal and signed single-use approval; they differ in what the
 * approval binds, what the card shows, the words on the record and what a "yes" lets happen.
 */
export interface Question {
  id: string | number;
  /** The tool (or method) as the client sent it: what the approval binds. */
  tool: string;
  /** What the approval's hash binds: a call's forwarded arguments, or `{ result_sha256 }` for an answer. */
  args: unknown;
  /** What the card shows in place of `args` (their DLP redaction for a call). */
  display: unknown;
  input: EvaluationInput;
  decision: PolicyDecision;
  progressToken?: string | number;
  /** Set for a server's answer, so the card cannot be read as a call; with the findings it shows. */
  subject?: { kind: 'result'; findings: ReturnedFinding[] };
  /** The final reason on the record when the agent stops waiting before anyone decided. */
  ended: Record<AskWithdrawReason, string>;
  /** The reason the agent is given when the person says no. */
  denied: string;
  /** Added to every decision this question records (an answer's decisions are `downstream`). */
  extra?: DecisionExtra;
  /** What a valid, consumed approval lets happen: the call goes to the server, or the answer to the client. */
  proceed(): void;
}

/** Why the call never ran, in the final `aip.decision` of an ask nobody waits for any more. */
const ENDED_BEFORE_DECISION: Record<AskWithdrawReason, string> = {
  client_cancelled: 'The agent cancelled the call while it waited for approval; it never ran',
  client_closed: "The agent's connection closed while the call waited for approval; it never ran",
  ask_timeout: 'The approval prompt timed out',
  proxy_stopped: 'The MCP server stopped while the call waited for approval; it never ran',
};

/** Waits for the approver or the ask timeout, whichever comes first; never throws. */
async function waitForAnswer(ctx: ProxyContext, ask: Question, controller: AbortController): Promise<ApprovalAnswer> {
  const st = ctx.state();
  let timer: NodeJS.Timeout | undefined;
  // A client hearing progress is not about to time out, so the person gets the longer limit (ask-timing.ts).
  const limitMs = ask.progressToken === undefined ? ctx.askTimeoutMs : ctx.progressAskTimeoutMs;
  const timeout = new Promise<ApprovalAnswer>((resolve) => {
    timer = setTimeout(() => {
      // Withdrawn in Review too, so nobody approves a call the agent has been told was refused.
      controller.abort({ reason: 'ask_timeout' } satisfies AskWithdrawal);
      resolve({ outcome: 'timeout' });
    }, limitMs);
  });
  // Withdrawn (the agent cancelled or left): stop waiting and stop the progress at once, whatever the approver does.
  const withdrawn = new Promise<ApprovalAnswer>((resolve) => controller.signal.addEventListener('abort', () => resolve({ outcome: 'timeout' }), { once: true }));
  const progress = ask.progressToken === undefined ? undefined : keepAlive(ctx, ask.progressToken, ask.id);
  try {
    const request = ctx.approver.request(
      {
        server: ctx.server,
        tool: ask.tool,
        args: ask.args,
        display: ask.display,
        requestId: ask.id,
        sessionId: ctx.sessionId,
        rule: ask.subject ? 'x-silas-threats.results' : (ask.decision.tool ?? ask.tool),
        reason: ask.decision.reason,
        policyName: st.policy.name,
        ...(ask.decision.askedBy ? { askedBy: askingRule(ask.decision.askedBy, st.policy.sourcePath) } : {}),
        ...(ask.subject ? { subject: ask.subject.kind, findings: ask.subject.findings } : {}),
        timeoutMs: limitMs,
      },
      controller.signal,
    );
    return await Promise.race([request, timeout, withdrawn]);
  } catch (error) {
    return { outcome: 'unreachable', reason: `the approver failed: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
  }
}

/** The rule that asked, with the file its policy was loaded from: what the card's "Why" names (docs/review.md "Why"). */
function askingRule(rule: NonNullable<PolicyDecision['askedBy']>, policyFile: string | null): AskingRule {
  return { ...(policyFile !== null ? { policyFile } : {}), path: rule.path, tool: rule.tool, args: rule.args.map(({ name, pattern }) => ({ name, pattern })) };
}

/**
 * `notifications/progress` on the request's token while the person decides: a client that asked
 * for it (`resetTimeoutOnProgress`) keeps waiting instead of timing out (ask-timing.ts). Only an
 * ask has this timer; an allowed call has none.
 */
function keepAlive(ctx: ProxyContext, progressToken: string | number, requestId: string | number): NodeJS.Timeout {
  let progress = 0;
  return setInterval(() => {
    progress += 1;
    ctx.toClient(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress, message: ASK_PROGRESS_MESSAGE } }), requestId);
  }, ctx.progressIntervalMs);
}

/**
 * The agent no longer waits for this request (it cancelled it, its connection closed, or the
 * proxy is stopping): the question is withdrawn from Review at once, nothing it asked about
 * happens whatever answer comes later, and the ledger gets its final `aip.decision`. False when
 * no ask with this id is waiting.
 */
export function withdrawAsk(ctx: ProxyContext, key: string, withdrawal: AskWithdrawal): boolean {
  const waiting = ctx.asking.get(key);
  if (!waiting) return false;
  ctx.asking.delete(key);
  waiting.controller.abort(withdrawal);
  waiting.end(blockedWithout(withdrawal), { approval: 'cancelled', withdrawn: withdrawal.reason });
  return true;
}

/** Nobody is answered, so no error is recorded: the request was stopped, not refused by a rule (the question words the reason). */
function blockedWithout(withdrawal: AskWithdrawal): Partial<PolicyDecision> {
  return { decision: 'BLOCK', violation: false, monitored: false, errorCode: null, error: null, reason: ENDED_BEFORE_DECISION[withdrawal.reason] };
}

/**
 * `action: ask`: the ASK is audited, the human is asked without blocking the relay, and the
 * call is forwarded only with a valid, unreplayed signed approval whose nonce is consumed in
 * the transaction that audits the approval. Anything else answers -32004 or -32005.
 */
export function askHuman(ctx: ProxyContext, ask: PendingAsk): void {
  const key = idKey(ask.id);
  const st = ctx.state();
  const argsHash = argumentsHash(ask.args);
  const { approval: standing, refused: notInForce } = ctx.approvals.standing(ctx.server, ask.decision.tool ?? normalizeName(ask.tool), argsHash);
  // A matching standing approval that is not in force (revoked, forged, keyring unreachable) is a tampering signal: on the record.
  for (const r of notInForce) ctx.audit.event('approvals.standing_refused', { standing_id: r.id, tool: ask.tool, reason: r.reason });
  if (standing) {
    // The person already said "always allow this tool with these arguments on this server",
    // with a signature over exactly that: no card, the call goes through, and the ledger says why.
    const approved = { ...resolveAsk(ask.decision, 'approve'), reason: 'Allowed by a standing approval' };
    ctx.audit.decision(approved, ask.input, st.policy, st.dlp, { approval: 'standing', standing_id: standing.id, approval_key: standing.keyFingerprint });
    track(ctx, key, { id: ask.id, method: 'tools/call', tool: ask.tool, progressToken: ask.progressToken });
    ctx.toServer(ask.outgoing);
    return;
  }
  const args = ask.args ?? {};
  askPerson(
    ctx,
    {
      id: ask.id,
      tool: ask.tool,
      args,
      display: st.dlp ? st.dlp.redactForAudit(args).value : args,
      input: ask.input,
      decision: ask.decision,
      progressToken: ask.progressToken,
      ended: ENDED_BEFORE_DECISION,
      denied: 'The user denied the request',
      proceed: () => {
        ctx.forwarded.set(idKey(ask.id), { id: ask.id, method: 'tools/call', tool: ask.tool, progressToken: ask.progressToken });
        ctx.toServer(ask.outgoing);
      },
    },
    argsHash,
  );
}

/**
 * Records the ASK and asks the person once it is on the record, without blocking the relay; the
 * request stays in flight under its id (a second request with it is refused, a cancellation
 * withdraws the question) until the answer settles it. `argsHash` is the hash of `ask.args`.
 */
export function askPerson(ctx: ProxyContext, ask: Question, argsHash: string): void {
  const key = idKey(ask.id);
  const st = ctx.state();
  ctx.audit.decision(ask.decision, ask.input, st.policy, st.dlp, ask.extra);
  const controller = new AbortController();
  const inFlight: AskInFlight = {
    controller,
    end: (decision, extra) => {
      const now = ctx.state();
      const reason = extra.withdrawn ? ask.ended[extra.withdrawn] : decision.reason;
      ctx.audit.decision({ ...ask.decision, ...decision, ...(reason !== undefined ? { reason } : {}) }, ask.input, now.policy, now.dlp, { ...ask.extra, ...extra });
    },
  };
  ctx.asking.set(key, inFlight);
  ctx.audit.onDrop(() => {
    if (ctx.asking.get(key) === inFlight) ctx.asking.delete(key);
  });
  // The person is asked only once the ASK is in the ledger.
  ctx.audit.afterCommit(() => {
    // Withdrawn in the same chunk as it was asked (the agent cancelled at once): never asked.
    if (controller.signal.aborted) return;
    void waitForAnswer(ctx, ask, controller).then((answer) => {
      controller.abort();
      // Withdrawn (the agent cancelled or left) or stopping answered this request already; a
      // late answer, even a valid approval, changes nothing and nothing happens.
      if (ctx.stopped() || ctx.asking.get(key) !== inFlight) return;
      ctx.asking.delete(key);
      settle(ctx, ask, answer, argsHash);
    });
  });
}

/** `argsHash` is the hash computed once for the question; the token must bind the same. */
function settle(ctx: ProxyContext, ask: Question, answer: ApprovalAnswer, argsHash: string): void {
  const st = ctx.state();
  const deny = (decision: PolicyDecision, extra: DecisionExtra = {}) => {
    ctx.audit.decision(decision, ask.input, st.policy, st.dlp, { ...ask.extra, approval: answer.outcome, ...extra });
    ctx.toClient(errorLine(ask.id, decision.error!), ask.id);
  };
  switch (answer.outcome) {
    case 'deny': {
      const reason = answer.reason ? `${ask.denied}: ${answer.reason}` : ask.denied;
      return deny(refused(ask.decision, aipError('UserDenied', { tool: ask.tool, reason })));
    }
    case 'timeout':
      return deny(resolveAsk(ask.decision, 'timeout'));
    case 'unreachable': {
      const reason = `The control center is not reachable to ask for approval: ${answer.reason}`;
      return deny(refused(ask.decision, aipError('UserTimeout', { tool: ask.tool, reason })));
    }
    case 'approve':
      break;
  }
  const approved = resolveAsk(ask.decision, 'approve');
  const binding = { server: ctx.server, tool: ask.tool, argsHash, requestId: ask.id, sessionId: ctx.sessionId };
  let result;
  try {
    result = ctx.approvals.consume(answer.token, binding, (nonce, keyFingerprint) => {
      ctx.audit.decisionNow(approved, ask.input, st.policy, st.dlp, { ...ask.extra, approval: 'approve', approval_nonce: nonce, approval_key: keyFingerprint });
    });
  } catch (error) {
    result = { ok: false as const, reason: `the approval could not be recorded: ${(error as Error).message}` };
  }
  if (!result.ok) {
    const reason = `Approval refused: ${result.reason}`;
    return deny(refused(ask.decision, aipError('UserDenied', { tool: ask.tool, reason })), { approval_rejected: result.reason });
  }
  ask.proceed();
}
