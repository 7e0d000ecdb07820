import type { DetectorFinding } from '../../aip/detect/finding.js';
import type { EvaluationInput, PolicyDecision } from '../../aip/evaluate/evaluator.js';
import { argumentsHash } from '../../approval/tool-call.js';
import { RETURNED_FINDINGS_MAX, type AskWithdrawReason, type ReturnedFinding } from '../../../src-shared/schemas/approval.js';
import { askPerson } from './ask.js';
import type { Forwarded, ProxyContext } from './context.js';

/*
 * `x-silas-threats.results: ask` (docs/threat-detection.md): a server's answer in which the
 * injection detectors found instructions is held, and the person decides whether it reaches the
 * agent, through the same approver, timeouts, withdrawal and signed single-use approval as a call
 * (ask.ts). The approval binds `{ result_sha256 }`, the hash of the answer's canonical JSON as it
 * would be forwarded, so a "yes" lets through this exact answer and no other, and a token issued
 * for the call (bound to the call's arguments) cannot let it through, nor this one a call.
 */

/** Why the answer never reached the agent, in the final `aip.decision` of a question nobody waits for any more. */
const ANSWER_DROPPED: Record<AskWithdrawReason, string> = {
  client_cancelled: 'The agent cancelled the call while its answer waited for approval; the answer was dropped',
  client_closed: "The agent's connection closed while the call's answer waited for approval; the answer was dropped",
  ask_timeout: 'The approval prompt timed out',
  proxy_stopped: "The MCP server stopped while the call's answer waited for approval; the answer was dropped",
};

/**
 * Holds `result` (the answer to `pending`, after DLP) for the person. `outgoing` is the line the
 * client gets once a valid approval is consumed; a refusal answers -32004, a timeout or an
 * unreachable control center -32005. The request stays in flight under its id meanwhile.
 */
export function askAboutResult(ctx: ProxyContext, pending: Forwarded, result: unknown, outgoing: string, found: { reason: string; findings: readonly DetectorFinding[] }): void {
  const tool = pending.tool ?? pending.method;
  const args = { result_sha256: argumentsHash(result) };
  const input: EvaluationInput = { method: pending.method, tool, args, requestId: pending.id };
  const decision: PolicyDecision = {
    decision: 'ASK',
    violation: false,
    monitored: false,
    errorCode: null,
    error: null,
    reason: found.reason,
    failedArg: null,
    failedRule: `x-silas-threats:${found.findings[0]?.rule ?? 'injection'}`,
    method: pending.method,
    tool,
  };
  askPerson(
    ctx,
    {
      id: pending.id,
      tool,
      args,
      // A hash holds no secret: the card shows what the approval binds, as it is.
      display: args,
      input,
      decision,
      progressToken: pending.progressToken,
      subject: { kind: 'result', findings: shownFindings(ctx, found.findings) },
      ended: ANSWER_DROPPED,
      denied: `The user withheld the answer of ${tool}`,
      extra: { direction: 'downstream' },
      proceed: () => ctx.toClient(outgoing, pending.id),
    },
    argumentsHash(args),
  );
}

/** The findings as the card shows them: bounded, and each excerpt (text the server wrote) DLP-redacted, as the ledger has it. */
function shownFindings(ctx: ProxyContext, findings: readonly DetectorFinding[]): ReturnedFinding[] {
  const dlp = ctx.state().dlp;
  return findings.slice(0, RETURNED_FINDINGS_MAX).map((f) => ({
    rule: f.rule.slice(0, 100),
    description: f.description.slice(0, 500),
    path: f.path.slice(0, 500),
    excerpt: (dlp ? String(dlp.redactForAudit(f.excerpt).value) : f.excerpt).slice(0, 500),
  }));
}
