import { z } from 'zod';

/*
 * The policy editor's calls (docs/policy-editor.md): a draft is validated by the runtime's own
 * loader as the person types (never a second parser in the renderer), and every problem comes back
 * at its line and column with the loader's message ("did you mean …").
 */

const MAX_POLICY_DRAFT_CHARS = 1024 * 1024;

export const PolicyDiagnostic = z.strictObject({
  path: z.string().max(2000),
  line: z.number().int().nonnegative(),
  column: z.number().int().nonnegative(),
  message: z.string().max(5000),
  severity: z.enum(['error', 'warning']),
});
export type PolicyDiagnostic = z.infer<typeof PolicyDiagnostic>;

export const PolicyValidateArgs = z.strictObject({
  text: z.string({ error: 'expected the policy YAML as text' }).max(MAX_POLICY_DRAFT_CHARS, { error: `a policy has at most ${MAX_POLICY_DRAFT_CHARS} characters` }),
});

export const PolicyValidateResult = z.strictObject({
  /** The draft loads: it could be saved and enforced. */
  ok: z.boolean(),
  diagnostics: z.array(PolicyDiagnostic).max(500),
  /** §5.2 policy hash of a draft that loads. */
  hash: z.string().max(100).nullable(),
  /** Milliseconds the loader took, for the editor's status line. */
  took_ms: z.number().nonnegative(),
});
export type PolicyValidateResult = z.infer<typeof PolicyValidateResult>;

const AbsolutePath = z.string({ error: 'expected the absolute path of a policy' }).min(1).max(4096);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected a SHA-256 (64 hex characters)' });

export const PolicyFileStatus = z.strictObject({
  path: z.string(),
  exists: z.boolean(),
  loads: z.boolean(),
  signature: z.enum(['owner', 'unsigned', 'invalid']),
  hash: z.string().nullable(),
  modifiedOutside: z.boolean(),
  versions: z.number().int().nonnegative(),
  textSha256: z.string().nullable(),
  /** Why the file was not even read: over the size cap (checked before reading it). */
  problem: z.string().max(2000).optional(),
  /** The file is what proxies enforce: owner-signed and the text Silas last put in force (docs/mcp-proxy.md "Signed policies"). */
  inForce: z.boolean(),
  /** When the file is not in force: the saved version proxies keep enforcing, or null when none is. */
  inForceSeq: z.number().int().positive().nullable(),
});
export type PolicyFileStatus = z.infer<typeof PolicyFileStatus>;

export const PolicyVersionView = z.strictObject({
  id: z.number().int().positive(),
  seq: z.number().int().positive(),
  policyHash: z.string(),
  signer: z.string(),
  action: z.enum(['save', 'restore', 'adopt']),
  savedAt: z.string(),
  corrupt: z.boolean(),
});
export type PolicyVersionView = z.infer<typeof PolicyVersionView>;

export const PolicyPathArgs = z.strictObject({ path: AbsolutePath });
export const PolicySaveArgs = z.strictObject({
  path: AbsolutePath,
  text: z.string().max(MAX_POLICY_DRAFT_CHARS),
  /** The file's SHA-256 when the editor read it (null: it did not exist); a file changed since is not overwritten. */
  expected_sha256: Sha256.nullable(),
});
export const PolicyVersionArgs = z.strictObject({ id: z.number().int().positive() });
export const PolicyHistoryArgs = z.strictObject({ path: AbsolutePath, limit: z.number().int().min(1).max(1000).default(100) });
export const PolicySaved = z.strictObject({ status: PolicyFileStatus, version: PolicyVersionView });

/** One starting policy of the gallery (aip/templates), with its text to preview and how many cases its suite has. */
export const PolicyTemplateView = z.strictObject({
  id: z.string().max(100),
  title: z.string().max(200),
  server: z.string().max(500),
  summary: z.string().max(2000),
  policyText: z.string(),
  cases: z.number().int().nonnegative(),
});
export const PolicyCreateArgs = z.strictObject({
  name: z.string({ error: 'expected a name for the new policy, e.g. "project-files"' }).min(1, 'name: give the new policy a name').max(63, 'name: at most 63 characters'),
  template: z.string({ error: 'expected the id of a template from the gallery' }).min(1).max(100),
});
export const PolicyCreated = z.strictObject({ status: PolicyFileStatus, version: PolicyVersionView, suitePath: z.string() });

const Decision = z.enum(['ALLOW', 'BLOCK', 'ASK', 'RATE_LIMITED', 'ALLOW_MONITOR']);

const TrialOutcome = z.strictObject({
  decision: Decision,
  reason: z.string(),
  rule: z.string().nullable(),
  failedArg: z.string().nullable(),
  errorCode: z.number().nullable(),
  dlp: z.strictObject({ action: z.string(), rules: z.array(z.string()) }),
  rateLimitRemaining: z.number().int().nullable(),
});

const Draft = { text: z.string().max(MAX_POLICY_DRAFT_CHARS), path: AbsolutePath.nullable().default(null) };

export const PolicyTryArgs = z.strictObject({
  ...Draft,
  call: z.strictObject({
    method: z.string().min(1).max(200).default('tools/call'),
    tool: z.string().min(1).max(500),
    args: z.record(z.string(), z.unknown()).default({}),
    context: z.strictObject({ previous_calls: z.number().int().min(0).max(1_000_000).optional(), user_response: z.enum(['deny', 'timeout', 'approve']).optional() }).default({}),
  }),
});
export const PolicyTryResult = z.strictObject({ draft: TrialOutcome, current: TrialOutcome.nullable() });

export const PolicyReplayArgs = z.strictObject({ ...Draft, server: z.string().min(1).max(200), last: z.number().int().min(1).max(10_000).default(100) });
export const PolicyReplayResult = z.strictObject({
  scanned: z.number().int().nonnegative(),
  results: z.array(
    z.strictObject({
      call: z.strictObject({ index: z.number().int(), ts: z.string(), server: z.string(), tool: z.string(), args: z.record(z.string(), z.unknown()), recorded: z.string() }),
      draft: TrialOutcome,
      current: TrialOutcome.nullable(),
      changed: z.boolean(),
    }),
  ),
});

export const PolicySuiteArgs = z.strictObject({ text: z.string().max(MAX_POLICY_DRAFT_CHARS), path: AbsolutePath });
export const PolicySuiteResult = z.strictObject({
  suitePath: z.string(),
  results: z.array(z.strictObject({ name: z.string(), expected: Decision, draft: TrialOutcome, current: TrialOutcome.nullable(), passed: z.boolean(), changed: z.boolean() })),
});

/** One change made in the form view (or from a standing approval), applied as a splice of the draft's text. */
const PolicyFormChange = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('mode'), mode: z.enum(['enforce', 'monitor']) }),
  z.strictObject({ kind: z.literal('add_item'), list: z.enum(['allowed_tools', 'protected_paths']), value: z.string().min(1).max(4096) }),
  z.strictObject({ kind: z.literal('tool_action'), tool: z.string().min(1).max(500), action: z.enum(['allow', 'ask', 'block']) }),
  z.strictObject({ kind: z.literal('rule_from_standing'), tool: z.string().min(1).max(500), args: z.record(z.string(), z.unknown()) }),
  z.strictObject({ kind: z.literal('dlp_pattern'), name: z.string().min(1).max(200), regex: z.string().min(1).max(8192) }),
]);
export const PolicyEditArgs = z.strictObject({ text: z.string().max(MAX_POLICY_DRAFT_CHARS), change: PolicyFormChange });
export const PolicyEditResult = z.strictObject({ text: z.string(), notes: z.array(z.string()) });
