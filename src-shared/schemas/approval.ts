import { z } from 'zod';
import { JsonValue } from './json.js';

/**
 * The policy rule that asked about a call, for the card's "Why" (docs/review.md "Why"). A
 * policy's author and the asking process choose this text, so it is bounded here; the card
 * strips control characters before it shows any of it. A proxy clips to these limits.
 */
export const ASKING_RULE_LIMITS = { text: 200, path: 1000, pattern: 500, args: 16 } as const;
export const AskingRule = z
  .object({
    /** The policy file the proxy enforces, when it was loaded from one. */
    policyFile: z.string().max(ASKING_RULE_LIMITS.path).optional(),
    /** Where the policy writes the rule, e.g. `spec.tool_rules[3]`. */
    path: z.string().max(ASKING_RULE_LIMITS.text),
    /** The tool as the rule writes it. */
    tool: z.string().max(ASKING_RULE_LIMITS.text),
    /** The rule's argument constraints (`allow_args`), each met by the call. */
    args: z.array(z.object({ name: z.string().max(ASKING_RULE_LIMITS.text), pattern: z.string().max(ASKING_RULE_LIMITS.pattern) }).strict()).max(ASKING_RULE_LIMITS.args),
  })
  .strict();
export type AskingRule = z.infer<typeof AskingRule>;

/** `rule` within the limits, so a long pattern or path shortens the card instead of failing the ask. */
export function clipAskingRule(rule: AskingRule): AskingRule {
  const { text, path, pattern, args } = ASKING_RULE_LIMITS;
  return {
    ...(rule.policyFile !== undefined ? { policyFile: rule.policyFile.slice(0, path) } : {}),
    path: rule.path.slice(0, text),
    tool: rule.tool.slice(0, text),
    args: rule.args.slice(0, args).map((arg) => ({ name: arg.name.slice(0, text), pattern: arg.pattern.slice(0, pattern) })),
  };
}

/**
 * What an injection detector found in a server's answer held for the person
 * (`x-silas-threats.results: ask`): the rule, its words, where in the answer, and the offending
 * text as found (DLP-redacted). Text the server wrote: the card escapes it, never renders it.
 */
export const RETURNED_FINDINGS_MAX = 20;
export const ReturnedFinding = z
  .object({
    rule: z.string().max(100),
    description: z.string().max(500),
    path: z.string().max(500),
    excerpt: z.string().max(500),
  })
  .strict();
export type ReturnedFinding = z.infer<typeof ReturnedFinding>;

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
    /** Absent from proxies older than the rule explanation: the card then says only what `reason` says. */
    askedBy: AskingRule.optional(),
    /**
     * `result`: the question is whether a server's answer to this request may reach the agent,
     * not whether the call may run; `args` is then `{ result_sha256 }`, the hash of the answer's
     * canonical JSON, so the approval binds that exact answer. Absent: a call.
     */
    subject: z.literal('result').optional(),
    /** For a `result` question: what the detectors found in the answer. */
    findings: z.array(ReturnedFinding).max(RETURNED_FINDINGS_MAX).optional(),
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
