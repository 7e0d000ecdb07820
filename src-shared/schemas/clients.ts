import { z } from 'zod';

/** One MCP server entry of an agent client's configuration. */
export const ClientServerView = z.object({
  name: z.string(),
  /** `unknown` for an entry that is neither a command nor a URL (it cannot be wrapped). */
  transport: z.enum(['stdio', 'remote', 'unknown']),
  wrapped: z.boolean(),
  /** The policy a wrapped entry runs under (null when not wrapped, or wrapped without --policy). */
  policy: z.string().nullable(),
  /** Why an entry is not wrappable (remote, malformed); null for an ordinary stdio entry. */
  reason: z.string().nullable(),
});
export type ClientServerView = z.infer<typeof ClientServerView>;

/** The last wrap silas recorded for a configuration file: what unwrap restores from. */
const ClientWrapRecordView = z.object({
  backup: z.string(),
  wrappedAt: z.string(),
  servers: z.array(z.string()),
});

/** One agent client (Claude Desktop, Cursor, VS Code, Windsurf) and its MCP configuration file. */
export const AgentClientView = z.object({
  client: z.string(),
  label: z.string(),
  /** Where the client keeps its MCP configuration (absolute), whether or not it exists. */
  file: z.string(),
  found: z.boolean(),
  /** Why an existing file could not be read (not JSON, unreadable…); servers is then empty. */
  error: z.string().nullable(),
  servers: z.array(ClientServerView),
  lastWrap: ClientWrapRecordView.nullable(),
});
export type AgentClientView = z.infer<typeof AgentClientView>;

export const ClientWrapPlanView = z.object({
  client: z.string(),
  file: z.string(),
  /** The policy every wrapped server will run under (absolute). */
  policy: z.string(),
  /** Unified diff of the configuration file; empty when nothing would change. */
  diff: z.string(),
  /** `sha256:` of the diff and the file it was computed from; `clients.wrap` applies only while the plan still has this hash. */
  diffHash: z.string(),
  wrap: z.array(z.object({ name: z.string(), policy: z.string() })),
  skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
  /**
   * The starting sandbox profile proposed for each wrapped server: the unified diff of its own
   * policy (`x-silas-sandbox` added; written with the configuration, and covered by `diffHash`),
   * or '' when that policy is not edited (shared, signed, already has one), plus notes saying
   * what each grant is for and what to add by hand.
   */
  sandboxProfiles: z.array(z.object({ server: z.string(), file: z.string(), diff: z.string(), notes: z.array(z.string()) })),
});
export type ClientWrapPlanView = z.infer<typeof ClientWrapPlanView>;

const clientName = z.string().min(1).max(100);
const serverNames = z.array(z.string().min(1).max(200)).min(1).max(100).optional();
const policyPath = z.string().trim().min(1, 'give the policy file').max(4096);

export const ClientWrapArgs = z.object({ client: clientName, servers: serverNames, policy: policyPath }).strict();
export const ClientWrapApplyArgs = ClientWrapArgs.extend({ expectedDiffHash: z.string().regex(/^sha256:[0-9a-f]{64}$/) }).strict();

export const ClientWrapResult = z.object({
  client: z.string(),
  file: z.string(),
  backup: z.string(),
  servers: z.array(z.string()),
});

export const ClientUnwrapResult = z.object({
  client: z.string(),
  file: z.string(),
  /** The backup the file was restored from. */
  backup: z.string(),
  servers: z.array(z.string()),
});
