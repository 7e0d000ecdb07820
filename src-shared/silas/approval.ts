import { z } from 'zod';
import { canonicalJson } from '../canonical.js';
import { JsonObject } from '../schemas/json.js';

/**
 * Silas plan approvals (spec 002 §3.6). Unrelated to `src-shared/schemas/approval.ts`, which is
 * the MCP proxy's per-tool-call approval. The token schema below IS the wire form: the signature
 * travels as a base64 string, so a token round-trips through JSON, SQLite and the audit log as is.
 */

export const ApprovalScope = z.enum([
  'full_plan',
  'single_step',
  'step_range',
  'tool_type',
  'skill_install',
  'credential_use',
  'budget',
  'self_update',
  'connection_act',
  'connection_manage',
  'autonomy_threshold',
  'standing',
]);
export type ApprovalScope = z.infer<typeof ApprovalScope>;

const ApprovalVerdict = z.enum(['approved', 'declined', 'edit_requested', 'conditional']);

/** The spec fixes user-verification strength to `tap`; stronger tiers are a roadmap item (R1). */
export const ApprovalStrength = z.enum(['tap']);
export type ApprovalStrength = z.infer<typeof ApprovalStrength>;

const ApprovalConditions = JsonObject;

/** What a channel collects from the person before a token is minted. */
export const ApprovalDecision = z
  .object({
    verdict: ApprovalVerdict,
    approval_strength: ApprovalStrength.default('tap'),
    conditions: ApprovalConditions.default({}),
  })
  .strict();
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (a SHA-256 digest)');

/**
 * An Ed25519 signature is 64 bytes: 88 base64 characters ending in `==`. The character before the
 * padding must carry zero low bits, so each signature has exactly one accepted spelling.
 */
const Base64Signature = z
  .string()
  .regex(/^[A-Za-z0-9+/]{85}[AQgw]==$/, 'must be the standard base64 (with padding) of a 64-byte Ed25519 signature');

/** Timezone-aware UTC instants only (`...Z`); the string is signed verbatim. */
export const UtcInstant = z.iso.datetime({ message: 'must be an ISO-8601 UTC timestamp ending in Z, e.g. 2026-01-31T12:00:00.000Z' });

const Identifier = z.string().min(1).max(200).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

export const MAX_EXECUTIONS_LIMIT = 1_000_000;

const tokenShape = {
  /**
   * Not in the signed field list of §3.6, so it is derived from what is signed: the SHA-256 of the
   * canonical payload. A verifier recomputes it, so an edited token_id cannot mint a fresh replay key.
   */
  token_id: Sha256Hex,
  plan_hash: Sha256Hex,
  work_item_id: Identifier,
  scope: ApprovalScope,
  verdict: ApprovalVerdict,
  signature: Base64Signature,
  issued_at: UtcInstant,
  expires_at: UtcInstant,
  nonce: Identifier,
  approval_strength: ApprovalStrength,
  conditions: ApprovalConditions,
  max_executions: z.number().int().min(1).max(MAX_EXECUTIONS_LIMIT),
  /** Runtime state, not signed: how many consuming verifications succeeded. */
  executions_used: z.number().int().min(0).max(MAX_EXECUTIONS_LIMIT),
  /** Runtime state, not signed: the execution nonces consumed so far, oldest first. */
  execution_nonces: z.array(Identifier).max(MAX_EXECUTIONS_LIMIT),
  /** Unsigned hint naming the owner key that signed; the verifier still checks the signature. */
  key_fingerprint: z.string().min(1).max(200),
};

export const ApprovalToken = z
  .object(tokenShape)
  .strict()
  .superRefine((token, ctx) => {
    if (Date.parse(token.expires_at) <= Date.parse(token.issued_at)) {
      ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'expires_at must be later than issued_at' });
    }
    if (token.executions_used > token.max_executions) {
      ctx.addIssue({ code: 'custom', path: ['executions_used'], message: 'executions_used cannot exceed max_executions' });
    }
    if (token.scope === 'standing' && !Sha256Hex.safeParse(token.conditions.spawn_policy_hash).success) {
      ctx.addIssue({
        code: 'custom',
        path: ['conditions', 'spawn_policy_hash'],
        message: 'a standing approval must carry conditions.spawn_policy_hash (64 hex characters) binding it to the goal spawn policy',
      });
    }
  });
export type ApprovalToken = z.infer<typeof ApprovalToken>;

/** The exact fields the owner signs (§3.6 "Canonical bytes for token signing", step 1). */
export const APPROVAL_SIGNED_FIELDS = [
  'plan_hash',
  'work_item_id',
  'scope',
  'verdict',
  'nonce',
  'approval_strength',
  'issued_at',
  'expires_at',
  'max_executions',
  'conditions',
] as const;

export type ApprovalSignedPayload = Pick<ApprovalToken, (typeof APPROVAL_SIGNED_FIELDS)[number]>;

export function approvalSignedPayload(token: ApprovalSignedPayload): ApprovalSignedPayload {
  return {
    plan_hash: token.plan_hash,
    work_item_id: token.work_item_id,
    scope: token.scope,
    verdict: token.verdict,
    nonce: token.nonce,
    approval_strength: token.approval_strength,
    issued_at: token.issued_at,
    expires_at: token.expires_at,
    max_executions: token.max_executions,
    conditions: token.conditions,
  };
}

/** RFC 8785 canonical JSON of the signed fields; the signature covers its UTF-8 bytes. */
export function approvalCanonicalPayload(token: ApprovalSignedPayload): string {
  return canonicalJson(approvalSignedPayload(token));
}

/**
 * Why a verification refused a token. Stable codes: the audit log, the executor and the cockpit
 * react to the code; the accompanying message is for people.
 */
export const ApprovalReasonCode = z.enum([
  'E_APPROVAL_MALFORMED',
  'E_APPROVAL_UNKNOWN_KEY',
  'E_APPROVAL_SIGNATURE',
  'E_APPROVAL_TOKEN_ID',
  'E_APPROVAL_NOT_APPROVED',
  'E_APPROVAL_SCOPE',
  'E_APPROVAL_PLAN_HASH',
  'E_APPROVAL_WORK_ITEM',
  'E_APPROVAL_STANDING_SPAWNED_TASK_REQUIRED',
  'E_APPROVAL_SPAWN_PARENT',
  'E_APPROVAL_SPAWN_POLICY',
  'E_APPROVAL_NOT_YET_VALID',
  'E_APPROVAL_EXPIRED',
  'E_APPROVAL_EXHAUSTED',
  'E_APPROVAL_NOT_CONSUMED',
  'E_APPROVAL_REPLAY',
  'E_APPROVAL_STORE',
]);
export type ApprovalReasonCode = z.infer<typeof ApprovalReasonCode>;

export type ApprovalCheck = { ok: true; reason: 'Valid' } | { ok: false; code: ApprovalReasonCode; reason: string };

/** Parses a token from its JSON wire form, naming the offending field on failure. */
export function parseApprovalToken(value: unknown): { ok: true; token: ApprovalToken } | { ok: false; error: string } {
  const parsed = ApprovalToken.safeParse(value);
  if (parsed.success) return { ok: true, token: parsed.data };
  const first = parsed.error.issues[0]!;
  const field = first.path.length > 0 ? first.path.join('.') : '(token)';
  return { ok: false, error: `approval_token.${field}: ${first.message}` };
}
