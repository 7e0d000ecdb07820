import { z } from 'zod';
import { API_VERSIONS, CONTROL, CURRENT_VERSION, closed, flag, list, openMap, rate, schemaHash, size, text, v2, type ApiVersion } from './schema-kit.js';
import { identitySchema } from './schema-identity.js';
import { serverSchema } from './schema-server.js';
import { SANDBOX_KEY, sandboxSchema } from './schema-sandbox.js';
import { TOOLS_LIST_KEY, toolsListSchema } from './schema-tools-list.js';
import { THREATS_KEY, threatsSchema } from './schema-threats.js';

/*
 * The AgentPolicy document (spec 001 §3, Appendix A) as zod: one source of truth for what the
 * loader accepts (src-main/aip/policy/load.ts adds only what needs native code: RE2, name
 * normalisation, the hash and the signature) and for the policy editor's checks and hover text
 * (each field's `.describe()`). The output is the document with defaults applied and its string
 * formats parsed; the loader turns it into the runtime AgentPolicy.
 */

export { API_VERSIONS, CURRENT_VERSION, type ApiVersion } from './schema-kit.js';

/** §3.4.3: the methods allowed when a policy gives no allowed_methods. */
export const DEFAULT_ALLOWED_METHODS: readonly string[] = [
  'initialize',
  'initialized',
  'ping',
  'tools/call',
  'tools/list',
  'completion/complete',
  'notifications/initialized',
  'notifications/progress',
  'notifications/message',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'cancelled',
];

const DEFAULT_SCAN_SIZE = 1024 * 1024;
/** The checks a DLP pattern's match may have to pass (src-main/aip/dlp/verify/). */
export const DLP_VERIFIERS = ['luhn', 'eip55', 'base58check', 'bech32', 'bip39', 'entropy', 'not_example'] as const;

/** The longest tool or method name, before §4.1 normalisation. */
const MAX_NAME_LENGTH = 256;
const name = (what: string, missing?: string) => text(what, { nonEmpty: true, max: MAX_NAME_LENGTH, missing });

function metadata(version: ApiVersion) {
  return closed(
    version,
    {
      name: text('a policy name', { nonEmpty: true, max: 253, missing: 'the policy name, e.g. name: my-agent' })
        .refine((value) => !CONTROL.test(value), { error: 'the policy name contains control or invisible characters', abort: true })
        .refine((value) => value === value.trim(), { error: 'the policy name has leading or trailing whitespace', abort: true })
        .describe('Unique identifier of this policy, ideally a DNS-1123 name such as "my-agent" (§3.3). Required.'),
      version: text('a version string such as "1.0.0"', { nonEmpty: true, max: 64 }).optional().describe('Semantic version of the policy, e.g. "1.0.0" (§3.3).'),
      owner: text('a contact (e-mail address)', { nonEmpty: true, max: 254 }).optional().describe('Contact e-mail of the policy owner (§3.3).'),
      signature: v2(
        text('a signature "ed25519:<base64>"', { nonEmpty: true, max: 1024 })
          .optional()
          .describe('"ed25519:<base64>" over the canonical policy without this field (§3.3.1, §5.2.1); verified before the policy applies. Write it with `silas policy sign`.'),
      ),
    },
    { missing: 'a mapping with at least "name"' },
  );
}

function toolRule(version: ApiVersion) {
  const argumentPattern = z.string({ error: (issue) => `expected a regular expression (RE2 syntax) for argument "${String(issue.path?.at(-1))}"` });
  return closed(
    version,
    {
      tool: name('a tool name', 'the tool name this rule applies to').describe('The tool this rule applies to, compared after §4.1 normalisation. Required; one rule per tool.'),
      action: z.enum(['allow', 'block', 'ask']).default('allow').describe('allow (subject to argument checks, the default), block (deny unconditionally) or ask (a person approves each call) (§3.5.1).'),
      rate_limit: rate().optional().describe('"<count>/<period>", e.g. "10/minute"; periods second/sec/s, minute/min/m, hour/hr/h (§3.5.2).'),
      strict_args: flag().optional().describe('Overrides strict_args_default for this tool: when true, arguments not named in allow_args are refused.'),
      schema_hash: v2(schemaHash().optional().describe('"sha256:<hex>" (or sha384/sha512) of the tool definition; a changed tool is blocked with -32013 (§3.5.4).')),
      allow_args: openMap('expected a mapping of argument names mapped to regular expressions', argumentPattern)
        .superRefine((args, ctx) => {
          for (const argument of args.keys()) {
            if (argument.trim() === '') ctx.addIssue({ code: 'custom', path: [argument], message: 'expected an argument name, got an empty key', params: { at: 'key' } });
          }
        })
        .optional()
        .describe('Argument name → RE2 regular expression the argument must match; a missing constrained argument is a violation (§3.5.3).'),
    },
    { hints: { when: 'unknown key "when": CEL/Rego conditions are a proposed future extension (Appendix D.5), not part of aip.io/v1alpha2' } },
  );
}

