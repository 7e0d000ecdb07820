import { readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import RE2 from 're2';
import { Lexer, LineCounter, isAlias, isCollection, isMap, isPair, isScalar, isSeq, parseAllDocuments, type Document, type YAMLMap } from 'yaml';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { verifyEd25519 } from '../../keys/ed25519.js';
import { formatDuration, parseDuration, parseRate, parseSize } from './durations.js';
import { normalizeName } from './normalize.js';
import { policyCanonicalBytes, policyHash } from './policy-hash.js';
import type {
  AgentPolicy,
  ApiVersion,
  ArgumentRule,
  DlpConfig,
  DlpPattern,
  DlpScope,
  IdentityConfig,
  PolicyMode,
  RateLimit,
  SchemaHash,
  ServerConfig,
  ToolAction,
  ToolRule,
} from './types.js';
import { MAX_DEPTH, PolicyReader, childPath, describe, type Entry, type KeySpec, type PolicyError, type PolicyWarning } from './yaml-reader.js';

export type { PolicyError, PolicyWarning } from './yaml-reader.js';

/*
 * Loads an AgentPolicy (spec 001 §3, Appendix A) from YAML: parse (YAML 1.2, core schema),
 * guard against oversized input, validate every key and value with its YAML path, line and
 * column, compile every regex with RE2, apply the defaults, compute the §5.2 hash and verify
 * the §3.3.1 signature. A policy is returned only when all of that succeeded; otherwise every
 * error found is returned and nothing else.
 */

export type PolicyLoadResult =
  | {
      ok: true;
      policy: AgentPolicy;
      /** SHOULD-level findings, each as "LINE:COL path: message". */
      warnings: string[];
      /** Fingerprint of the trusted key that verified `metadata.signature`, or null when unsigned. */
      signedBy: string | null;
    }
  | { ok: false; errors: PolicyError[] };

export interface PolicyLoadOptions {
  /** Where the text came from; recorded in the policy and automatically protected (§10.1). */
  sourcePath?: string | null;
  /** Public keys that may sign policies: fingerprint → raw 32-byte Ed25519 public key. */
  trustedKeys?: ReadonlyMap<string, Uint8Array>;
  /** Refuse an unsigned policy (-32010), e.g. when the deployment requires signed policies. */
  requireSignature?: boolean;
}

/** The largest policy accepted: 1 MiB of UTF-8. */
export const MAX_POLICY_BYTES = 1024 * 1024;
/** YAML alias expansion budget (the `yaml` package's maxAliasCount): a billion-laughs guard. */
export const MAX_ALIAS_COUNT = 100;
/** -32010, §7: Policy Signature Invalid. */
export const POLICY_SIGNATURE_INVALID = -32010;

export const API_VERSIONS: readonly ApiVersion[] = ['aip.io/v1alpha2', 'aip.io/v1alpha1'];

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

const MAX_PATTERN_LENGTH = 8192;
const MAX_NAME_LENGTH = 256;
const DEFAULT_TOKEN_TTL_MS = 5 * 60_000;
const DEFAULT_ROTATION_MS = 4 * 60_000;
const DEFAULT_SCAN_SIZE = 1024 * 1024;
const CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

// ---------------------------------------------------------------------------------------------
// The schema's keys (Appendix A). Everything else is an error.

const TOP_KEYS: Record<string, KeySpec> = { apiVersion: {}, kind: {}, metadata: {}, spec: {} };
const METADATA_KEYS: Record<string, KeySpec> = { name: {}, version: {}, owner: {}, signature: { v2: true } };
const SPEC_KEYS: Record<string, KeySpec> = {
  mode: {},
  allowed_tools: {},
  allowed_methods: {},
  denied_methods: {},
  protected_paths: {},
  strict_args_default: {},
  tool_rules: {},
  dlp: {},
  identity: { v2: true },
  server: { v2: true },
};
const SPEC_SPECIAL: Record<string, string> = {
  denied_tools:
    'unknown key "denied_tools": it is not part of AIP spec 001 (only the reference proxy accepts it) and is not enforced here; to forbid a tool, add a tool rule with action: block',
  extends: 'unknown key "extends": policy inheritance is a proposed future extension (Appendix D.2), not part of aip.io/v1alpha2',
};
const TOOL_RULE_KEYS: Record<string, KeySpec> = { tool: {}, action: {}, rate_limit: {}, strict_args: {}, schema_hash: { v2: true }, allow_args: {} };
const TOOL_RULE_SPECIAL: Record<string, string> = {
  when: 'unknown key "when": CEL/Rego conditions are a proposed future extension (Appendix D.5), not part of aip.io/v1alpha2',
};
const DLP_KEYS: Record<string, KeySpec> = {
  enabled: {},
  scan_requests: { v2: true },
  scan_responses: { v2: true },
  detect_encoding: {},
  filter_stderr: {},
  max_scan_size: { v2: true },
  on_request_match: { v2: true },
  on_redaction_failure: { v2: true },
  log_original_on_failure: { v2: true },
  patterns: {},
};
const DLP_PATTERN_KEYS: Record<string, KeySpec> = { name: {}, regex: {}, scope: { v2: true } };
const IDENTITY_KEYS: Record<string, KeySpec> = {
  enabled: {},
  token_ttl: {},
  rotation_interval: {},
  require_token: {},
  session_binding: {},
  nonce_window: {},
  policy_transition_grace: {},
  audience: {},
  nonce_storage: {},
  keys: {},
};
const NONCE_STORAGE_KEYS: Record<string, KeySpec> = { type: {}, address: {}, key_prefix: {}, clock_skew_tolerance: {} };
const KEYS_KEYS: Record<string, KeySpec> = {
  signing_algorithm: {},
  key_source: {},
  key_path: {},
  rotation_period: {},
  jwks_endpoint: {},
  grace_period: {},
  external: {},
};
const EXTERNAL_KEY_KEYS: Record<string, KeySpec> = { type: {}, address: {}, key_name: {} };
const SERVER_KEYS: Record<string, KeySpec> = { enabled: {}, listen: {}, failover_mode: {}, timeout: {}, tls: {}, fail_open_constraints: {}, endpoints: {} };
const TLS_KEYS: Record<string, KeySpec> = { cert: {}, key: {}, client_ca: {}, require_client_cert: {} };
const FAIL_OPEN_KEYS: Record<string, KeySpec> = { allowed_tools: {}, max_duration: {}, max_requests: {}, alert_webhook: {}, require_local_policy: {} };
const ENDPOINT_KEYS: Record<string, KeySpec> = { validate: {}, revoke: {}, jwks: {}, health: {}, metrics: {} };

// ---------------------------------------------------------------------------------------------
// Public entry points

/** Loads a policy from YAML text. Never throws for bad input. */
export function loadPolicyText(text: string, options: PolicyLoadOptions = {}): PolicyLoadResult {
  const parsed = parsePolicyYaml(text);
  if (!parsed.ok) return parsed;
  const reader = new PolicyReader(parsed.doc, parsed.lineCounter);
  const policy = buildPolicy(reader, parsed.doc, parsed.json, options);
  let signedBy: string | null = null;
  if (policy && reader.errors.length === 0) {
    signedBy = checkSignature(reader, parsed.doc, policy, options);
  }
  if (!policy || reader.errors.length > 0) return { ok: false, errors: sortErrors(reader.errors) };
  return { ok: true, policy, warnings: reader.warnings.map(formatWarning), signedBy };
}

/** Reads and loads a policy file; its absolute path becomes `sourcePath`. Never throws. */
export function loadPolicyFile(path: string, options: Omit<PolicyLoadOptions, 'sourcePath'> = {}): PolicyLoadResult {
  const absolute = resolvePath(path);
  const text = readPolicyText(absolute);
  if (!text.ok) return text;
  return loadPolicyText(text.text, { ...options, sourcePath: absolute });
}

/** Reads a policy file as UTF-8 text with the size limit applied before reading it whole. */
export function readPolicyText(path: string): { ok: true; text: string } | { ok: false; errors: PolicyError[] } {
  const fileError = (message: string): { ok: false; errors: PolicyError[] } => ({ ok: false, errors: [{ path: '', line: 0, column: 0, message }] });
  let bytes: Buffer;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return fileError(`cannot read the policy: ${path} is not a regular file`);
    if (stat.size > MAX_POLICY_BYTES) return fileError(`the policy file is ${stat.size} bytes; the maximum is ${MAX_POLICY_BYTES} bytes (1 MiB)`);
    bytes = readFileSync(path);
  } catch (error) {
    return fileError(`cannot read the policy: ${(error as Error).message}`);
  }
  if (bytes.length > MAX_POLICY_BYTES) return fileError(`the policy file is ${bytes.length} bytes; the maximum is ${MAX_POLICY_BYTES} bytes (1 MiB)`);
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(bytes)) {
    const bad = text.indexOf('\uFFFD');
    const before = text.slice(0, bad);
    const line = before.split('\n').length;
    const column = bad - before.lastIndexOf('\n');
    return { ok: false, errors: [{ path: '', line, column, message: 'the policy is not valid UTF-8 text' }] };
  }
  return { ok: true, text };
}

