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

/**
 * Why a proxy withdraws a question it asked (docs/mcp-proxy.md "Asks follow the agent"): the agent
 * cancelled the call (`notifications/cancelled`), the agent's connection closed, the proxy's own ask
 * timeout passed, or the proxy stopped.
 */
export const AskWithdrawReason = z.enum(['client_cancelled', 'client_closed', 'ask_timeout', 'proxy_stopped']);
export type AskWithdrawReason = z.infer<typeof AskWithdrawReason>;

/** `approvals.withdraw`: the question this connection asked with `sessionId` and `requestId`. */
export const ToolCallWithdrawArgs = z
  .object({
    sessionId: z.string().min(1).max(100),
    requestId: z.union([z.string().max(200), z.number()]),
    reason: AskWithdrawReason,
    /** What the agent said, for a cancellation (its `reason`): quoted, never trusted. */
    detail: z.string().max(200).optional(),
  })
  .strict();
export type ToolCallWithdrawArgs = z.infer<typeof ToolCallWithdrawArgs>;

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
