import type { ToolCallApprovalRequest } from '../../../src-shared/schemas/approval.js';
import type { RiskLevel } from '../../../src-shared/schemas/review.js';
import { orderActions } from '../../../src-shared/review/cta.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';
import type { StandingApprovalService } from '../../approval/standing/service.js';
import { argumentsHash, displayMismatch, issueToolCallToken } from '../../approval/tool-call.js';
import type { ApprovalEngine } from '../../approval/engine.js';
import type { DecisionKind } from '../decision-queue.js';
import { shownRule, toolCallNotification, whyAsked } from './tool-call-why.js';
import { resultCard, resultRequestProblem } from './tool-call-result.js';

/** How long a signed approval stays usable after the human taps Allow: the proxy uses it at once. */
const APPROVAL_TOKEN_TTL_MS = 2 * 60_000;

const HIGH_RISK_WORDS = new Set(['delete', 'remove', 'rm', 'rmdir', 'unlink', 'erase', 'wipe', 'purge', 'destroy', 'truncate', 'exec', 'execute', 'run', 'shell', 'write', 'overwrite', 'send', 'deploy', 'drop', 'kill', 'transfer', 'pay', 'push']);

/**
 * A first, explainable risk label for the card: a tool whose name holds a destructive verb as a
 * word is high. Words, not substrings: `format_document` holds "rm" and `brunch_menu` "run"
 * only as letters, and a label that cries wolf teaches the person to stop reading it. Names are
 * split at `_`, `-`, `.`, `/`, spaces and camelCase humps (`runCommand` → run, command), and
 * a plural or past form counts as its verb.
 */
export function riskOf(tool: string): RiskLevel {
  return toolNameWords(tool).some((word) => inflections(word).some((form) => HIGH_RISK_WORDS.has(form))) ? 'high' : 'medium';
}

/** The word and what it may be an inflection of (`deletes`, `removed`, `pushes` → their verbs). */
function inflections(word: string): string[] {
  return [word, word.replace(/s$/, ''), word.replace(/es$/, ''), word.replace(/d$/, ''), word.replace(/ed$/, '')];
}

function toolNameWords(tool: string): string[] {
  return tool
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((word) => word.toLowerCase())
    .filter((word) => word !== '');
}

const ALLOW = { choice: 'allow_once', label: 'Allow once', consequence: 'Runs this call once; signed with your key' };
const ALWAYS_ALLOW = {
  choice: 'always_allow',
  label: 'Always allow',
  consequence: 'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
};
const DENY = { choice: 'deny', label: 'Deny', consequence: 'The agent receives an error (-32004)' };

/** What is decided: one call, bound to the hash of the arguments the card shows. */
interface ToolCallSubject {
  request: ToolCallApprovalRequest;
  /** Computed here from `request.args`, never taken from the asker. */
  argsHash: string;
}

export type ToolCallKind = DecisionKind<ToolCallApprovalRequest, ToolCallSubject, 'tool_call'>;

export interface ToolCallKindDeps {
  audit: Pick<AuditLog, 'append'>;
  /** Where "always allow" goes; without it that choice is refused. */
  standing?: Pick<StandingApprovalService, 'create'>;
  /** Issues the owner-signed single_step token bound to the exact call (the keyring-backed signer lives behind it). */
  engine: Pick<ApprovalEngine, 'issueToken'>;
}

const TOOL_CALL_KIND = 'tool_call' as const;

/**
 * The human side of `action: ask`: a card per call, and an approval signed with the owner key
 * over the exact call it allows (arguments hash computed here from the arguments shown). A
 * server's answer held by the injection detectors (`subject: 'result'`) is asked the same way,
 * its card worded as an answer (tool-call-result.ts) and its approval bound to the answer's hash.
 */
