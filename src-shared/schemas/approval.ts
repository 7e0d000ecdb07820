import { z } from 'zod';
import { JsonValue } from './json.js';

/** What a proxy asks the human (spec 001 action: ask; card contract of spec 002 §0.5.3). */
export const ToolCallApprovalRequest = z
  .object({
    server: z.string().min(1).max(200),
    tool: z.string().min(1).max(200),
    /** The exact arguments the proxy will forward: the runtime hashes and signs these. */
    args: JsonValue,
    /** `args` DLP-redacted for the card: the same JSON with `[REDACTED:…]` markers in place of text, checked against `args`. */
    display: JsonValue,
    requestId: z.union([z.string().max(200), z.number()]),
    sessionId: z.string().min(1).max(100),
    rule: z.string().max(500),
    reason: z.string().max(1000),
    policyName: z.string().max(200),
    timeoutMs: z.number().int().min(1000).max(3_600_000),
  })
  .strict();
export type ToolCallApprovalRequest = z.infer<typeof ToolCallApprovalRequest>;

export const SignedApproval = z.object({
  payload: z.object({
    type: z.literal('silas.mcp.approval/v1'),
    server: z.string(),
    tool: z.string(),
    argsHash: z.string(),
    requestId: z.union([z.string(), z.number()]),
    sessionId: z.string(),
    nonce: z.string(),
    issuedAt: z.string(),
    expiresAt: z.string(),
  }),
  keyFingerprint: z.string(),
  signature: z.string(),
});

export const ApprovalAnswer = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('approve'), approval: SignedApproval }),
  z.object({ outcome: z.literal('deny'), reason: z.string() }),
  z.object({ outcome: z.literal('timeout') }),
]);
export type ApprovalAnswer = z.infer<typeof ApprovalAnswer>;

export const RiskLevel = z.enum(['low', 'medium', 'high', 'critical']);

/** One card in the Review queue. */
export const PendingApproval = z.object({
  id: z.string(),
  server: z.string(),
  tool: z.string(),
  args: JsonValue,
  rule: z.string(),
  reason: z.string(),
  policyName: z.string(),
  risk: RiskLevel,
  requestedAt: z.string(),
  expiresAt: z.string(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

export const ApprovalDecisionChoice = z.enum(['allow_once', 'always_allow', 'deny']);

/** "Always allow this tool with these arguments on this server", as the Policies page lists it. */
export const StandingApprovalView = z.object({
  id: z.string(),
  server: z.string(),
  tool: z.string(),
  argsHash: z.string(),
  argsDisplay: z.string(),
  createdAt: z.string(),
  keyFingerprint: z.string(),
});