function dlpSchema(version: ApiVersion) {
  const pattern = closed(version, {
    name: text('a pattern name', { nonEmpty: true, max: 64, missing: 'the rule name used in [REDACTED:<name>]' })
      .refine((value) => !CONTROL.test(value), { error: 'the pattern name contains control or invisible characters', abort: true })
      .describe('Rule name, shown in [REDACTED:<name>] and in DLP events. Required.'),
    regex: text('a regular expression (RE2 syntax)', { nonEmpty: true, missing: 'the detection pattern (RE2 syntax)' }).describe('Detection pattern in RE2 syntax (linear time: no lookaround, no backreferences). Required.'),
    scope: v2(z.enum(['request', 'response', 'all']).default('all').describe('Where the pattern applies: request, response or all (default) (§3.6.5).')),
    'x-silas-verify': z.enum(DLP_VERIFIERS)
      .optional()
      .describe(`Silas extension: a check a match must also pass to count, against false positives: ${DLP_VERIFIERS.join(', ')} (docs/threat-detection.md).`),
  });
  return closed(version, {
    enabled: flag().default(true).describe('Turns DLP scanning on or off. Default: true when a dlp block is present.'),
    scan_requests: v2(flag().default(false).describe('Scan tool arguments before the request is forwarded (§3.6.1). Default: false.')),
    scan_responses: v2(flag().default(true).describe('Scan tool responses (§3.6.2). Default: true.')),
    detect_encoding: flag().default(false).describe('Also look for matches inside base64 and hex encoded text. Default: false.'),
    filter_stderr: flag().default(false).describe("Also scan the server's stderr. Default: false."),
    'x-silas-normalize': flag()
      .default(true)
      .describe('Silas extension: also scan the text as it reads once disguises are undone (NFKC, invisible and bidi characters removed, URL, base64 and hex decoding, bounded), and the string values of one message joined, so a secret split across fields is found. Default: true.'),
    max_scan_size: v2(size().default(DEFAULT_SCAN_SIZE).describe('How much of each message is scanned, e.g. "1MB" (1 MB = 1,048,576 bytes) (§3.6.3). Default: "1MB"; at most "64MB".')),
    on_request_match: v2(z.enum(['block', 'redact', 'warn']).default('block').describe('What a match in a request does: block (default), redact or warn (§3.6.4).')),
    on_redaction_failure: v2(
      z.enum(['block', 'allow_original', 'reject']).default('block').describe('What happens when a redacted request fails: block (default), allow_original (debug only) or reject with -32014 (§3.6.4).'),
    ),
    log_original_on_failure: v2(flag().default(false).describe('Log the unredacted request when redaction fails. Sensitive: for time-limited forensics only (§3.6.4). Default: false.')),
    patterns: list('patterns (name, regex, scope)', pattern, 'a list of patterns, each with name and regex (Appendix A: required when dlp is present)').describe('The detection patterns, each with name, regex and scope. Required when dlp is present.'),
  }).superRefine((dlp, ctx) => {
    if (dlp.enabled && dlp.patterns.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['patterns'], message: 'DLP is enabled but has no patterns; add at least one pattern, or set enabled: false' });
    }
  });
}

const SPEC_HINTS = {
  denied_tools:
    'unknown key "denied_tools": it is not part of AIP spec 001 (only the reference proxy accepts it) and is not enforced here; to forbid a tool, add a tool rule with action: block',
  extends: 'unknown key "extends": policy inheritance is a proposed future extension (Appendix D.2), not part of aip.io/v1alpha2',
};

