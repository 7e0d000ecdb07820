import { readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import RE2 from 're2';
import { Lexer, LineCounter, isAlias, isCollection, isPair, isScalar, parseAllDocuments, type Document } from 'yaml';
import { identityTimes } from '../../../src-shared/policy/schema-identity.js';
import { DEFAULT_SERVER_TIMEOUT_MS } from '../../../src-shared/policy/schema-server.js';
import { SANDBOX_KEY } from '../../../src-shared/policy/schema-sandbox.js';
import { DEFAULT_TOOLS_LIST, TOOLS_LIST_KEY } from '../../../src-shared/policy/schema-tools-list.js';
import { THREATS_KEY } from '../../../src-shared/policy/schema-threats.js';
import { compileThreats } from './threats.js';
import { parseHostPattern } from './host-patterns.js';
import type { AgentPolicyDocument, ApiVersion, DlpDocument, ToolRuleDocument } from '../../../src-shared/policy/schema.js';
import { PolicySource, byPosition, describeNode, type PolicyError, type PolicyWarning } from '../../../src-shared/policy/source.js';
import { validatePolicyDocument } from '../../../src-shared/policy/validate.js';
import type { YamlPath } from '../../../src-shared/yaml/positions.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { verifyEd25519 } from '../../keys/ed25519.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { policyCanonicalBytes, policyHash } from './policy-hash.js';
import type { AgentPolicy, ArgumentRule, DlpConfig, DlpPattern, ToolRule } from './types.js';

export type { PolicyError } from '../../../src-shared/policy/source.js';
export { DEFAULT_ALLOWED_METHODS } from '../../../src-shared/policy/schema.js';
export { parseListen } from '../../../src-shared/policy/formats.js';

/*
 * Loads an AgentPolicy (spec 001 §3, Appendix A) from YAML: parse (YAML 1.2, core schema) with
 * guards against oversized, alias-bombed and over-nested input; validate against the shared
 * schema (src-shared/policy/), which reports every error with its YAML path, line and column;
 * then, on the accepted document, what needs this process: §4.1 name normalisation (shared
 * with the runtime's call path), RE2 compilation of every regex, the §5.2 hash and the §3.3.1
 * signature. Errors of that second step therefore show once the schema's are fixed. A policy
 * is returned only when all of it succeeded; otherwise every error found and nothing else.
 */

export type PolicyLoadResult =
  | {
      ok: true;
      policy: AgentPolicy;
      /** SHOULD-level findings, each as "LINE:COL path: message". */
      warnings: string[];
      /** The same findings with their position, for an editor to underline. */
      warningsAt: PolicyWarning[];
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
  /**
   * A draft in the editor: `metadata.signature` is not checked (any edit breaks it, and saving
   * signs the text anew). Never for a policy that will be enforced.
   */
  draft?: boolean;
}

/**
 * The largest policy accepted: 256 KiB of UTF-8, drafts and files alike. A real policy is a few
 * KiB; the cap bounds what one parse costs wherever a policy is read (docs/policy-editor.md, Limits).
 */
export const MAX_POLICY_BYTES = 256 * 1024;

/** Why a policy of `size` bytes is refused: the size, the cap and the fix. */
export function policyTooLargeMessage(size: number, what = 'the policy'): string {
  return `${what} is ${size} bytes; the cap is ${MAX_POLICY_BYTES} bytes (256 KiB): a policy needs far less, so remove what it does not use (long pattern lists, pasted data) and keep large lists out of the policy`;
}
/** YAML alias expansion budget (the `yaml` package's maxAliasCount): a billion-laughs guard. */
const MAX_ALIAS_COUNT = 100;
/** The deepest nesting of mappings and lists accepted; a policy needs far fewer. */
const MAX_DEPTH = 32;
/** -32010, §7: Policy Signature Invalid. */
export const POLICY_SIGNATURE_INVALID = -32010;

const MAX_PATTERN_LENGTH = 8192;

// ---------------------------------------------------------------------------------------------
// Public entry points

/** Loads a policy from YAML text. Never throws for bad input. */
export function loadPolicyText(text: string, options: PolicyLoadOptions = {}): PolicyLoadResult {
  const parsed = parsePolicyYaml(text);
  if (!parsed.ok) return parsed;
  const source = new PolicySource(parsed.doc, parsed.lineCounter);
  const checked = validatePolicyDocument(source, parsed.json);
  if (!checked.ok) return checked;
  const findings: Findings = { source, errors: [], warnings: [...checked.warnings] };
  const policy = buildPolicy(findings, checked.document, checked.version, parsed.json, options.sourcePath ?? null);
  const signedBy = policy && !options.draft ? checkSignature(findings, policy, options) : null;
  if (!policy || findings.errors.length > 0) return { ok: false, errors: byPosition(findings.errors) };
  const warningsAt = byPosition(findings.warnings);
  return { ok: true, policy, warnings: warningsAt.map(formatWarning), warningsAt, signedBy };
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
    if (stat.size > MAX_POLICY_BYTES) return fileError(policyTooLargeMessage(stat.size, 'the policy file'));
    bytes = readFileSync(path);
  } catch (error) {
    return fileError(`cannot read the policy: ${(error as Error).message}`);
  }
  if (bytes.length > MAX_POLICY_BYTES) return fileError(policyTooLargeMessage(bytes.length, 'the policy file'));
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

function formatWarning(warning: PolicyWarning): string {
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
  if (size > MAX_POLICY_BYTES) return single(1, 1, policyTooLargeMessage(size));
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
    return single(start.line, start.column, `expected a YAML mapping with apiVersion, kind, metadata and spec at the top level, got ${describeNode(doc.contents)}`);
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

// ---------------------------------------------------------------------------------------------
// From the validated document to the runtime policy: what needs this process.

interface Findings {
  source: PolicySource;
  errors: PolicyError[];
  warnings: PolicyWarning[];
}

function buildPolicy(findings: Findings, document: AgentPolicyDocument, apiVersion: ApiVersion, json: JsonObject, sourcePath: string | null): AgentPolicy | null {
  const { metadata, spec } = document;
  const allowedTools = new Set<string>();
  spec.allowed_tools.forEach((raw, index) => {
    const path = ['spec', 'allowed_tools', index];
    const name = normalized(findings, raw, path, 'tool name');
    if (name === null) return;
    const warn = (message: string) => findings.warnings.push(findings.source.warning(path, message));
    if (name === '*') warn('"*" is not a wildcard in allowed_tools (only allowed_methods has one); it allows only a tool literally named "*"');
    if (allowedTools.has(name)) warn(`"${raw}" repeats tool "${name}" (after normalisation, §4.1)`);
    allowedTools.add(name);
  });
  const allowedMethods = normalizedSet(findings, spec.allowed_methods, ['spec', 'allowed_methods'], 'method name');
  const deniedMethods = normalizedSet(findings, spec.denied_methods, ['spec', 'denied_methods'], 'method name');
  const failOpenTools = spec.server?.fail_open_constraints?.allowed_tools;
  if (failOpenTools) normalizedSet(findings, failOpenTools, ['spec', 'server', 'fail_open_constraints', 'allowed_tools'], 'tool name');
  const toolRules = compileToolRules(findings, spec.tool_rules);
  const dlp = spec.dlp ? compileDlp(findings, spec.dlp) : null;
  const threats = compileThreats(spec[THREATS_KEY], THREATS_KEY, (path, pattern, what) => compileRegex(findings, path, pattern, what));
  // The egress proxy's own parser, so a host the policy accepts is one the proxy can enforce.
  spec[SANDBOX_KEY]?.network?.hosts.forEach((host, index) => {
    try {
      parseHostPattern(host);
    } catch (error) {
      findings.errors.push(findings.source.error(['spec', SANDBOX_KEY, 'network', 'hosts', index], (error as Error).message));
    }
  });
  if (findings.errors.length > 0) return null;

  const { identity, server } = spec;
  const times = identity ? identityTimes(identity) : null;
  return {
    apiVersion,
    name: metadata.name,
    version: metadata.version ?? null,
    owner: metadata.owner ?? null,
    signature: metadata.signature ?? null,
    mode: spec.mode,
    allowedTools,
    allowedMethods,
    deniedMethods,
    protectedPaths: spec.protected_paths,
    strictArgsDefault: spec.strict_args_default,
    toolRules,
    dlp,
    identity:
      identity && times
        ? {
            enabled: identity.enabled,
            tokenTtlMs: times.tokenTtlMs,
            rotationIntervalMs: times.rotationIntervalMs,
            requireToken: identity.require_token,
            sessionBinding: identity.session_binding,
            nonceWindowMs: times.nonceWindowMs,
            policyTransitionGraceMs: times.policyTransitionGraceMs,
            audience: identity.audience ?? metadata.name,
            raw: specSection(json, 'identity'),
          }
        : null,
    server: server
      ? {
          enabled: server.enabled,
          listen: server.listen,
          failoverMode: server.failover_mode,
          timeoutMs: server.timeout?.ms ?? DEFAULT_SERVER_TIMEOUT_MS,
          tls: server.tls ? { cert: server.tls.cert, key: server.tls.key } : null,
          raw: specSection(json, 'server'),
        }
      : null,
    sandbox: spec[SANDBOX_KEY] ?? null,
    toolsList: spec[TOOLS_LIST_KEY] ?? DEFAULT_TOOLS_LIST,
    threats,
    hash: policyHash(json),
    document: json,
    sourcePath,
  };
}

/** A string for a message, with invisible and control characters shown as \u escapes. */
function visible(value: string): string {
  return `"${value.replace(/[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu, (ch) => `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`)}"`;
}

/** §4.1: the name as compared at runtime; null (and an error) when nothing is left of it. */
function normalized(findings: Findings, raw: string, path: YamlPath, what: string): string | null {
  const name = normalizeName(raw);
  if (name !== '') return name;
  findings.errors.push(findings.source.error(path, `expected a ${what}; ${visible(raw)} is empty after normalisation (§4.1 removes invisible and control characters)`));
  return null;
}

function normalizedSet(findings: Findings, names: readonly string[], path: YamlPath, what: string): Set<string> {
  const out = new Set<string>();
  names.forEach((raw, index) => {
    const name = normalized(findings, raw, [...path, index], what);
    if (name !== null) out.add(name);
  });
  return out;
}

function compileToolRules(findings: Findings, rules: readonly ToolRuleDocument[]): Map<string, ToolRule> {
  const compiled = new Map<string, ToolRule>();
  const first = new Map<string, { line: number; raw: string }>();
  rules.forEach((rule, index) => {
    const path = ['spec', 'tool_rules', index];
    const toolPath = [...path, 'tool'];
    const tool = normalized(findings, rule.tool, toolPath, 'tool name');
    if (tool !== null) {
      const previous = first.get(tool);
      const { line } = findings.source.position(toolPath);
      if (previous) {
        const same = previous.raw === rule.tool ? '' : ` ("${previous.raw}" and "${rule.tool}" are the same name after normalisation, §4.1)`;
        findings.errors.push(findings.source.error(toolPath, `duplicate rule for tool "${tool}": the first rule is at line ${previous.line}, this one at line ${line}${same}; merge them into one rule`));
      } else {
        first.set(tool, { line, raw: rule.tool });
      }
    }
    const allowArgs: ArgumentRule[] = [];
    for (const [name, pattern] of rule.allow_args ?? []) {
      const regex = compileRegex(findings, [...path, 'allow_args', name], pattern, `argument "${name}"`);
      if (regex) allowArgs.push({ name, pattern, regex });
    }
    if (tool === null) return;
    if (rule.action === 'block') {
      const inert = (['rate_limit', 'strict_args', 'schema_hash', 'allow_args'] as const).filter((key) => rule[key] !== undefined);
      if (inert.length > 0) findings.warnings.push(findings.source.warning(path, `tool "${tool}" is blocked unconditionally, so ${inert.join(', ')} ${inert.length === 1 ? 'has' : 'have'} no effect`));
    }
    if (!compiled.has(tool)) {
      compiled.set(tool, { tool, rawTool: rule.tool, index, action: rule.action, rateLimit: rule.rate_limit ?? null, strictArgs: rule.strict_args ?? null, schemaHash: rule.schema_hash ?? null, allowArgs });
    }
  });
  return compiled;
}

function compileRegex(findings: Findings, path: YamlPath, pattern: string, what: string): RE2 | null {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    findings.errors.push(findings.source.error(path, `the regular expression for ${what} is ${pattern.length} characters long; the maximum is ${MAX_PATTERN_LENGTH}`));
    return null;
  }
  try {
    return new RE2(pattern, 'u');
  } catch (error) {
    findings.errors.push(
      findings.source.error(
        path,
        `invalid regular expression for ${what}: ${(error as Error).message}; expected RE2 syntax (linear-time, §3.5.3/§10.2: no lookaround such as (?=…), no backreferences such as \\1)`,
      ),
    );
    return null;
  }
}

function compileDlp(findings: Findings, dlp: DlpDocument): DlpConfig {
  const patterns: DlpPattern[] = [];
  dlp.patterns.forEach((pattern, index) => {
    const path = ['spec', 'dlp', 'patterns', index, 'regex'];
    const what = `DLP pattern "${pattern.name}"`;
    const regex = compileRegex(findings, path, pattern.regex, what);
    // A pattern that matches the empty string redacts nothing yet runs at every position of every response.
    if (regex?.test('')) {
      findings.errors.push(findings.source.error(path, `${what} matches the empty string, so it can never redact anything; make it require at least one character (e.g. "x+" instead of "x*")`));
    } else if (regex) {
      patterns.push({ name: pattern.name, pattern: pattern.regex, regex, scope: pattern.scope, verify: pattern['x-silas-verify'] ?? null });
    }
  });
  return {
    enabled: dlp.enabled,
    scanRequests: dlp.scan_requests,
    scanResponses: dlp.scan_responses,
    detectEncoding: dlp.detect_encoding,
    normalize: dlp['x-silas-normalize'],
    filterStderr: dlp.filter_stderr,
    maxScanSize: dlp.max_scan_size,
    onRequestMatch: dlp.on_request_match,
    onRedactionFailure: dlp.on_redaction_failure,
    logOriginalOnFailure: dlp.log_original_on_failure,
    patterns,
  };
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

function checkSignature(findings: Findings, policy: AgentPolicy, options: PolicyLoadOptions): string | null {
  const fail = (reason: string): null => {
    findings.errors.push({ ...findings.source.error(['metadata', 'signature'], `Policy signature invalid: ${reason}`), code: POLICY_SIGNATURE_INVALID });
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
