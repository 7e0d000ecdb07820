import { z } from 'zod';

/*
 * What a governed MCP server's sandbox allowed it, as `silas proxy` recorded it in the ledger
 * (`mcp.proxy_started` data.sandbox) and as the Servers page shows it (DESIGN invariant 10;
 * docs/mcp-sandbox.md "In the ledger and the cockpit"). Only names and paths: never an environment
 * value or a secret.
 */

export const SandboxNetworkMode = z.enum(['none', 'loopback', 'hosts']);
export type SandboxNetworkMode = z.infer<typeof SandboxNetworkMode>;

export const ServerSandboxSummary = z.object({
  /** `none`: the server ran unsandboxed, and `unsandboxedReason` says why. */
  backend: z.enum(['bubblewrap', 'none']),
  /** `--no-sandbox` (the person's choice) or the missing backend; null when sandboxed. */
  unsandboxedReason: z.string().nullable(),
  /** Host paths the server may read (granted read-only). */
  read: z.array(z.string()),
  /** Host paths the server may read and write. */
  write: z.array(z.string()),
  /** Read-only paths the server's own program needs (its interpreter, packages, script). */
  runtime: z.array(z.string()),
  /** Protected paths inside a grant, hidden from the server (an empty directory or file in their place). */
  masked: z.array(z.string()),
  /** Names of the environment variables the server receives (values are never recorded). */
  env: z.array(z.string()),
  /** Names of the variables filled from the OS keyring. */
  secrets: z.array(z.string()),
  /** hosts: through the egress proxy; loopbackPorts: ports of the host's own loopback it may reach (databases, model servers). */
  network: z.object({ mode: SandboxNetworkMode, hosts: z.array(z.string()), loopbackPorts: z.array(z.number().int()).default([]) }),
  limits: z.object({
    /** cgroup2, cgroup1, or null when no aggregate limit is enforced (only when the policy asks for none). */
    mechanism: z.enum(['cgroup2', 'cgroup1']).nullable(),
    max_processes: z.number().int().nullable(),
    max_memory_mb: z.number().int().nullable(),
  }),
});
export type ServerSandboxSummary = z.infer<typeof ServerSandboxSummary>;

/** One refusal the sandbox's boundary recorded (`mcp.sandbox_denied` data). */
export const SandboxDenial = z.object({
  kind: z.enum(['connect']),
  /** The host and port the server asked the egress proxy for. */
  host: z.string(),
  port: z.number().int(),
  reason: z.string(),
  /**
   * Refusals this entry stands for (docs/mcp-sandbox.md, "Refusals in the ledger"): 1 for a host's
   * first, recorded at once; the further refusals of a window in one entry with the window's start
   * and length. Absent in entries of older versions (one refusal each).
   */
  count: z.number().int().positive().optional(),
  window_start: z.string().optional(),
  window_ms: z.number().int().nonnegative().optional(),
});
export type SandboxDenial = z.infer<typeof SandboxDenial>;