function specSchema(version: ApiVersion) {
  return closed(
    version,
    {
      mode: z.enum(['enforce', 'monitor']).default('enforce').describe('enforce blocks violations (default); monitor only logs them and lets every call through (§3.4.1, §10.4).'),
      allowed_tools: list('tool names', name('a tool name'))
        .default(() => [])
        .describe('Tools the agent may call, compared after §4.1 normalisation; every other tool is denied (§3.4.2). "*" is not a wildcard here.'),
      allowed_methods: list('JSON-RPC method names', name('a method name'))
        .refine((methods) => methods.length > 0, {
          error: 'an empty allowed_methods would deny every method, including initialize; remove the key to use the default safe list (§3.4.3), or list the methods to allow',
        })
        .default(() => [...DEFAULT_ALLOWED_METHODS])
        .describe('JSON-RPC methods the agent may use; "*" allows all. Default: the safe list of §3.4.3 (initialize, ping, tools/call, tools/list, notifications…).'),
      denied_methods: list('JSON-RPC method names', name('a method name'))
        .default(() => [])
        .describe('JSON-RPC methods always denied; they win over allowed_methods (§3.4.4).'),
      protected_paths: list(
        'paths',
        text('a path', { nonEmpty: true }).refine((value) => !CONTROL.test(value), { error: 'expected a path, got a string with control or invisible characters', abort: true }),
      )
        .default(() => [])
        .describe('Paths no tool argument may touch; "~" and "$HOME" expand to the home directory, and the policy file itself is always protected (§3.4.5).'),
      strict_args_default: flag().default(false).describe('When true, tool rules refuse arguments not declared in allow_args (§3.4.6). Default: false.'),
      tool_rules: list('tool rules', toolRule(version))
        .default(() => [])
        .describe('Per-tool rules: action, rate limit, argument patterns, schema hash (§3.5).'),
      dlp: dlpSchema(version).optional().describe('Data loss prevention: patterns redacted from responses and, optionally, requests (§3.6).'),
      identity: v2(identitySchema(version).optional().describe('Agent identity tokens: lifetime, rotation, replay protection, signing keys (§3.7, §5.8).')),
      server: v2(serverSchema(version).optional().describe('The optional HTTP validation server: address, TLS, failover, endpoints (§3.8).')),
      [SANDBOX_KEY]: sandboxSchema(version)
        .optional()
        .describe("Silas extension: what the governed MCP server itself may reach (files, environment, network, limits) in the sandbox `silas proxy` starts it in."),
      [THREATS_KEY]: threatsSchema(version)
        .optional()
        .describe('Silas extension: detectors for tool poisoning, injected instructions, disguised commands and dangerous chains of calls. Default: all on.'),
      [TOOLS_LIST_KEY]: toolsListSchema(version)
        .optional()
        .describe('Silas extension: what `silas proxy` offers in tools/list. Default: tools the policy blocks outright are left out, tools that ask are marked in their description.'),
    },
    { hints: SPEC_HINTS, missing: 'a mapping (it may be empty: spec: {})' },
  ).superRefine((spec, ctx) => {
    if (spec.identity?.keys?.signing_algorithm === 'HS256' && spec.server?.enabled) {
      ctx.addIssue({
        code: 'custom',
        path: ['identity', 'keys', 'signing_algorithm'],
        message: 'HS256 uses a shared secret and MUST NOT be used when server.enabled is true (§5.3.1, §5.8.2); use ES256 or EdDSA',
      });
    }
  });
}

function isUri(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && URL.canParse(value);
}

function buildPolicySchema(version: ApiVersion) {
  return closed(version, {
    apiVersion: z.enum(API_VERSIONS).describe('aip.io/v1alpha2 (current) or aip.io/v1alpha1; documents with another version are refused (§9.3).'),
    kind: text('"AgentPolicy"')
      .refine((value) => value === 'AgentPolicy', { error: (issue) => `unknown kind "${String(issue.input)}"; expected "AgentPolicy"`, abort: true })
      .describe('Always "AgentPolicy".'),
    metadata: metadata(version).describe('Name, version, owner and signature of the policy (§3.3).'),
    spec: specSchema(version).describe('What the agent may do (§3.4).'),
  }).superRefine((policy, ctx) => {
    const audience = policy.spec.identity?.audience;
    if (audience !== undefined && audience !== policy.metadata.name && !isUri(audience)) {
      ctx.addIssue({
        code: 'custom',
        path: ['spec', 'identity', 'audience'],
        message: `expected a URI such as "https://mcp.example.com/api" or the policy name "${policy.metadata.name}" (§3.7.8), got "${audience}"`,
      });
    }
  });
}

/** The schema of the current version, whose output every loaded policy has. */
export const AgentPolicySchema = buildPolicySchema(CURRENT_VERSION);
const V1ALPHA1_SCHEMA = buildPolicySchema('aip.io/v1alpha1');

/**
 * The schema a document of `version` is checked against. For aip.io/v1alpha1 it lacks the
 * v1alpha2 fields, so they are refused as unknown keys; take values from AgentPolicySchema.
 */
export function policySchemaFor(version: ApiVersion): z.ZodType {
  return version === CURRENT_VERSION ? AgentPolicySchema : V1ALPHA1_SCHEMA;
}

export type AgentPolicyDocument = z.output<typeof AgentPolicySchema>;
export type PolicySpec = AgentPolicyDocument['spec'];
export type ToolRuleDocument = PolicySpec['tool_rules'][number];
export type DlpDocument = NonNullable<PolicySpec['dlp']>;
export type { IdentityDocument } from './schema-identity.js';
export type { ServerDocument } from './schema-server.js';
export type { SandboxDocument } from './schema-sandbox.js';
export type { ToolsListDocument } from './schema-tools-list.js';
export type { ThreatsDocument, CallClass } from './schema-threats.js';
