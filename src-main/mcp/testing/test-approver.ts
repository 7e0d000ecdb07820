import { randomBytes } from 'node:crypto';
import { approvalSigningBytes, argumentsHash, type SignedToolCallApproval, type ToolCallApprovalPayload } from '../../approvals/tool-call-approval.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../proxy/approver.js';

/**
 * Signs an approval for a request the way the runtime does: over the hash of the request's
 * arguments, with the owner key, a fresh nonce and an expiry. `tamper` lets a test alter the payload afterwards.
 */
export function signApprovalFor(req: ApprovalRequest, signer: OwnerSigner, options: { ttlMs?: number; now?: Date } = {}): SignedToolCallApproval {
  const now = options.now ?? new Date();
  const payload: ToolCallApprovalPayload = {
    type: 'silas.mcp.approval/v1',
    server: req.server,
    tool: req.tool,
    argsHash: argumentsHash(req.args),
    requestId: req.requestId,
    sessionId: req.sessionId,
    nonce: randomBytes(16).toString('hex'),
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + (options.ttlMs ?? 60_000)).toISOString(),
  };
  return { payload, keyFingerprint: signer.fingerprint, signature: signer.sign(approvalSigningBytes(payload)).toString('base64') };
}

/** An approver scripted by the test: records every request and answers with `answer`. */
export class ScriptedApprover implements Approver {
  readonly requests: ApprovalRequest[] = [];
  readonly aborted: ApprovalRequest[] = [];

  constructor(private readonly answer: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer> | ApprovalAnswer) {}

  async request(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.requests.push(req);
    signal.addEventListener('abort', () => this.aborted.push(req), { once: true });
    return this.answer(req, signal);
  }
}

/** Never answers until aborted: a person who does not respond. */
export function never(_req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve({ outcome: 'timeout' }), { once: true }));
}
