import type { AskingRule, AskWithdrawReason, ReturnedFinding } from '../../../src-shared/schemas/approval.js';
import type { AskOutcome } from '../../../src-shared/schemas/review.js';

/**
 * How the proxy asks a human about an `action: ask` tool call, or about a server's answer the
 * injection detectors flagged (`x-silas-threats.results: ask`). The real implementation talks
 * to the runtime over its local control socket; the proxy only needs this interface, so it
 * works (failing closed) when no control center is running.
 */
export interface ApprovalRequest {
  server: string;
  tool: string;
  /** The exact arguments that will be forwarded: the runtime hashes and signs these itself. */
  args: unknown;
  /** `args` DLP-redacted with every pattern (`dlp.redactForAudit`): what the card shows; the runtime checks it is a redaction of `args`. */
  display: unknown;
  requestId: string | number;
  sessionId: string;
  /** The tool rule that asked (normalised tool name as written in the policy). */
  rule: string;
  reason: string;
  policyName: string;
  /** The policy rule that asked and its file, for the card's "Why" (docs/review.md "Why"). */
  askedBy?: AskingRule;
  /** `result`: whether the server's answer may reach the agent (`args` is `{ result_sha256 }`); absent for a call. */
  subject?: 'result';
  /** For a `result` question: what the injection detectors found, excerpts DLP-redacted. */
  findings?: ReturnedFinding[];
  /** How long the proxy waits for this answer: the card expires with it (`--ask-timeout`, or the longer limit when the client hears progress). */
  timeoutMs?: number;
}

/**
 * Why the proxy stopped waiting, as the reason of the approver's aborted signal: the approver
 * withdraws the card with it, so a late decision is refused and says why (docs/mcp-proxy.md
 * "Asks follow the agent").
 */
export interface AskWithdrawal {
  reason: AskWithdrawReason;
  /** The agent's own words, for a cancellation (untrusted; quoted). */
  detail?: string;
}

/** The withdrawal an aborted signal carries; an abort without one is the proxy stopping. */
export function withdrawalOf(signal: AbortSignal): AskWithdrawal {
  const reason = signal.reason as Partial<AskWithdrawal> | undefined;
  if (reason && typeof reason === 'object' && typeof reason.reason === 'string') return { reason: reason.reason, ...(typeof reason.detail === 'string' ? { detail: reason.detail } : {}) };
  return { reason: 'proxy_stopped' };
}

/** A `token` in an approval is verified (and consumed) by the proxy through the approval engine, never trusted. */
export type ApprovalAnswer = AskOutcome;

export interface Approver {
  /**
   * Resolves with the human's answer. `signal` aborts when the proxy stops waiting (ask
   * timeout, the agent cancelled or went away, proxy stopping), with an `AskWithdrawal` as its
   * reason: the implementation withdraws the card at once and resolves soon after; the proxy
   * does not wait for it either way.
   */
  request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** Releases connections; called once when the proxy stops. */
  close?(): void;
}

/** Used when no control center can be reached: every ask fails closed at once (-32005). */
export class UnreachableApprover implements Approver {
  readonly reason: string;

  constructor(reason = 'the Silas control center is not running (no HOME/control.sock); start it with `silas start`') {
    this.reason = reason;
  }

  async request(): Promise<ApprovalAnswer> {
    return { outcome: 'unreachable', reason: this.reason };
  }
}
