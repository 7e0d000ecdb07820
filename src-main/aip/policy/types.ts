import type RE2 from 're2';
import type { ApiVersion, CallClass, DlpDocument, IdentityDocument, PolicySpec, SandboxDocument, ServerDocument, ToolRuleDocument, ToolsListDocument } from '../../../src-shared/policy/schema.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';

/*
 * A loaded AgentPolicy (spec 001 §3), validated and compiled: names normalised (§4.1),
 * durations, sizes and rates parsed, every regex compiled with RE2. The evaluator and DLP
 * engine only ever see this form, so nothing is evaluated against a half-loaded policy. The
 * values come from the document schema (src-shared/policy/schema.ts); only the runtime shape
 * (camelCase, sets, maps, compiled regexes) is declared here.
 */

type PolicyMode = PolicySpec['mode'];
type ToolAction = ToolRuleDocument['action'];
/** Calls allowed per period (also the burst), the period, and the text as written ("10/minute"). */
export type RateLimit = NonNullable<ToolRuleDocument['rate_limit']>;
/** Algorithm, lowercase hex digest and the text as written (`sha256:…`). */
type SchemaHash = NonNullable<ToolRuleDocument['schema_hash']>;
export type DlpScope = DlpDocument['patterns'][number]['scope'];

export interface ArgumentRule {
  /** Argument name exactly as written (argument names are not normalised). */
  name: string;
  /** The pattern as written, reported as `failed_rule`. */
  pattern: string;
  regex: RE2;
}

export interface ToolRule {
  /** Normalised tool name (§4.1). */
  tool: string;
  /** As written in the policy. */
  rawTool: string;
  /** Its place in `spec.tool_rules`, so a decision can say which rule decided. */
  index: number;
  action: ToolAction;
  rateLimit: RateLimit | null;
  /** Explicit override of `strict_args_default`, or null to inherit. */
  strictArgs: boolean | null;
  schemaHash: SchemaHash | null;
  allowArgs: ArgumentRule[];
}

export interface DlpPattern {
  name: string;
  /** As written. */
  pattern: string;
  regex: RE2;
  scope: DlpScope;
  /** `x-silas-verify`: a check each match must pass to count (aip/dlp/verify/), or null. */
  verify: DlpVerifier | null;
}

export type DlpVerifier = NonNullable<DlpDocument['patterns'][number]['x-silas-verify']>;

export interface DlpConfig {
  enabled: boolean;
  scanRequests: boolean;
  scanResponses: boolean;
  detectEncoding: boolean;
  /** `x-silas-normalize`: also scan undisguised views of the text and the joined string values of a message. */
  normalize: boolean;
  filterStderr: boolean;
  /** Bytes. Default 1 MB = 1,048,576 bytes. */
  maxScanSize: number;
  onRequestMatch: DlpDocument['on_request_match'];
  onRedactionFailure: DlpDocument['on_redaction_failure'];
  logOriginalOnFailure: boolean;
  patterns: DlpPattern[];
}

/** An injection pattern of the policy's own (`x-silas-threats.patterns`), compiled. */
export interface InjectionPattern {
  name: string;
  pattern: string;
  regex: RE2;
  appliesTo: 'results' | 'arguments' | 'all';
}

export interface ChainRule {
  name: string;
  sequence: CallClass[];
  /** Calls of the session the chain must fit in. */
  within: number;
  action: 'block' | 'ask' | 'off';
}

/** `spec.x-silas-threats` with its defaults (docs/threat-detection.md). */
export interface ThreatsConfig {
  toolDefinitions: 'hold' | 'allow';
  results: 'block' | 'redact' | 'annotate' | 'ask' | 'off';
  arguments: 'block' | 'ask' | 'off';
  chains: 'block' | 'ask' | 'off';
  chainWindow: number;
  /** The policy's chain rules, or null for the built-in ones. */
  chainRules: ChainRule[] | null;
  patterns: InjectionPattern[];
}

interface IdentityConfig {
  enabled: boolean;
  tokenTtlMs: number;
  rotationIntervalMs: number;
  requireToken: boolean;
  sessionBinding: IdentityDocument['session_binding'];
  nonceWindowMs: number;
  policyTransitionGraceMs: number;
  audience: string | null;
  /** The validated section as written, for later issues (token issuance, nonce storage). */
  raw: JsonObject;
}

interface ServerConfig {
  enabled: boolean;
  listen: string;
  failoverMode: ServerDocument['failover_mode'];
  timeoutMs: number;
  tls: { cert: string; key: string } | null;
  raw: JsonObject;
}

export interface AgentPolicy {
  apiVersion: ApiVersion;
  name: string;
  version: string | null;
  owner: string | null;
  /** `metadata.signature` as written (`ed25519:<base64>`), or null. */
  signature: string | null;
  mode: PolicyMode;
  /** Normalised names. */
  allowedTools: ReadonlySet<string>;
  /** Normalised; the §3.4.3 default safe list when the policy gives none. `*` allows all. */
  allowedMethods: ReadonlySet<string>;
  deniedMethods: ReadonlySet<string>;
  /** As written (before `~`/`$HOME` expansion); the matcher expands them. */
  protectedPaths: readonly string[];
  strictArgsDefault: boolean;
  /** Keyed by normalised tool name. */
  toolRules: ReadonlyMap<string, ToolRule>;
  dlp: DlpConfig | null;
  identity: IdentityConfig | null;
  server: ServerConfig | null;
  /** `spec.x-silas-sandbox` (Silas extension, docs/mcp-sandbox.md), or null when absent. */
  sandbox: SandboxDocument | null;
  /** `spec.x-silas-tools-list` (Silas extension, docs/mcp-proxy.md), its defaults when absent. */
  toolsList: ToolsListDocument;
  /** `spec.x-silas-threats` (Silas extension, docs/threat-detection.md), its defaults when absent. */
  threats: ThreatsConfig;
  /** §5.2 policy hash: sha256 hex of RFC 8785 JSON of the document without metadata.signature. */
  hash: string;
  /** The document as parsed from YAML (plain JSON), for hashing and signing. */
  document: JsonObject;
  /** Where it was loaded from, when from a file; automatically protected (§10.1). */
  sourcePath: string | null;
}
