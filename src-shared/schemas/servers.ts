import { z } from 'zod';
import { AuditEntry } from './audit.js';
import { ServerSandboxSummary } from './server-sandbox.js';

export const ToolPinView = z.object({
  tool: z.string(),
  approvedHash: z.string(),
  /**
   * False when the pin's seal does not hold (written or changed outside Silas): its approved hash
   * vouches for nothing and the tool waits for the person (docs/architecture.md §2 "Sealed state").
   */
  sealed: z.boolean(),
  firstSeenAt: z.string(),
  approvedAt: z.string(),
  /** A changed definition the server announced, hidden and refused until the person approves it. */
  pendingHash: z.string().nullable(),
  pendingSince: z.string().nullable(),
  /** The Review card deciding the pending change (`review.decide` with `approve` or `keep_blocked`); null when none is pending. */
  decisionId: z.string().nullable(),
});

/** One MCP server as the proxies have seen it. */
export const GovernedServer = z.object({
  name: z.string(),
  lastStartedAt: z.string().nullable(),
  policyName: z.string().nullable(),
  policyHash: z.string().nullable(),
  /** Set while the last edit of the policy file failed to load (the last valid policy stays in force). */
  policyError: z.object({ at: z.string(), errors: z.array(z.string()) }).nullable(),
  pins: z.array(ToolPinView),
  recentDecisions: z.array(AuditEntry),
  /** The sandbox of the latest start; null when that start recorded none (a proxy from before sandboxing was recorded). */
  sandbox: ServerSandboxSummary.nullable(),
  /** The server's newest `mcp.sandbox_denied` entries (at most 20), newest first. */
  sandboxDenials: z.array(AuditEntry),
  /** The latest start was with `--allow-unsigned`: policies the owner did not sign are enforced (docs/mcp-proxy.md "Signed policies"). */
  unsignedAllowed: z.boolean().optional(),
});
export type GovernedServer = z.infer<typeof GovernedServer>;