export function toolCallKind(deps: ToolCallKindDeps): ToolCallKind {
  const { audit } = deps;
  const ended = ({ request, argsHash }: ToolCallSubject, id: string) => ({ approval_id: id, server: request.server, tool: request.tool, args_hash: argsHash });
  return {
    name: TOOL_CALL_KIND,
    noun: 'approval',
    decline: DENY.choice,
    subject(request) {
      // The card must show what the signature binds: the hash is ours, over the arguments shown.
      const argsHash = argumentsHash(request.args);
      // A held answer binds its hash, never arguments: anything else under `subject: result` would show one thing and sign another.
      const notResult = request.subject === 'result' ? resultRequestProblem(request) : null;
      if (notResult !== null) throw new SilasError(ErrorCode.InvalidArgs, notResult);
      const mismatch = displayMismatch(request.display, request.args);
      if (mismatch !== null) {
        audit.append('approvals.refused_display_mismatch', { server: request.server, tool: request.tool, args_hash: argsHash, request_id: request.requestId, session_id: request.sessionId, field: mismatch });
        throw new SilasError(ErrorCode.InvalidArgs, `display differs from args at ${mismatch}: display must be args with only [REDACTED:…] markers in place of text; send what DLP redaction of args produces`);
      }
      return { subject: { request, argsHash }, timeoutMs: request.timeoutMs };
    },
    card(id, { request }, requestedAt, expiresAt) {
      const common = { kind: TOOL_CALL_KIND, id, requestedAt: requestedAt.toISOString(), expiresAt: expiresAt.toISOString() };
      const base = { server: request.server, tool: request.tool, args: request.display, rule: request.rule, reason: request.reason, policyName: request.policyName };
      if (request.subject === 'result') {
        const { details, ...words } = resultCard(request);
        return { ...common, ...words, details: { ...base, ...details } };
      }
      const riskLevel = riskOf(request.tool);
      const rationale = whyAsked(request);
      return {
        ...common,
        intent: `${request.tool} on ${request.server} wants to run`,
        riskLevel,
        riskReasons: [riskLevel === 'high' ? `"${request.tool}" names an action that can change or destroy data` : `policy ${request.policyName} asks before this tool runs`],
        rationale,
        actions: orderActions(riskLevel, [ALLOW, ALWAYS_ALLOW], DENY),
        details: { ...base, ...(request.askedBy ? { askedBy: shownRule(request.askedBy) } : {}) },
        notification: toolCallNotification(request, riskLevel, rationale),
      };
    },
    notification(card, { request }) {
      return { ...(card.notification ?? toolCallNotification(request, card.riskLevel, card.rationale)), urgency: card.riskLevel === 'high' ? 'critical' : 'normal' };
    },
    requested(id, { request, argsHash }) {
      audit.append('approvals.requested', { approval_id: id, server: request.server, tool: request.tool, args_hash: argsHash, request_id: request.requestId, session_id: request.sessionId, rule: request.rule });
    },
    refusedPaused({ request }) {
      audit.append('approvals.refused_paused', { server: request.server, tool: request.tool, session_id: request.sessionId });
    },
    expired(id, subject) {
      audit.append('approvals.timed_out', ended(subject, id));
    },
    withdrawn(id, subject, reason) {
      audit.append('approvals.withdrawn', { ...ended(subject, id), reason });
    },
    denied(id, subject, shutdown) {
      audit.append('approvals.denied', { ...ended(subject, id), ...(shutdown ? { shutdown: true } : {}) });
    },
    approve(id, subject, choice) {
      const { request, argsHash } = subject;
      if (choice === 'always_allow') {
        // "Always" has no meaning for one answer, and a standing approval is for calls.
        if (request.subject === 'result') throw new SilasError(ErrorCode.InvalidArgs, 'a held answer is let through once; "always allow" is for calls');
        if (!deps.standing) throw new SilasError(ErrorCode.Unavailable, '"always allow" is not available in this runtime');
        deps.standing.create({ server: request.server, tool: normalizeName(request.tool), argsHash, argsDisplay: JSON.stringify(request.display) });
      }
      const call = { server: request.server, tool: request.tool, argsHash, requestId: request.requestId, sessionId: request.sessionId };
      const token = issueToolCallToken(deps.engine, call, APPROVAL_TOKEN_TTL_MS);
      audit.append('approvals.approved', { ...ended(subject, id), token_id: token.token_id, nonce: token.nonce, key_fingerprint: token.key_fingerprint, expires_at: token.expires_at });
      return { outcome: 'approve', token };
    },
  };
}
