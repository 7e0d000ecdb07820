import type { AgentPolicyDocument, DlpDocument, IdentityDocument, ServerDocument } from './schema.js';
import { identityTimes } from './schema-identity.js';
import type { PolicySource, PolicyWarning } from './source.js';

/*
 * SHOULD-level findings of a valid policy (spec 001 §3, §10): it loads, but its author ought to
 * know. Pure, so the editor shows the same warnings the loader prints. Findings that need the
 * loader's name normalisation (repeated tools, inert rules) are added by the loader.
 */

type Warn = (path: ReadonlyArray<string | number>, message: string) => void;

export function policyWarnings(policy: AgentPolicyDocument, source: PolicySource): PolicyWarning[] {
  const warnings: PolicyWarning[] = [];
  const warn: Warn = (path, message) => warnings.push(source.warning(path, message));
  const { metadata, spec } = policy;
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(metadata.name)) {
    warn(['metadata', 'name'], `"${metadata.name}" is not a DNS-1123 name (lowercase letters, digits, "-" and "."); the upstream JSON schema requires one, so other AIP tools may refuse it`);
  }
  if (metadata.version !== undefined && !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(metadata.version)) {
    warn(['metadata', 'version'], `"${metadata.version}" is not a semantic version (§3.3: e.g. "1.0.0")`);
  }
  if (spec.mode === 'monitor') warn(['spec', 'mode'], 'monitor mode logs violations but lets every call through; do not use it in production (§10.4)');
  if (spec.dlp) dlpWarnings(spec.dlp, source, warn);
  if (spec.identity) identityWarnings(spec.identity, spec.server, warn);
  if (spec.server) serverWarnings(spec.server, warn);
  return warnings;
}

function dlpWarnings(dlp: DlpDocument, source: PolicySource, warn: Warn): void {
  const at = (key: string) => ['spec', 'dlp', key];
  const firstLine = new Map<string, number>();
  dlp.patterns.forEach((pattern, index) => {
    const path = ['spec', 'dlp', 'patterns', index];
    const first = firstLine.get(pattern.name);
    if (first !== undefined) warn(path, `another pattern named "${pattern.name}" is at line ${first}; redaction markers and DLP events will not tell them apart`);
    else firstLine.set(pattern.name, source.position(path).line);
    if (!dlp.enabled) return;
    if (pattern.scope === 'request' && !dlp.scan_requests) warn(path, `pattern "${pattern.name}" only applies to requests, but scan_requests is false, so it never runs`);
    if (pattern.scope === 'response' && !dlp.scan_responses) warn(path, `pattern "${pattern.name}" only applies to responses, but scan_responses is false, so it never runs`);
  });
  if (!dlp.enabled) return;
  if (source.has(at('on_request_match')) && !dlp.scan_requests) warn(at('on_request_match'), 'on_request_match has no effect while scan_requests is false');
  if (source.has(at('on_redaction_failure')) && dlp.on_request_match !== 'redact') warn(at('on_redaction_failure'), 'on_redaction_failure only applies when on_request_match is "redact"');
  if (dlp.on_redaction_failure === 'allow_original') {
    warn(at('on_redaction_failure'), 'allow_original forwards the unredacted request when redaction fails; use it for debugging only (§3.6.4)');
  }
  if (dlp.log_original_on_failure) {
    warn(at('log_original_on_failure'), 'log_original_on_failure writes the sensitive data DLP tried to redact into the log; enable it only for time-limited forensics (§3.6.4)');
  }
  if (!dlp.scan_requests && !dlp.scan_responses) warn(['spec', 'dlp'], 'DLP is enabled but scans neither requests nor responses');
}

function identityWarnings(identity: IdentityDocument, server: ServerDocument | undefined, warn: Warn): void {
  const at = (...keys: string[]) => ['spec', 'identity', ...keys];
  const { tokenTtlMs, ttlText } = identityTimes(identity);
  if (identity.token_ttl && tokenTtlMs > 15 * 60_000) warn(at('token_ttl'), `token_ttl ${ttlText} is long; short TTLs (5-15 minutes) limit the window for a stolen token (§3.7.2)`);
  const rotation = identity.rotation_interval;
  if (rotation && rotation.ms > tokenTtlMs * 0.9) {
    warn(at('rotation_interval'), `rotation_interval (${rotation.text}) is very close to token_ttl (${ttlText}); consider reducing it to leave a grace period for in-flight requests (§3.7.3)`);
  } else if (rotation?.ms === 0) {
    warn(at('rotation_interval'), 'rotation_interval "0s" disables automatic token rotation; not recommended for production (§3.7.3)');
  }
  const grace = identity.policy_transition_grace;
  if (grace && grace.ms >= tokenTtlMs) {
    warn(at('policy_transition_grace'), `policy_transition_grace (${grace.text}) should be less than token_ttl (${ttlText}) so that a policy change takes effect within one token lifetime (§3.7.7)`);
  }
  if (identity.audience !== undefined && server?.enabled && !/^https?:\/\//.test(identity.audience)) {
    warn(at('audience'), "with server.enabled, the audience should be the server's canonical URL (§3.7.8)");
  }
  if (identity.require_token && !identity.enabled) {
    warn(at('require_token'), 'require_token is true but identity.enabled is false, so no tokens are issued and every tool call will be rejected with -32008');
  }
  const storage = identity.nonce_storage;
  if (storage && (storage.type ?? 'memory') === 'memory' && storage.address !== undefined) warn(at('nonce_storage', 'address'), 'address is ignored for nonce_storage type "memory"');
  const keys = identity.keys;
  if (keys && keys.key_source !== 'file' && keys.key_path !== undefined) warn(at('keys', 'key_path'), 'key_path is ignored unless key_source is "file"');
}

function serverWarnings(server: ServerDocument, warn: Warn): void {
  const at = (key: string) => ['spec', 'server', key];
  if (server.failover_mode === 'fail_open' && !server.fail_open_constraints) {
    warn(at('failover_mode'), 'failover_mode "fail_open" allows every request when validation is unavailable; add fail_open_constraints to limit the exposure (§3.8.3)');
  }
  if (server.failover_mode !== 'fail_open' && server.fail_open_constraints) {
    warn(at('fail_open_constraints'), `fail_open_constraints has no effect with failover_mode "${server.failover_mode}"`);
  }
}
