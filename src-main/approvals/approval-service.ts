import { randomUUID } from 'node:crypto';
import type { AuditEventData } from '../../src-shared/audit/events.js';
import type { ApprovalAnswer, PendingApproval, ToolCallApprovalRequest } from '../../src-shared/schemas/approval.js';
import { Emitter } from '../../src-shared/emitter.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { DecisionQueue, Notifier } from '../app/types.js';
import { normalizeName } from '../aip/policy/normalize.js';
import type { StandingApprovalService } from './standing-service.js';
import { argumentsHash, displayMismatch, issueToolCallApproval } from './tool-call-approval.js';

/** How long a signed approval stays usable after the human taps Allow: the proxy uses it at once. */
export const APPROVAL_TOKEN_TTL_MS = 2 * 60_000;

interface Waiting {
  card: PendingApproval;
  request: ToolCallApprovalRequest;
  /** Computed here from `request.args`, never taken from the asker. */
  argsHash: string;
  resolve(answer: ApprovalAnswer): void;
  timer: NodeJS.Timeout;
}

export interface ApprovalServiceDeps {
  audit: AuditLog;
  /** Where "always allow" goes; without it that choice is refused. */
  standing?: Pick<StandingApprovalService, 'create'>;
  signer: OwnerSigner;
  notifier: Notifier;
  /** Told whenever the queue changes (the cockpit's event, the tray count). */
  onChange(pending: PendingApproval[], paused: boolean): void;
  now?: () => Date;
}

const HIGH_RISK = /(delete|remove|rm|exec|run|shell|write|send|deploy|drop|kill|transfer|pay|push)/i;

/** A first, explainable risk label for the card: destructive-sounding verbs are high. */
export function riskOf(tool: string): PendingApproval['risk'] {
  return HIGH_RISK.test(tool) ? 'high' : 'medium';
}

/**
 * The human side of `action: ask`. A proxy's request becomes a card; the call resolves when
 * the person decides or the request times out. Every step is audited before it takes effect,
 * and an approval is signed with the owner key over the exact call it allows: the arguments
 * hash is computed here from the arguments the card shows (redacted), never taken on trust.
 */
export class ApprovalService implements DecisionQueue {
  private readonly waiting = new Map<string, Waiting>();
  private readonly changes = new Emitter();
  private paused = false;
  private readonly now: () => Date;

  constructor(private readonly deps: ApprovalServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  request(request: ToolCallApprovalRequest): Promise<ApprovalAnswer> {
    // The card must show what the signature binds: the hash is ours, over the arguments shown.
    const argsHash = argumentsHash(request.args);
    const mismatch = displayMismatch(request.display, request.args);
    if (mismatch !== null) {
      this.deps.audit.append('approvals.refused_display_mismatch', { server: request.server, tool: request.tool, args_hash: argsHash, request_id: request.requestId, session_id: request.sessionId, field: mismatch });
      throw new SilasError(ErrorCode.InvalidArgs, `display differs from args at ${mismatch}: display must be args with only [REDACTED:…] markers in place of text; send what DLP redaction of args produces`);
    }
    const requestedAt = this.now();
    if (this.paused) {
      this.deps.audit.append('approvals.refused_paused', { server: request.server, tool: request.tool, session_id: request.sessionId });
      return Promise.resolve({ outcome: 'deny', reason: 'approvals are paused in the Silas control center' });
    }
    const id = randomUUID();
    const card: PendingApproval = {
      id,
      server: request.server,
      tool: request.tool,
      args: request.display,
      rule: request.rule,
      reason: request.reason,
      policyName: request.policyName,
      risk: riskOf(request.tool),
      requestedAt: requestedAt.toISOString(),
      expiresAt: new Date(requestedAt.getTime() + request.timeoutMs).toISOString(),
    };
    this.deps.audit.append('approvals.requested', { approval_id: id, server: request.server, tool: request.tool, args_hash: argsHash, request_id: request.requestId, session_id: request.sessionId, rule: request.rule });
    return new Promise<ApprovalAnswer>((resolve) => {
      const timer = setTimeout(() => this.finish(id, 'approvals.timed_out', {}, { outcome: 'timeout' }), request.timeoutMs);
      timer.unref();
      this.waiting.set(id, { card, request, argsHash, resolve, timer });
      this.changed();
      this.deps.notifier.notify({ title: `Approve ${request.tool} on ${request.server}?`, body: request.reason || `Policy ${request.policyName} asks before this call.`, urgency: card.risk === 'high' ? 'critical' : 'normal' });
    });
  }

  decide(id: string, decision: 'allow_once' | 'always_allow' | 'deny'): { id: string; outcome: 'approved' | 'denied' } {
    const item = this.waiting.get(id);
    if (!item) throw new SilasError(ErrorCode.InvalidArgs, `no pending approval ${id}; it was already decided or it expired`);
    if (decision === 'deny') {
      this.finish(id, 'approvals.denied', {}, { outcome: 'deny', reason: 'denied by the user in the control center' });
      return { id, outcome: 'denied' };
    }
    const { request, argsHash } = item;
    if (decision === 'always_allow') {
      if (!this.deps.standing) throw new SilasError(ErrorCode.Unavailable, '"always allow" is not available in this runtime');
      this.deps.standing.create({ server: request.server, tool: normalizeName(request.tool), argsHash, argsDisplay: JSON.stringify(request.display) });
    }
    const signed = issueToolCallApproval(
      { server: request.server, tool: request.tool, argsHash, requestId: request.requestId, sessionId: request.sessionId },
      this.deps.signer,
      this.now(),
      APPROVAL_TOKEN_TTL_MS,
    );
    this.finish(id, 'approvals.approved', { nonce: signed.payload.nonce, key_fingerprint: signed.keyFingerprint, expires_at: signed.payload.expiresAt }, { outcome: 'approve', approval: signed });
    return { id, outcome: 'approved' };
  }

  list(): PendingApproval[] {
    return [...this.waiting.values()].map((w) => w.card);
  }

  /** Shutdown: every open question is answered "no" (spec 002 §18.2 step 2). */
  declineAll(reason: string): void {
    for (const id of [...this.waiting.keys()]) this.finish(id, 'approvals.denied', { shutdown: true }, { outcome: 'deny', reason });
  }

  pendingCount(): number {
    return this.waiting.size;
  }

  isPaused(): boolean {
    return this.paused;
  }

  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.deps.audit.append(paused ? 'approvals.paused' : 'approvals.resumed', {});
    this.paused = paused;
    this.changed();
  }

  subscribe(listener: () => void): () => void {
    return this.changes.subscribe(listener);
  }

  private finish(id: string, event: 'approvals.approved' | 'approvals.denied' | 'approvals.timed_out', extra: Record<string, string | boolean>, answer: ApprovalAnswer): void {
    const item = this.waiting.get(id);
    if (!item) return;
    // Audited before the proxy learns the answer: the ledger never lags behind an effect.
    // `extra` differs per outcome; the catalogue checks it against `event` when appended.
    this.deps.audit.append(event, { approval_id: id, server: item.request.server, tool: item.request.tool, args_hash: item.argsHash, ...extra } as AuditEventData<typeof event>);
    clearTimeout(item.timer);
    this.waiting.delete(id);
    item.resolve(answer);
    this.changed();
  }

  private changed(): void {
    this.deps.onChange(this.list(), this.paused);
    this.changes.publish();
  }
}
