import { Sha256Hex, parseApprovalToken, type ApprovalReasonCode, type ApprovalScope, type ApprovalToken } from '../../src-shared/silas/approval.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import { approvalSigningBytes, deriveTokenId } from './signing.js';

/**
 * What a token is checked against, reduced to hashes so the engine never knows what it approves:
 * each caller hashes its own subjects (plans in `silas/work/plan-subjects.ts`, MCP tool calls in
 * `approval/tool-call.ts`, gate payloads in `silas/executor/gate-approval.ts`). The token's signed
 * fields keep the names of spec 002 §3.6 (`work_item_id`, `plan_hash`) whatever the kind.
 */
export interface ApprovalSubject {
  /** What is approved, for the audit record: `plan`, `tool_call`, `gate_payload`… */
  kind: string;
  /** The subject's id (a work item id, a tool call's derived id); signed as `work_item_id`. */
  id: string;
  /** The 64-hex SHA-256 the approval is bound to (the subject hash); signed as `plan_hash`. */
  hash: string;
  /** Standing approvals only: the goal a spawned task belongs to. */
  parent?: string | null;
  /** Standing approvals only. A goal: its own spawn-policy hash. A spawned task: the spawn-policy hash it conforms to. */
  spawnPolicyHash?: string | null;
}

export type Refusal = { ok: false; code: ApprovalReasonCode; reason: string };
export const refuse = (code: ApprovalReasonCode, reason: string): Refusal => ({ ok: false, code, reason });

export interface ValidationContext {
  trustedKeys: ReadonlyMap<string, Uint8Array>;
  now: Date;
  clockSkewMs: number;
  allowConditional: boolean;
}

export function short(hash: string): string {
  return hash.slice(0, 12);
}

/** Everything `verify` and `check` both check, in the order of §5.11: signature, binding, expiry. */
export function validateToken(
  tokenInput: unknown,
  subject: ApprovalSubject,
  op: 'verify' | 'check',
  options: { spawned?: ApprovalSubject; scope?: ApprovalScope },
  ctx: ValidationContext,
): Refusal | { ok: true; token: ApprovalToken; boundHash: string } {
  const parsed = parseApprovalToken(tokenInput);
  if (!parsed.ok) return refuse('E_APPROVAL_MALFORMED', parsed.error);
  const token = parsed.token;
  const publicKey = ctx.trustedKeys.get(token.key_fingerprint);
  if (!publicKey) return refuse('E_APPROVAL_UNKNOWN_KEY', `token is signed by ${token.key_fingerprint.slice(0, 60)}, which is not a trusted owner key of this home`);
  if (!verifyEd25519(publicKey, approvalSigningBytes(token), Buffer.from(token.signature, 'base64'))) {
    return refuse('E_APPROVAL_SIGNATURE', 'the owner signature does not match the token fields; the token was forged or altered');
  }
  if (deriveTokenId(token) !== token.token_id) return refuse('E_APPROVAL_TOKEN_ID', 'token_id does not match the signed fields; the token was altered');
  if (token.verdict !== 'approved' && !(token.verdict === 'conditional' && ctx.allowConditional)) {
    return refuse('E_APPROVAL_NOT_APPROVED', `the decision was "${token.verdict}", which authorises nothing here`);
  }

  let boundHash: string;
  if (token.scope === 'standing') {
    const bound = token.conditions.spawn_policy_hash as string;
    if (options.scope && options.scope !== 'standing') return refuse('E_APPROVAL_SCOPE', `a standing token cannot authorise a ${options.scope} action`);
    let task = subject;
    if (op === 'verify') {
      if (!options.spawned) return refuse('E_APPROVAL_STANDING_SPAWNED_TASK_REQUIRED', 'Standing verification requires spawned_task');
      const goalRefusal = planBinding(token, subject);
      if (goalRefusal) return goalRefusal;
      if (subject.spawnPolicyHash && subject.spawnPolicyHash !== bound) {
        return refuse('E_APPROVAL_SPAWN_POLICY', 'the goal spawn policy changed since the standing approval was signed');
      }
      task = options.spawned;
    }
    if (task.parent !== token.work_item_id) {
      return refuse('E_APPROVAL_SPAWN_PARENT', `the spawned task's parent (${String(task.parent).slice(0, 80)}) is not the approved goal ${token.work_item_id}`);
    }
    // verify needs positive conformance; check may rely on the consumption bound to the task's plan hash.
    const conformance = task.spawnPolicyHash ?? null;
    if (op === 'verify' ? conformance !== bound : conformance !== null && conformance !== bound) {
      return refuse('E_APPROVAL_SPAWN_POLICY', 'the spawned task does not conform to the spawn policy bound by the standing approval');
    }
    if (!Sha256Hex.safeParse(task.hash).success) return refuse('E_APPROVAL_PLAN_HASH', 'the spawned task has no valid plan hash');
    boundHash = task.hash;
  } else {
    if (options.spawned) return refuse('E_APPROVAL_SCOPE', `a ${token.scope} token cannot authorise a goal-spawned task; a standing approval is required`);
    const wanted = options.scope ?? 'full_plan';
    if (token.scope !== wanted) return refuse('E_APPROVAL_SCOPE', `the token approves scope ${token.scope}, but ${wanted} is being authorised`);
    const planRefusal = planBinding(token, subject);
    if (planRefusal) return planRefusal;
    boundHash = token.plan_hash;
  }

  const now = ctx.now.getTime();
  if (Date.parse(token.issued_at) - ctx.clockSkewMs > now) {
    return refuse('E_APPROVAL_NOT_YET_VALID', `the token is issued at ${token.issued_at}, in the future; check this machine's clock`);
  }
  if (now >= Date.parse(token.expires_at)) return refuse('E_APPROVAL_EXPIRED', `the approval expired at ${token.expires_at}; ask for a new one`);
  return { ok: true, token, boundHash };
}

function planBinding(token: ApprovalToken, subject: ApprovalSubject): Refusal | null {
  if (token.work_item_id !== subject.id) {
    return refuse('E_APPROVAL_WORK_ITEM', `the token approves work item ${token.work_item_id}, not ${String(subject.id).slice(0, 200)}`);
  }
  if (token.plan_hash !== subject.hash) {
    return refuse('E_APPROVAL_PLAN_HASH', `the ${subject.kind === 'plan' ? 'plan' : 'subject'} changed after approval (approved ${short(token.plan_hash)}, now ${short(String(subject.hash))}); approve the new ${subject.kind === 'plan' ? 'plan' : 'one'}`);
  }
  return null;
}
