import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src-shared/canonical.js';
import {
  ApprovalStrength,
  approvalCanonicalPayload,
  type ApprovalScope,
  type ApprovalSignedPayload,
} from '../../src-shared/silas/approval.js';

/** UTF-8 bytes of the RFC 8785 canonical JSON of the ten signed fields (§3.6). */
export function approvalSigningBytes(payload: ApprovalSignedPayload): Buffer {
  return Buffer.from(approvalCanonicalPayload(payload), 'utf8');
}

/** The token id is the SHA-256 of the signed bytes, so it cannot be edited without detection. */
export function deriveTokenId(payload: ApprovalSignedPayload): string {
  return createHash('sha256').update(approvalSigningBytes(payload)).digest('hex');
}

/**
 * Hash of a non-plan approval payload (a reviewed batch, an autonomy-threshold proposal): the
 * "canonical payload wrapper" of §4.4, so such approvals take the same sign/verify path as plans.
 */
export function payloadHash(payload: unknown): string {
  return createHash('sha256').update(canonicalJson(payload), 'utf8').digest('hex');
}

/**
 * Strength tiers in order (§5.11 step 4). Only `tap` exists in this spec; the ordering is kept so
 * a scope policy naming a stronger tier is refused at issuance instead of silently downgraded.
 */
const STRENGTH_TIERS = ['tap', 'biometric', 'biometric_confirm'] as const;
export type StrengthTier = (typeof STRENGTH_TIERS)[number];
export type ScopeMinStrength = Partial<Record<ApprovalScope, StrengthTier>>;

/** Spec default (`approval.scope_min_strength`): every scope accepts `tap`. */
const DEFAULT_SCOPE_MIN_STRENGTH: ScopeMinStrength = {};

export function resolveApprovalStrength(scope: ApprovalScope, requested: StrengthTier, policy: ScopeMinStrength = DEFAULT_SCOPE_MIN_STRENGTH): ApprovalStrength {
  const minimum = policy[scope] ?? 'tap';
  const resolved = STRENGTH_TIERS.indexOf(requested) >= STRENGTH_TIERS.indexOf(minimum) ? requested : minimum;
  const parsed = ApprovalStrength.safeParse(resolved);
  if (!parsed.success) {
    throw new Error(`scope ${scope} requires approval strength "${resolved}", which this version cannot collect; set approval.scope_min_strength.${scope} to "tap"`);
  }
  return parsed.data;
}