/**
 * `metadata.signature` as written, read without validating anything else; null when absent or
 * unreadable. Lets a caller decide whether it needs trusted keys before loading.
 */
export function readPolicySignature(text: string): string | null {
  const parsed = parsePolicyYaml(text);
  if (!parsed.ok) return null;
  const metadata = parsed.json.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return null;
  const signature = (metadata as JsonObject).signature;
  return typeof signature === 'string' ? signature : null;
}

export function formatWarning(warning: PolicyWarning): string {
  return `${warning.line}:${warning.column} ${warning.path}: ${warning.message}`;
}

// ---------------------------------------------------------------------------------------------
// YAML parsing with resource limits

export type ParsedPolicyYaml = { ok: true; doc: Document.Parsed; lineCounter: LineCounter; json: JsonObject } | { ok: false; errors: PolicyError[] };

function yamlProblemMessage(text: string, code: string, raw: string, offset: number): string {
  if (code === 'DUPLICATE_KEY') {
    const key = /^("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^:\n#{}[\],]+?)\s*:/.exec(text.slice(offset, offset + 300))?.[1];
    return `duplicate key${key ? ` ${key.startsWith('"') || key.startsWith("'") ? key : `"${key}"`}` : ''}: each key may appear only once in a mapping`;
  }
  if (code === 'TAB_AS_INDENT') return 'tabs are not allowed for indentation in YAML; use spaces';
  return raw;
}

/** Parses policy YAML with the size, alias and nesting limits. Exposed for the signer. */
export function parsePolicyYaml(text: string): ParsedPolicyYaml {
  const single = (line: number, column: number, message: string, path = ''): ParsedPolicyYaml => ({ ok: false, errors: [{ path, line, column, message }] });
  const size = Buffer.byteLength(text, 'utf8');
  if (size > MAX_POLICY_BYTES) return single(1, 1, `the policy is ${size} bytes; the maximum is ${MAX_POLICY_BYTES} bytes (1 MiB)`);
  if (text.replace(/^\uFEFF/, '').trim() === '') return single(1, 1, 'the policy is empty; expected a YAML mapping with apiVersion, kind, metadata and spec');

  // Flow nesting ([[[[…) is measured on the lexer's tokens before the recursive parser sees it,
  // so an absurdly nested document is refused in linear time.
  const flowDepth = deepFlowNesting(text);
  if (flowDepth !== null) {
    const before = text.slice(0, flowDepth);
    return single(before.split('\n').length, flowDepth - before.lastIndexOf('\n'), `the YAML is nested deeper than ${MAX_DEPTH} levels; a policy needs far fewer`);
  }

  const lineCounter = new LineCounter();
  let documents;
  try {
    documents = parseAllDocuments(text, { lineCounter, version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false, merge: false });
  } catch (error) {
    return single(1, 1, `the YAML could not be parsed: ${(error as Error).message}`);
  }
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (!Array.isArray(documents) || documents.length === 0) return single(1, 1, 'the policy is empty; expected a YAML mapping with apiVersion, kind, metadata and spec');
  if (documents.length > 1) {
    const second = at(documents[1]!.range[0]);
    return single(second.line, second.column, `expected a single YAML document, found ${documents.length} (separated by "---"); put one policy per file`);
  }
  const doc = documents[0]!;
  const errors: PolicyError[] = [];
  for (const problem of [...doc.errors, ...doc.warnings]) {
    const { line, column } = at(problem.pos[0]);
    const raw = problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    const stack = /Maximum call stack/.test(raw);
    const message = stack
      ? `the YAML is nested too deeply; a policy nests at most ${MAX_DEPTH} levels`
      : `YAML ${problem.name === 'YAMLWarning' ? 'warning (treated as an error)' : 'syntax error'}: ${yamlProblemMessage(text, problem.code, raw, problem.pos[0])}`;
    errors.push({ path: '', line, column, message });
  }
  if (errors.length > 0) return { ok: false, errors };
  if (doc.directives?.yaml.explicit && doc.directives.yaml.version !== '1.2') {
    return single(1, 1, `this policy declares %YAML ${doc.directives.yaml.version}; policies are read as YAML 1.2 — remove the directive`);
  }

  // Structure limits on the node tree (aliases are not followed here): depth, well-formed strings.
  const structural = checkStructure(doc, at);
  if (structural) return { ok: false, errors: [structural] };

  let json: unknown;
  try {
    json = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    const message = (error as Error).message;
    const alias = firstAlias(doc);
    const where = alias ? at(alias) : { line: 1, column: 1 };
    if (/alias/i.test(message)) {
      return single(where.line, where.column, `YAML aliases expand this document too much (more than ${MAX_ALIAS_COUNT} alias expansions; a billion-laughs guard); write the values out or use fewer aliases`);
    }
    if (error instanceof RangeError) return single(where.line, where.column, `the YAML is nested too deeply; a policy nests at most ${MAX_DEPTH} levels`);
    return single(where.line, where.column, `the YAML could not be converted: ${message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    const start = at(doc.contents?.range[0] ?? 0);
    return single(start.line, start.column, `expected a YAML mapping with apiVersion, kind, metadata and spec at the top level, got ${describe(doc.contents)}`);
  }
  return { ok: true, doc, lineCounter, json: json as JsonObject };
}

/** The offset of the first flow collection opened deeper than MAX_DEPTH, or null. */
function deepFlowNesting(text: string): number | null {
  let offset = 0;
  let depth = 0;
  for (const token of new Lexer().lex(text)) {
    // The lexer's control tokens (document start, scalar marker, flow end) are not source text.
    if (token === '\x02' || token === '\x18' || token === '\x1f') continue;
    if (token === '[' || token === '{') {
      depth++;
      if (depth > MAX_DEPTH) return offset;
    } else if (token === ']' || token === '}') {
      depth = Math.max(0, depth - 1);
    }
    offset += token.length;
  }
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkStructure(doc: Document.Parsed, at: (offset: number) => { line: number; column: number }): PolicyError | null {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: doc.contents, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (isCollection(node)) {
      if (depth > MAX_DEPTH) {
        const { line, column } = at(node.range?.[0] ?? 0);
        return { path: '', line, column, message: `the YAML is nested deeper than ${MAX_DEPTH} levels; a policy needs far fewer` };
      }
      for (const item of node.items as unknown[]) {
        if (isPair(item)) {
          stack.push({ node: item.key, depth: depth + 1 });
          stack.push({ node: item.value, depth: depth + 1 });
        } else {
          stack.push({ node: item, depth: depth + 1 });
        }
      }
    } else if (isScalar(node) && typeof node.value === 'string' && LONE_SURROGATE.test(node.value)) {
      const { line, column } = at(node.range?.[0] ?? 0);
      return { path: '', line, column, message: 'this string contains an unpaired UTF-16 surrogate escape, which has no UTF-8 form and cannot be hashed canonically' };
    }
  }
  return null;
}

function firstAlias(doc: Document.Parsed): number | null {
  const stack: unknown[] = [doc.contents];
  let first: number | null = null;
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node)) {
      const offset = node.range?.[0] ?? 0;
      if (first === null || offset < first) first = offset;
    } else if (isCollection(node)) {
      for (const item of node.items as unknown[]) {
        if (isPair(item)) stack.push(item.key, item.value);
        else stack.push(item);
      }
    }
  }
  return first;
}

function sortErrors(errors: PolicyError[]): PolicyError[] {
  return [...errors].sort((a, b) => a.line - b.line || a.column - b.column);
}

// ---------------------------------------------------------------------------------------------
// Schema

function buildPolicy(reader: PolicyReader, doc: Document.Parsed, json: JsonObject, options: PolicyLoadOptions): AgentPolicy | null {
  const root = doc.contents;
  if (!isMap(root)) {
    reader.error('', root, `expected a YAML mapping with apiVersion, kind, metadata and spec at the top level, got ${describe(root)}`);
    return null;
  }
  // apiVersion first: it decides which keys exist (§9.3: unknown versions are rejected).
  const apiVersion = readApiVersion(reader, root);
  if (apiVersion === null) return null;

  const top = reader.map(root, '', root, TOP_KEYS);
  if (!top) return null;
  const kind = reader.required(top, 'kind', '', root, '"AgentPolicy"');
  if (kind) {
    const value = reader.string(kind, { what: '"AgentPolicy"' });
    if (value !== undefined && value !== 'AgentPolicy') reader.error(kind.path, kind.at, `unknown kind "${value}"; expected "AgentPolicy"`);
  }

  const metadataEntry = reader.required(top, 'metadata', '', root, 'a mapping with at least "name"');
  const specEntry = reader.required(top, 'spec', '', root, 'a mapping (it may be empty: spec: {})');
  const metadata = metadataEntry ? readMetadata(reader, metadataEntry) : null;
  const spec = specEntry ? readSpec(reader, specEntry, metadata?.name ?? null) : null;
  if (!metadata || !spec || reader.errors.length > 0) return null;

  if (spec.identity) spec.identity.raw = specSection(json, 'identity');
  if (spec.server) spec.server.raw = specSection(json, 'server');
  const sourcePath = options.sourcePath ?? null;
  return {
    apiVersion,
    name: metadata.name,
    version: metadata.version,
    owner: metadata.owner,
    signature: metadata.signature,
    ...spec,
    hash: policyHash(json),
    document: json,
    sourcePath,
  };
}

/**
 * The declared apiVersion; null when it names a version this loader does not know (a future
 * version may define other keys, so checking them against ours would only mislead). A missing
 * apiVersion is an error too, but the rest is still checked as the current version, so that
 * `silas policy validate` reports every error at once; the policy is refused either way.
 */
function readApiVersion(reader: PolicyReader, root: YAMLMap<unknown, unknown>): ApiVersion | null {
  const apiPair = root.items.find((pair) => isScalar(pair.key) && pair.key.value === 'apiVersion');
  if (!apiPair) {
    reader.error('apiVersion', root, `required key "apiVersion" is missing; expected ${API_VERSIONS.join(' or ')} (the rest was checked as ${API_VERSIONS[0]}); add "apiVersion: ${API_VERSIONS[0]}" as the first line`);
    reader.version = API_VERSIONS[0]!;
    return reader.version;
  }
  const apiNode = reader.resolve(apiPair.value);
  if (!isScalar(apiNode) || typeof apiNode.value !== 'string' || !(API_VERSIONS as readonly string[]).includes(apiNode.value)) {
    const got = isScalar(apiNode) && typeof apiNode.value === 'string' ? `"${apiNode.value}"` : describe(apiNode);
    reader.error('apiVersion', apiPair.value ?? apiPair.key, `unknown apiVersion ${got}; expected ${API_VERSIONS.join(' or ')} (§9.3: documents with an unknown apiVersion are rejected)`);
    return null;
  }
  reader.version = apiNode.value as ApiVersion;
  return reader.version;
}

interface Metadata {
  name: string;
  version: string | null;
  owner: string | null;
  signature: string | null;
}

function readMetadata(reader: PolicyReader, entry: Entry): Metadata | null {
  const fields = reader.map(entry.value, entry.path, entry.at, METADATA_KEYS);
  if (!fields) return null;
  let name: string | undefined;
  const nameEntry = reader.required(fields, 'name', entry.path, entry.at, 'the policy name, e.g. name: my-agent');
  if (nameEntry) {
    name = reader.string(nameEntry, { nonEmpty: true, maxLength: 253, what: 'a policy name' });
    if (name !== undefined) {
      if (CONTROL.test(name)) {
        reader.error(nameEntry.path, nameEntry.at, 'the policy name contains control or invisible characters');
        name = undefined;
      } else if (name !== name.trim()) {
        reader.error(nameEntry.path, nameEntry.at, 'the policy name has leading or trailing whitespace');
        name = undefined;
      } else if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name)) {
        reader.warn(nameEntry.path, nameEntry.at, `"${name}" is not a DNS-1123 name (lowercase letters, digits, "-" and "."); the upstream JSON schema requires one, so other AIP tools may refuse it`);
      }
    }
  }
  let version: string | null = null;
  const versionEntry = fields.get('version');
  if (versionEntry) {
    version = reader.string(versionEntry, { nonEmpty: true, maxLength: 64, what: 'a version string such as "1.0.0"' }) ?? null;
    if (version !== null && !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version)) {
      reader.warn(versionEntry.path, versionEntry.at, `"${version}" is not a semantic version (§3.3: e.g. "1.0.0")`);
    }
  }
  const ownerEntry = fields.get('owner');
  const owner = ownerEntry ? (reader.string(ownerEntry, { nonEmpty: true, maxLength: 254, what: 'a contact (e-mail address)' }) ?? null) : null;
  const signatureEntry = fields.get('signature');
  const signature = signatureEntry ? (reader.string(signatureEntry, { nonEmpty: true, maxLength: 1024, what: 'a signature "ed25519:<base64>"' }) ?? null) : null;
  if (name === undefined) return null;
  return { name, version, owner, signature };
}

type SpecPart = Pick<
  AgentPolicy,
  'mode' | 'allowedTools' | 'allowedMethods' | 'deniedMethods' | 'protectedPaths' | 'strictArgsDefault' | 'toolRules' | 'dlp' | 'identity' | 'server'
>;

function readSpec(reader: PolicyReader, entry: Entry, policyName: string | null): SpecPart | null {
  const fields = reader.map(entry.value, entry.path, entry.at, SPEC_KEYS, SPEC_SPECIAL);
  if (!fields) return null;

  let mode: PolicyMode = 'enforce';
  const modeEntry = fields.get('mode');
  if (modeEntry) {
    mode = reader.oneOf(modeEntry, ['enforce', 'monitor'] as const) ?? 'enforce';
    if (mode === 'monitor') reader.warn(modeEntry.path, modeEntry.at, 'monitor mode logs violations but lets every call through; do not use it in production (§10.4)');
  }

  const allowedTools = new Set<string>();
  const toolsEntry = fields.get('allowed_tools');
  if (toolsEntry) {
    for (const item of reader.stringList(toolsEntry, 'tool names', 'a tool name') ?? []) {
      const name = normalizedName(reader, item, 'tool name');
      if (name === null) continue;
      if (name === '*') reader.warn(item.path, item.at, '"*" is not a wildcard in allowed_tools (only allowed_methods has one); it allows only a tool literally named "*"');
      if (allowedTools.has(name)) reader.warn(item.path, item.at, `"${item.value}" repeats tool "${name}" (after normalisation, §4.1)`);
      allowedTools.add(name);
    }
  }

  let allowedMethods = new Set(DEFAULT_ALLOWED_METHODS);
  const methodsEntry = fields.get('allowed_methods');
  if (methodsEntry) {
    const items = reader.stringList(methodsEntry, 'JSON-RPC method names', 'a method name');
    if (items && items.length === 0 && isSeq(methodsEntry.value) && methodsEntry.value.items.length === 0) {
      reader.error(
        methodsEntry.path,
        methodsEntry.at,
        'an empty allowed_methods would deny every method, including initialize; remove the key to use the default safe list (§3.4.3), or list the methods to allow',
      );
    } else if (items) {
      allowedMethods = new Set();
      for (const item of items) {
        const name = normalizedName(reader, item, 'method name');
        if (name !== null) allowedMethods.add(name);
      }
    }
  }

  const deniedMethods = new Set<string>();
  const deniedEntry = fields.get('denied_methods');
  if (deniedEntry) {
    for (const item of reader.stringList(deniedEntry, 'JSON-RPC method names', 'a method name') ?? []) {
      const name = normalizedName(reader, item, 'method name');
      if (name !== null) deniedMethods.add(name);
    }
  }

  const protectedPaths: string[] = [];
  const pathsEntry = fields.get('protected_paths');
  if (pathsEntry) {
    for (const item of reader.stringList(pathsEntry, 'paths', 'a path') ?? []) {
      if (CONTROL.test(item.value)) reader.error(item.path, item.at, 'expected a path, got a string with control or invisible characters');
      else protectedPaths.push(item.value);
    }
  }

  let strictArgsDefault = false;
  const strictEntry = fields.get('strict_args_default');
  if (strictEntry) strictArgsDefault = reader.boolean(strictEntry) ?? false;

  const toolRules = new Map<string, ToolRule>();
  const rulesEntry = fields.get('tool_rules');
  if (rulesEntry) readToolRules(reader, rulesEntry, toolRules);

  const dlpEntry = fields.get('dlp');
  const dlp = dlpEntry ? readDlp(reader, dlpEntry) : null;

  const serverEntry = fields.get('server');
  const server = serverEntry ? readServer(reader, serverEntry) : null;

  const identityEntry = fields.get('identity');
  const identity = identityEntry ? readIdentity(reader, identityEntry, policyName, server) : null;

  return { mode, allowedTools, allowedMethods, deniedMethods, protectedPaths, strictArgsDefault, toolRules, dlp, identity, server };
}

/** A string for a message, with invisible and control characters shown as \u escapes. */
function visible(value: string): string {
  return `"${value.replace(/[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`)}"`;
}

function normalizedName(reader: PolicyReader, item: { value: string; at: unknown; path: string }, what: string): string | null {
  if (item.value.length > MAX_NAME_LENGTH) {
    reader.error(item.path, item.at, `expected a ${what} of at most ${MAX_NAME_LENGTH} characters, got ${item.value.length}`);
    return null;
  }
  const name = normalizeName(item.value);
  if (name === '') {
    reader.error(item.path, item.at, `expected a ${what}; ${visible(item.value)} is empty after normalisation (§4.1 removes invisible and control characters)`);
    return null;
  }
  return name;
}

// ---------------------------------------------------------------------------------------------
// Tool rules (§3.5)

function readToolRules(reader: PolicyReader, entry: Entry, rules: Map<string, ToolRule>): void {
  const items = reader.list(entry, 'tool rules');
  if (!items) return;
  const firstAt = new Map<string, { line: number; raw: string }>();
  for (const item of items) {
    const fields = reader.map(item.value, item.path, item.at, TOOL_RULE_KEYS, TOOL_RULE_SPECIAL);
    if (!fields) continue;
    const toolEntry = reader.required(fields, 'tool', item.path, item.at, 'the tool name this rule applies to');
    let tool: string | null = null;
    let rawTool = '';
    if (toolEntry) {
      const value = reader.string(toolEntry, { nonEmpty: true, what: 'a tool name' });
      if (value !== undefined) {
        rawTool = value;
        tool = normalizedName(reader, { value, at: toolEntry.at, path: toolEntry.path }, 'tool name');
      }
    }
    if (tool !== null) {
      const previous = firstAt.get(tool);
      const here = reader.position(toolEntry!.at);
      if (previous) {
        const same = previous.raw === rawTool ? '' : ` ("${previous.raw}" and "${rawTool}" are the same name after normalisation, §4.1)`;
        reader.error(toolEntry!.path, toolEntry!.at, `duplicate rule for tool "${tool}": the first rule is at line ${previous.line}, this one at line ${here.line}${same}; merge them into one rule`);
      } else {
        firstAt.set(tool, { line: here.line, raw: rawTool });
      }
    }

    let action: ToolAction = 'allow';
    const actionEntry = fields.get('action');
    if (actionEntry) action = reader.oneOf(actionEntry, ['allow', 'block', 'ask'] as const) ?? 'allow';

    let rateLimit: RateLimit | null = null;
    const rateEntry = fields.get('rate_limit');
    if (rateEntry) {
      const source = reader.string(rateEntry, { what: 'a rate limit such as "10/minute"' });
      if (source !== undefined) {
        const rate = parseRate(source);
        if (rate.ok) rateLimit = { count: rate.value.count, periodMs: rate.value.periodMs, source };
        else reader.error(rateEntry.path, rateEntry.at, rate.message);
      }
    }

    let strictArgs: boolean | null = null;
    const strictEntry = fields.get('strict_args');
    if (strictEntry) strictArgs = reader.boolean(strictEntry) ?? null;

    let schemaHash: SchemaHash | null = null;
    const hashEntry = fields.get('schema_hash');
    if (hashEntry) {
      const source = reader.string(hashEntry, { what: 'a schema hash "sha256:<hex>"' });
      if (source !== undefined) {
        const parsed = parseSchemaHash(source);
        if (typeof parsed === 'string') reader.error(hashEntry.path, hashEntry.at, parsed);
        else schemaHash = parsed;
      }
    }

    const allowArgs: ArgumentRule[] = [];
    const argsEntry = fields.get('allow_args');
    if (argsEntry) {
      for (const arg of openMap(reader, argsEntry, 'argument names mapped to regular expressions')) {
        if (arg.key.trim() === '') {
          reader.error(arg.path, arg.keyNode, 'expected an argument name, got an empty key');
          continue;
        }
        const pattern = reader.string(arg, { what: `a regular expression (RE2 syntax) for argument "${arg.key}"` });
        if (pattern === undefined) continue;
        const regex = compileRegex(reader, arg, pattern, `argument "${arg.key}"`);
        if (regex) allowArgs.push({ name: arg.key, pattern, regex });
      }
    }

    if (action === 'block' && tool !== null) {
      const inert = ['rate_limit', 'strict_args', 'schema_hash', 'allow_args'].filter((key) => fields.has(key));
      if (inert.length > 0) reader.warn(item.path, item.at, `tool "${tool}" is blocked unconditionally, so ${inert.join(', ')} ${inert.length === 1 ? 'has' : 'have'} no effect`);
    }
    if (tool !== null && !rules.has(tool)) rules.set(tool, { tool, rawTool, action, rateLimit, strictArgs, schemaHash, allowArgs });
  }
}

/** A mapping whose keys are free (allow_args): string keys only, duplicates already refused by the parser. */
function openMap(reader: PolicyReader, entry: Entry, what: string): Array<Entry> {
  const node = entry.value;
  if (!isMap(node)) {
    reader.error(entry.path, entry.at, `expected a mapping of ${what}, got ${describe(node)}`);
    return [];
  }
  const out: Entry[] = [];
  for (const pair of node.items) {
    const keyNode = reader.resolve(pair.key);
    if (!isScalar(keyNode) || typeof keyNode.value !== 'string') {
      reader.error(entry.path, pair.key ?? node, `expected a string key, got ${describe(keyNode)}${isScalar(keyNode) && keyNode.value !== null ? ' (quote it)' : ''}`);
      continue;
    }
    out.push({ key: keyNode.value, keyNode, value: reader.resolve(pair.value), at: pair.value ?? keyNode, path: childPath(entry.path, keyNode.value) });
  }
  return out;
}

function compileRegex(reader: PolicyReader, entry: Pick<Entry, 'path' | 'at'>, pattern: string, what: string): RE2 | null {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    reader.error(entry.path, entry.at, `the regular expression for ${what} is ${pattern.length} characters long; the maximum is ${MAX_PATTERN_LENGTH}`);
    return null;
  }
  try {
    return new RE2(pattern, 'u');
  } catch (error) {
    reader.error(
      entry.path,
      entry.at,
      `invalid regular expression for ${what}: ${(error as Error).message}; expected RE2 syntax (linear-time, §3.5.3/§10.2: no lookaround such as (?=…), no backreferences such as \\1)`,
    );
    return null;
  }
}

const HASH_LENGTHS = { sha256: 64, sha384: 96, sha512: 128 } as const;

/** `<sha256|sha384|sha512>:<hex>` (§3.5.4); the message on failure. */
export function parseSchemaHash(source: string): SchemaHash | string {
  const match = /^([A-Za-z0-9-]+):(.*)$/s.exec(source);
  const expected = 'expected "<algorithm>:<hex digest>" with algorithm sha256, sha384 or sha512, e.g. "sha256:" followed by 64 hex characters';
  if (!match) return `"${source}" is not a schema hash; ${expected}`;
  const algorithm = match[1]!;
  const hex = match[2]!;
  if (!Object.hasOwn(HASH_LENGTHS, algorithm)) return `unsupported schema hash algorithm "${algorithm}"; ${expected}`;
  const length = HASH_LENGTHS[algorithm as keyof typeof HASH_LENGTHS];
  if (!/^[0-9a-fA-F]*$/.test(hex)) return `the ${algorithm} digest must be hexadecimal (0-9, a-f); ${expected}`;
  if (hex.length !== length) return `a ${algorithm} digest has ${length} hex characters, got ${hex.length}`;
  return { algorithm: algorithm as SchemaHash['algorithm'], hex: hex.toLowerCase(), source };
}

// ---------------------------------------------------------------------------------------------
// DLP (§3.6)

function readDlp(reader: PolicyReader, entry: Entry): DlpConfig | null {
  const fields = reader.map(entry.value, entry.path, entry.at, DLP_KEYS);
  if (!fields) return null;
  const flag = (key: string, fallback: boolean): boolean => {
    const field = fields.get(key);
    return field ? (reader.boolean(field) ?? fallback) : fallback;
  };
  const enabled = flag('enabled', true);
  const scanRequests = flag('scan_requests', false);
  const scanResponses = flag('scan_responses', true);
  const detectEncoding = flag('detect_encoding', false);
  const filterStderr = flag('filter_stderr', false);
  const logOriginalOnFailure = flag('log_original_on_failure', false);

  let maxScanSize = DEFAULT_SCAN_SIZE;
  const sizeEntry = fields.get('max_scan_size');
  if (sizeEntry) {
    const source = reader.string(sizeEntry, { what: 'a size such as "1MB"' });
    if (source !== undefined) {
      const size = parseSize(source);
      if (size.ok) maxScanSize = size.value;
      else reader.error(sizeEntry.path, sizeEntry.at, size.message);
    }
  }
  const matchEntry = fields.get('on_request_match');
  const onRequestMatch = matchEntry ? (reader.oneOf(matchEntry, ['block', 'redact', 'warn'] as const) ?? 'block') : 'block';
  const failureEntry = fields.get('on_redaction_failure');
  const onRedactionFailure = failureEntry ? (reader.oneOf(failureEntry, ['block', 'allow_original', 'reject'] as const) ?? 'block') : 'block';

  const patterns: DlpPattern[] = [];
  const patternsEntry = reader.required(fields, 'patterns', entry.path, entry.at, 'a list of patterns, each with name and regex (Appendix A: required when dlp is present)');
  const items = patternsEntry ? reader.list(patternsEntry, 'patterns (name, regex, scope)') : undefined;
  if (patternsEntry && items && items.length === 0 && enabled) {
    reader.error(patternsEntry.path, patternsEntry.at, 'DLP is enabled but has no patterns; add at least one pattern, or set enabled: false');
  }
  const names = new Map<string, number>();
  for (const item of items ?? []) {
    const pattern = readDlpPattern(reader, item);
    if (!pattern) continue;
    const line = reader.position(item.at).line;
    const first = names.get(pattern.name);
    if (first !== undefined) reader.warn(item.path, item.at, `another pattern named "${pattern.name}" is at line ${first}; redaction markers and DLP events will not tell them apart`);
    else names.set(pattern.name, line);
    if (enabled && pattern.scope === 'request' && !scanRequests) reader.warn(item.path, item.at, `pattern "${pattern.name}" only applies to requests, but scan_requests is false, so it never runs`);
    if (enabled && pattern.scope === 'response' && !scanResponses) reader.warn(item.path, item.at, `pattern "${pattern.name}" only applies to responses, but scan_responses is false, so it never runs`);
    patterns.push(pattern);
  }

  if (enabled) {
    if (matchEntry && !scanRequests) reader.warn(matchEntry.path, matchEntry.at, 'on_request_match has no effect while scan_requests is false');
    if (failureEntry && onRequestMatch !== 'redact') reader.warn(failureEntry.path, failureEntry.at, 'on_redaction_failure only applies when on_request_match is "redact"');
    if (onRedactionFailure === 'allow_original') reader.warn(failureEntry!.path, failureEntry!.at, 'allow_original forwards the unredacted request when redaction fails; use it for debugging only (§3.6.4)');
    const logEntry = fields.get('log_original_on_failure');
    if (logOriginalOnFailure && logEntry) reader.warn(logEntry.path, logEntry.at, 'log_original_on_failure writes the sensitive data DLP tried to redact into the log; enable it only for time-limited forensics (§3.6.4)');
    if (!scanRequests && !scanResponses) reader.warn(entry.path, entry.at, 'DLP is enabled but scans neither requests nor responses');
  }
  return { enabled, scanRequests, scanResponses, detectEncoding, filterStderr, maxScanSize, onRequestMatch, onRedactionFailure, logOriginalOnFailure, patterns };
}

function readDlpPattern(reader: PolicyReader, item: { value: unknown; at: unknown; path: string }): DlpPattern | null {
  const fields = reader.map(item.value, item.path, item.at, DLP_PATTERN_KEYS);
  if (!fields) return null;
  const nameEntry = reader.required(fields, 'name', item.path, item.at, 'the rule name used in [REDACTED:<name>]');
  let name: string | undefined;
  if (nameEntry) {
    name = reader.string(nameEntry, { nonEmpty: true, maxLength: 64, what: 'a pattern name' });
    if (name !== undefined && CONTROL.test(name)) {
      reader.error(nameEntry.path, nameEntry.at, 'the pattern name contains control or invisible characters');
      name = undefined;
    }
  }
  const regexEntry = reader.required(fields, 'regex', item.path, item.at, 'the detection pattern (RE2 syntax)');
  let regex: RE2 | null = null;
  let source: string | undefined;
  if (regexEntry) {
    source = reader.string(regexEntry, { nonEmpty: true, what: 'a regular expression (RE2 syntax)' });
    if (source !== undefined) regex = compileRegex(reader, regexEntry, source, `DLP pattern${name ? ` "${name}"` : ''}`);
    // A pattern that matches the empty string redacts nothing yet runs at every position of every response.
    if (regex && regex.test('')) {
      reader.error(regexEntry.path, regexEntry.at, `DLP pattern${name ? ` "${name}"` : ''} matches the empty string, so it can never redact anything; make it require at least one character (e.g. "x+" instead of "x*")`);
      regex = null;
    }
  }
  let scope: DlpScope = 'all';
  const scopeEntry = fields.get('scope');
  if (scopeEntry) scope = reader.oneOf(scopeEntry, ['request', 'response', 'all'] as const) ?? 'all';
  if (name === undefined || source === undefined || !regex) return null;
  return { name, pattern: source, regex, scope };
}

// ---------------------------------------------------------------------------------------------
// Identity (§3.7, §5.8)

function duration(reader: PolicyReader, entry: Entry, min: number, what: string): number | undefined {
  const source = reader.string(entry, { what: `a duration such as "5m" (${what})` });
  if (source === undefined) return undefined;
  const parsed = parseDuration(source);
  if (!parsed.ok) {
    reader.error(entry.path, entry.at, parsed.message);
    return undefined;
  }
  if (parsed.value < min) {
    reader.error(entry.path, entry.at, `${what} must be greater than zero, got "${source}"`);
    return undefined;
  }
  return parsed.value;
}

function sourceOf(entry: Entry | undefined, ms: number): string {
  const node = entry?.value;
  return isScalar(node) && typeof node.value === 'string' ? node.value : formatDuration(ms);
}

function isUri(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && URL.canParse(value);
}

function readIdentity(reader: PolicyReader, entry: Entry, policyName: string | null, server: ServerConfig | null): IdentityConfig | null {
  const fields = reader.map(entry.value, entry.path, entry.at, IDENTITY_KEYS);
  if (!fields) return null;
  const flag = (key: string): boolean => {
    const field = fields.get(key);
    return field ? (reader.boolean(field) ?? false) : false;
  };
  const enabled = flag('enabled');
  const requireToken = flag('require_token');

  const ttlEntry = fields.get('token_ttl');
  const tokenTtlMs = (ttlEntry && duration(reader, ttlEntry, 1, 'token_ttl')) || DEFAULT_TOKEN_TTL_MS;
  const ttlText = sourceOf(ttlEntry, tokenTtlMs);
  if (ttlEntry && tokenTtlMs > 15 * 60_000) reader.warn(ttlEntry.path, ttlEntry.at, `token_ttl ${ttlText} is long; short TTLs (5-15 minutes) limit the window for a stolen token (§3.7.2)`);

  const rotationEntry = fields.get('rotation_interval');
  let rotationIntervalMs: number;
  if (rotationEntry) {
    rotationIntervalMs = duration(reader, rotationEntry, 0, 'rotation_interval') ?? DEFAULT_ROTATION_MS;
    const rotationText = sourceOf(rotationEntry, rotationIntervalMs);
    if (rotationIntervalMs > 0 && rotationIntervalMs >= tokenTtlMs) {
      reader.error(rotationEntry.path, rotationEntry.at, `rotation_interval (${rotationText}) must be less than token_ttl (${ttlText}) (§3.7.3); use "0s" to disable rotation`);
    } else if (rotationIntervalMs > tokenTtlMs * 0.9) {
      reader.warn(rotationEntry.path, rotationEntry.at, `rotation_interval (${rotationText}) is very close to token_ttl (${ttlText}); consider reducing it to leave a grace period for in-flight requests (§3.7.3)`);
    } else if (rotationIntervalMs === 0) {
      reader.warn(rotationEntry.path, rotationEntry.at, 'rotation_interval "0s" disables automatic token rotation; not recommended for production (§3.7.3)');
    }
  } else {
    // The spec's default "4m" belongs with the default token_ttl "5m". With a shorter explicit
    // token_ttl it would violate the MUST of §3.7.3, so the default keeps the same 4:5 ratio.
    rotationIntervalMs = tokenTtlMs > DEFAULT_ROTATION_MS ? DEFAULT_ROTATION_MS : Math.floor((tokenTtlMs * 4) / 5);
  }

  const nonceEntry = fields.get('nonce_window');
  let nonceWindowMs = tokenTtlMs;
  if (nonceEntry) {
    const value = duration(reader, nonceEntry, 1, 'nonce_window');
    if (value !== undefined) {
      nonceWindowMs = value;
      if (value < tokenTtlMs) {
        reader.error(nonceEntry.path, nonceEntry.at, `nonce_window (${sourceOf(nonceEntry, value)}) must be greater than or equal to token_ttl (${ttlText}) (§3.7.6), or a replayed token could outlive its nonce record`);
      }
    }
  }

  const graceEntry = fields.get('policy_transition_grace');
  let policyTransitionGraceMs = 0;
  if (graceEntry) {
    policyTransitionGraceMs = duration(reader, graceEntry, 0, 'policy_transition_grace') ?? 0;
    if (policyTransitionGraceMs >= tokenTtlMs) {
      reader.warn(graceEntry.path, graceEntry.at, `policy_transition_grace (${sourceOf(graceEntry, policyTransitionGraceMs)}) should be less than token_ttl (${ttlText}) so that a policy change takes effect within one token lifetime (§3.7.7)`);
    }
  }

  const bindingEntry = fields.get('session_binding');
  const sessionBinding = bindingEntry ? (reader.oneOf(bindingEntry, ['process', 'policy', 'strict'] as const) ?? 'process') : 'process';

  let audience = policyName;
  const audienceEntry = fields.get('audience');
  if (audienceEntry) {
    const value = reader.string(audienceEntry, { what: 'a URI or the policy name (metadata.name)', maxLength: 2048 });
    if (value !== undefined) {
      if (value === '') reader.error(audienceEntry.path, audienceEntry.at, 'an empty audience is not valid (§3.7.8); remove the key to default to metadata.name');
      else if (value.includes('*')) reader.error(audienceEntry.path, audienceEntry.at, `wildcards are not permitted in audience values (§3.7.8), got "${value}"`);
      else if (value !== policyName && !isUri(value)) {
        reader.error(audienceEntry.path, audienceEntry.at, `expected a URI such as "https://mcp.example.com/api" or the policy name "${policyName ?? ''}" (§3.7.8), got "${value}"`);
      } else {
        audience = value;
        if (server?.enabled && !/^https?:\/\//.test(value)) {
          reader.warn(audienceEntry.path, audienceEntry.at, "with server.enabled, the audience should be the server's canonical URL (§3.7.8)");
        }
      }
    }
  }
  if (requireToken && !enabled) {
    const requireEntry = fields.get('require_token')!;
    reader.warn(requireEntry.path, requireEntry.at, 'require_token is true but identity.enabled is false, so no tokens are issued and every tool call will be rejected with -32008');
  }

  const storageEntry = fields.get('nonce_storage');
  if (storageEntry) readNonceStorage(reader, storageEntry);
  const keysEntry = fields.get('keys');
  if (keysEntry) readKeys(reader, keysEntry, server);

  return {
    enabled,
    tokenTtlMs,
    rotationIntervalMs,
    requireToken,
    sessionBinding,
    nonceWindowMs,
    policyTransitionGraceMs,
    audience,
    raw: {},
  };
}

function readNonceStorage(reader: PolicyReader, entry: Entry): void {
  const fields = reader.map(entry.value, entry.path, entry.at, NONCE_STORAGE_KEYS);
  if (!fields) return;
  const typeEntry = fields.get('type');
  const type = typeEntry ? (reader.oneOf(typeEntry, ['memory', 'redis', 'postgres'] as const) ?? 'memory') : 'memory';
  const addressEntry = fields.get('address');
  if (type !== 'memory' && typeEntry && !addressEntry) {
    reader.error(childPath(entry.path, 'address'), entry.at, `required key "address" is missing; nonce_storage type "${type}" needs a connection string (§3.7.9)`);
  }
  if (addressEntry) {
    const address = reader.string(addressEntry, { nonEmpty: true, maxLength: 2048, what: 'a connection string' });
    if (address !== undefined) {
      const schemes = type === 'redis' ? ['redis:', 'rediss:'] : type === 'postgres' ? ['postgres:', 'postgresql:'] : null;
      if (schemes && !(URL.canParse(address) && schemes.includes(new URL(address).protocol))) {
        reader.error(addressEntry.path, addressEntry.at, `expected a ${type} connection URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}, got "${address}"`);
      }
      if (type === 'memory') reader.warn(addressEntry.path, addressEntry.at, 'address is ignored for nonce_storage type "memory"');
    }
  }
  const prefixEntry = fields.get('key_prefix');
  if (prefixEntry) reader.string(prefixEntry, { nonEmpty: true, maxLength: 256, what: 'a key prefix' });
  const skewEntry = fields.get('clock_skew_tolerance');
  if (skewEntry) duration(reader, skewEntry, 0, 'clock_skew_tolerance');
}

function readKeys(reader: PolicyReader, entry: Entry, server: ServerConfig | null): void {
  const fields = reader.map(entry.value, entry.path, entry.at, KEYS_KEYS);
  if (!fields) return;
  const algorithmEntry = fields.get('signing_algorithm');
  if (algorithmEntry) {
    const algorithm = reader.oneOf(algorithmEntry, ['ES256', 'ES384', 'EdDSA', 'RS256', 'HS256'] as const);
    if (algorithm === 'HS256' && server?.enabled) {
      reader.error(algorithmEntry.path, algorithmEntry.at, 'HS256 uses a shared secret and MUST NOT be used when server.enabled is true (§5.3.1, §5.8.2); use ES256 or EdDSA');
    }
  }
  const sourceEntry = fields.get('key_source');
  const source = sourceEntry ? (reader.oneOf(sourceEntry, ['generate', 'file', 'external'] as const) ?? 'generate') : 'generate';
  const pathEntry = fields.get('key_path');
  if (pathEntry) reader.string(pathEntry, { nonEmpty: true, maxLength: 4096, what: 'a path to a PEM key file' });
  if (source === 'file' && !pathEntry) reader.error(childPath(entry.path, 'key_path'), entry.at, 'required key "key_path" is missing; key_source "file" needs the path of a PEM key file (§5.8.1)');
  if (source !== 'file' && pathEntry) reader.warn(pathEntry.path, pathEntry.at, `key_path is ignored unless key_source is "file"`);
  const rotationEntry = fields.get('rotation_period');
  if (rotationEntry) duration(reader, rotationEntry, 1, 'rotation_period');
  const graceEntry = fields.get('grace_period');
  if (graceEntry) duration(reader, graceEntry, 0, 'grace_period');
  const jwksEntry = fields.get('jwks_endpoint');
  if (jwksEntry) endpointPath(reader, jwksEntry);
  const externalEntry = fields.get('external');
  if (externalEntry) {
    const external = reader.map(externalEntry.value, externalEntry.path, externalEntry.at, EXTERNAL_KEY_KEYS);
    if (external) for (const field of external.values()) reader.string(field, { nonEmpty: true, maxLength: 2048 });
    if (source !== 'external') reader.error(externalEntry.path, externalEntry.at, 'external is only used with key_source: "external"');
  } else if (source === 'external') {
    reader.error(childPath(entry.path, 'external'), entry.at, 'required key "external" is missing; key_source "external" needs the key service (type, address, key_name) (§5.8.3)');
  }
}

// ---------------------------------------------------------------------------------------------
// Server (§3.8)

/** Parses `<host>:<port>`, `:<port>` or `[<ipv6>]:<port>`; the message on failure. */
export function parseListen(listen: string): { host: string; port: number } | string {
  const expected = 'expected "<host>:<port>" or ":<port>", e.g. "127.0.0.1:9443" (IPv6 in brackets: "[::1]:9443")';
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.*-]*)):(\d{1,5})$/.exec(listen);
  if (!match) {
    if (/^[0-9A-Fa-f:]+$/.test(listen) && listen.split(':').length > 2) return `"${listen}" looks like an IPv6 address without brackets; ${expected}`;
    return `"${listen}" is not a listen address; ${expected}`;
  }
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return `port ${match[3]} is out of range; expected 1 to 65535`;
  return { host: match[1] ?? match[2] ?? '', port };
}

/** Loopback per §3.8.5 (127.0.0.1, ::1) plus the name localhost. An empty host binds every interface. */
export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host.toLowerCase() === 'localhost';
}

function endpointPath(reader: PolicyReader, entry: Entry): string | undefined {
  const value = reader.string(entry, { nonEmpty: true, maxLength: 256, what: 'an endpoint path such as "/v1/validate"' });
  if (value !== undefined && !/^\/[A-Za-z0-9/_.~-]*$/.test(value)) {
    reader.error(entry.path, entry.at, `expected an endpoint path starting with "/" (letters, digits, "/", "_", ".", "~", "-"), got "${value}"`);
    return undefined;
  }
  return value;
}

function readServer(reader: PolicyReader, entry: Entry): ServerConfig | null {
  const fields = reader.map(entry.value, entry.path, entry.at, SERVER_KEYS);
  if (!fields) return null;
  const enabledEntry = fields.get('enabled');
  const enabled = enabledEntry ? (reader.boolean(enabledEntry) ?? false) : false;

  let listen = '127.0.0.1:9443';
  let host = '127.0.0.1';
  const listenEntry = fields.get('listen');
  if (listenEntry) {
    const value = reader.string(listenEntry, { nonEmpty: true, maxLength: 300, what: 'a listen address such as "127.0.0.1:9443"' });
    if (value !== undefined) {
      const parsed = parseListen(value);
      if (typeof parsed === 'string') reader.error(listenEntry.path, listenEntry.at, parsed);
      else {
        listen = value;
        host = parsed.host;
      }
    }
  }

  const failoverEntry = fields.get('failover_mode');
  const failoverMode = failoverEntry ? (reader.oneOf(failoverEntry, ['fail_closed', 'fail_open', 'local_policy'] as const) ?? 'fail_closed') : 'fail_closed';
  const timeoutEntry = fields.get('timeout');
  const timeoutMs = (timeoutEntry && duration(reader, timeoutEntry, 1, 'timeout')) || 5_000;

  let tls: { cert: string; key: string } | null = null;
  const tlsEntry = fields.get('tls');
  if (tlsEntry) {
    const tlsFields = reader.map(tlsEntry.value, tlsEntry.path, tlsEntry.at, TLS_KEYS);
    if (tlsFields) {
      const certEntry = reader.required(tlsFields, 'cert', tlsEntry.path, tlsEntry.at, 'the path of a PEM certificate');
      const keyEntry = reader.required(tlsFields, 'key', tlsEntry.path, tlsEntry.at, 'the path of a PEM private key');
      const cert = certEntry ? reader.string(certEntry, { nonEmpty: true, maxLength: 4096, what: 'a certificate path' }) : undefined;
      const key = keyEntry ? reader.string(keyEntry, { nonEmpty: true, maxLength: 4096, what: 'a private key path' }) : undefined;
      const caEntry = tlsFields.get('client_ca');
      if (caEntry) reader.string(caEntry, { nonEmpty: true, maxLength: 4096, what: 'a CA certificate path' });
      const requireEntry = tlsFields.get('require_client_cert');
      const requireClientCert = requireEntry ? reader.boolean(requireEntry) : false;
      if (requireClientCert && !caEntry) reader.error(requireEntry!.path, requireEntry!.at, 'require_client_cert needs client_ca, the CA that signs client certificates');
      if (cert !== undefined && key !== undefined) tls = { cert, key };
    }
  }
  if (enabled && listenEntry && !isLoopbackHost(host) && !tlsEntry) {
    const shown = host === '' || host === '*' ? 'every interface' : host;
    reader.error(listenEntry.path, listenEntry.at, `server.listen "${listen}" binds ${shown}, not loopback; TLS MUST be configured for it (§3.8.2, §3.8.5): add server.tls with cert and key, or listen on 127.0.0.1`);
  }

  const constraintsEntry = fields.get('fail_open_constraints');
  if (constraintsEntry) readFailOpenConstraints(reader, constraintsEntry);
  if (failoverMode === 'fail_open' && !constraintsEntry) {
    reader.warn(failoverEntry!.path, failoverEntry!.at, 'failover_mode "fail_open" allows every request when validation is unavailable; add fail_open_constraints to limit the exposure (§3.8.3)');
  }
  if (failoverMode !== 'fail_open' && constraintsEntry) {
    reader.warn(constraintsEntry.path, constraintsEntry.at, `fail_open_constraints has no effect with failover_mode "${failoverMode}"`);
  }

  const endpointsEntry = fields.get('endpoints');
  if (endpointsEntry) {
    const endpoints = reader.map(endpointsEntry.value, endpointsEntry.path, endpointsEntry.at, ENDPOINT_KEYS);
    const seen = new Map<string, string>();
    for (const field of endpoints?.values() ?? []) {
      const path = endpointPath(reader, field);
      if (path === undefined) continue;
      const other = seen.get(path);
      if (other) reader.error(field.path, field.at, `endpoint path "${path}" is already used by endpoints.${other}; each endpoint needs its own path`);
      else seen.set(path, field.key);
    }
  }
  return { enabled, listen, failoverMode, timeoutMs, tls, raw: {} };
}

function readFailOpenConstraints(reader: PolicyReader, entry: Entry): void {
  const fields = reader.map(entry.value, entry.path, entry.at, FAIL_OPEN_KEYS);
  if (!fields) return;
  const toolsEntry = fields.get('allowed_tools');
  if (toolsEntry) for (const item of reader.stringList(toolsEntry, 'tool names', 'a tool name') ?? []) normalizedName(reader, item, 'tool name');
  const durationEntry = fields.get('max_duration');
  if (durationEntry) duration(reader, durationEntry, 1, 'max_duration');
  const requestsEntry = fields.get('max_requests');
  if (requestsEntry) reader.integer(requestsEntry, 1, 1_000_000_000);
  const webhookEntry = fields.get('alert_webhook');
  if (webhookEntry) {
    const url = reader.string(webhookEntry, { nonEmpty: true, maxLength: 2048, what: 'an http(s) URL' });
    if (url !== undefined && !(URL.canParse(url) && ['http:', 'https:'].includes(new URL(url).protocol))) {
      reader.error(webhookEntry.path, webhookEntry.at, `expected an http(s) URL, got "${url}"`);
    }
  }
  const localEntry = fields.get('require_local_policy');
  if (localEntry) reader.boolean(localEntry);
}

/** `spec.<key>` of the parsed document (aliases expanded), for the sections kept as `raw`. */
function specSection(json: JsonObject, key: string): JsonObject {
  const spec = json.spec;
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) return {};
  const section = (spec as JsonObject)[key];
  return typeof section === 'object' && section !== null && !Array.isArray(section) ? (section as JsonObject) : {};
}

// ---------------------------------------------------------------------------------------------
// Signature (§3.3.1)

function checkSignature(reader: PolicyReader, doc: Document.Parsed, policy: AgentPolicy, options: PolicyLoadOptions): string | null {
  const metadataNode = doc.get('metadata', true);
  const signatureNode = isMap(metadataNode) ? (metadataNode.get('signature', true) ?? metadataNode) : (metadataNode ?? doc.contents);
  const fail = (reason: string): null => {
    reader.error('metadata.signature', signatureNode, `Policy signature invalid: ${reason}`, POLICY_SIGNATURE_INVALID);
    return null;
  };
  const signature = policy.signature;
  if (signature === null) {
    if (options.requireSignature) return fail('the policy is not signed, and a signed policy is required; sign it with `silas policy sign`');
    return null;
  }
  const match = /^([A-Za-z0-9-]+):(.*)$/s.exec(signature);
  if (!match) return fail(`expected "ed25519:<base64 signature>", got "${signature.length > 40 ? `${signature.slice(0, 40)}…` : signature}"`);
  if (match[1] !== 'ed25519') return fail(`unsupported signature algorithm "${match[1]}"; only ed25519 is supported (§3.3.1)`);
  const encoded = match[2]!;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return fail('the signature is not standard base64');
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length !== 64 || bytes.toString('base64') !== encoded) return fail(`an Ed25519 signature has 64 bytes, this one decodes to ${bytes.length}`);
  const keys = options.trustedKeys ?? new Map<string, Uint8Array>();
  if (keys.size === 0) return fail('no trusted public key was given to verify it, so it cannot be checked');
  const message = policyCanonicalBytes(policy.document);
  for (const [fingerprint, key] of keys) {
    if (verifyEd25519(key, message, bytes)) return fingerprint;
  }
  return fail(`it does not verify against any trusted key (${[...keys.keys()].join(', ')}); the policy was changed after signing, or signed by another key`);
}
