import type { ApprovalAnswer, PendingApproval, ToolCallApprovalRequest } from '../../../src-shared/schemas/approval.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import { normalizeName } from '../../aip/policy/normalize.js';
import type { StandingApprovalService } from '../../approvals/standing-service.js';
import { argumentsHash, displayMismatch, issueToolCallApproval } from '../../approvals/tool-call-approval.js';
import type { DecisionKind } from '../decision-queue.js';

/** How long a signed approval stays usable after the human taps Allow: the proxy uses it at once. */
export const APPROVAL_TOKEN_TTL_MS = 2 * 60_000;

const HIGH_RISK = /(delete|remove|rm|exec|run|shell|write|send|deploy|drop|kill|transfer|pay|push)/i;

/** A first, explainable risk label for the card: destructive-sounding verbs are high. */
export function riskOf(tool: string): PendingApproval['risk'] {
  return HIGH_RISK.test(tool) ? 'high' : 'medium';
}

/** What is decided: one call, bound to the hash of the arguments the card shows. */
export interface ToolCallSubject {
  request: ToolCallApprovalRequest;
  /** Computed here from `request.args`, never taken from the asker. */
  argsHash: string;
}

export type ToolCallChoice = 'allow_once' | 'always_allow' | 'deny';
export type ToolCallKind = DecisionKind<ToolCallApprovalRequest, ToolCallSubject, PendingApproval, ApprovalAnswer, ToolCallChoice>;

export interface ToolCallKindDeps {
  audit: Pick<AuditLog, 'append'>;
  /** Where "always allow" goes; without it that choice is refused. */
  standing?: Pick<StandingApprovalService, 'create'>;
  signer: OwnerSigner;
  now?: () => Date;
}

export const TOOL_CALL_KIND = 'tool_call';

/**
 * The human side of `action: ask`: a card per call, and an approval signed with the owner key
 * over the exact call it allows (arguments hash computed here from the arguments shown).
 */
export function toolCallKind(deps: ToolCallKindDeps): ToolCallKind {
  const now = deps.now ?? (() => new Date());
  const { audit } = deps;
  const ended = ({ request, argsHash }: ToolCallSubject, id: string) => ({ approval_id: id, server: request.server, tool: request.tool, args_hash: argsHash });
  return {
    name: TOOL_CALL_KIND,
    noun: 'approval',
    subject(request) {
      // The card must show what the signature binds: the hash is ours, over the arguments shown.
      const argsHash = argumentsHash(request.args);
      const mismatch = displayMismatch(request.display, request.args);
      if (mismatch !== null) {
        audit.append('approvals.refused_display_mismatch', { server: request.server, tool: request.tool, args_hash: argsHash, request_id: request.requestId, session_id: request.sessionId, field: mismatch });
        throw new SilasError(ErrorCode.InvalidArgs, `display differs from args at ${mismatch}: display must be args with only [REDACTED:…] markers in place of text; send what DLP redaction of args produces`);
      }
      return { subject: { request, argsHash }, timeoutMs: request.timeoutMs };
    },
    card(id, { request }, requestedAt, expiresAt) {
      return {
        id,
        server: request.server,
        tool: request.tool,
        args: request.display,
        rule: request.rule,
        reason: request.reason,
        policyName: request.policyName,
        risk: riskOf(request.tool),
        requestedAt: requestedAt.toISOString(),
        expiresAt: expiresAt.toISOString(),
      };
    },
    notification(card, { request }) {
      return { title: `Approve ${request.tool} on ${request.server}?`, body: request.reason || `Policy ${request.policyName} asks before this call.`, urgency: card.risk === 'high' ? 'critical' : 'normal' };
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
    denied(id, subject, shutdown) {
      audit.append('approvals.denied', { ...ended(subject, id), ...(shutdown ? { shutdown: true } : {}) });
    },
    approve(id, subject, choice) {
      const { request, argsHash } = subject;
      if (choice === 'always_allow') {
        if (!deps.standing) throw new SilasError(ErrorCode.Unavailable, '"always allow" is not available in this runtime');
        deps.standing.create({ server: request.server, tool: normalizeName(request.tool), argsHash, argsDisplay: JSON.stringify(request.display) });
      }
      const signed = issueToolCallApproval({ server: request.server, tool: request.tool, argsHash, requestId: request.requestId, sessionId: request.sessionId }, deps.signer, now(), APPROVAL_TOKEN_TTL_MS);
      audit.append('approvals.approved', { ...ended(subject, id), nonce: signed.payload.nonce, key_fingerprint: signed.keyFingerprint, expires_at: signed.payload.expiresAt });
      return { outcome: 'approve', approval: signed };
    },
  };
}
