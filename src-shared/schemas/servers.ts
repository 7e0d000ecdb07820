import { z } from 'zod';
import { AuditEntry } from './audit.js';
import { ServerSandboxSummary } from './server-sandbox.js';

const ToolPinView = z.object({
  tool: z.string(),
  /** Null while a definition held at first sight (the detectors flagged it) waits for the person. */
  approvedHash: z.string().nullable(),
  /**
   * False when the pin's seal does not hold (written or changed outside Silas): its approved hash
   * vouches for nothing and the tool waits for the person (docs/architecture.md §2 "Sealed state").
   */
  sealed: z.boolean(),
  firstSeenAt: z.string(),
  approvedAt: z.string().nullable(),
  /** A changed definition the server announced, hidden and refused until the person approves it. */
  pendingHash: z.string().nullable(),
  pendingSince: z.string().nullable(),
  /** The Review card deciding the pending change (`review.decide` with `approve` or `keep_blocked`); null when none is pending. */
  decisionId: z.string().nullable(),
});

/** Caps of a proxy's start-failure report: it is shown on the Servers page, so it stays short. */
const START_FAILURE_REASON_MAX = 2000;

/** What a proxy that could not start says about it (`servers.reportStartFailure`, ask credential). */
export const ProxyStartFailureReport = z
  .object({
    server: z.string().min(1).max(200),
    client: z.string().min(1).max(64).nullable(),
    reason: z.string().min(1).max(START_FAILURE_REASON_MAX),
    fix: z.string().max(START_FAILURE_REASON_MAX),
  })
  .strict();
export type ProxyStartFailureReport = z.infer<typeof ProxyStartFailureReport>;

/**
 * The latest start failure a proxy reported for a server, shown while no start succeeded after
 * it. A claim from a process holding only the ask credential: plain text, labelled as reported.
 */
export const ReportedStartFailure = z.object({
  at: z.string(),
  client: z.string().nullable(),
  reason: z.string(),
  fix: z.string(),
});
export type ReportedStartFailure = z.infer<typeof ReportedStartFailure>;

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
  /** A proxy reported it could not start, later than the last successful start (absent otherwise). */
  startFailure: ReportedStartFailure.optional(),
});
export type GovernedServer = z.infer<typeof GovernedServer>;
