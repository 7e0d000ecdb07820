import { z } from 'zod';
import { formatDuration } from './formats.js';
import { closed, duration, flag, text, type ApiVersion } from './schema-kit.js';
import { endpointPath } from './schema-server.js';

/* spec.identity (§3.7) with its nonce storage (§3.7.9) and signing keys (§5.8). */

const DEFAULT_TOKEN_TTL_MS = 5 * 60_000;
const DEFAULT_ROTATION_MS = 4 * 60_000;

function nonceStorage(version: ApiVersion) {
  return closed(version, {
    type: z.enum(['memory', 'redis', 'postgres']).optional().describe('Where nonces are kept for replay detection: memory (one instance, the default), redis or postgres (shared by several instances).'),
    address: text('a connection string', { nonEmpty: true, max: 2048 })
      .optional()
      .describe('Connection URL of the nonce store (redis://… or postgres://…); required unless type is memory.'),
    key_prefix: text('a key prefix', { nonEmpty: true, max: 256 }).optional().describe('Prefix of the nonce keys in a shared store, for namespacing. Default: "aip:nonce:".'),
    clock_skew_tolerance: duration('clock_skew_tolerance', false).optional().describe('Added to the token TTL to absorb clock drift between instances. Default: "30s".'),
  }).superRefine((storage, ctx) => {
    const type = storage.type ?? 'memory';
    if (type === 'memory') return;
    if (storage.address === undefined) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: `required key "address" is missing; nonce_storage type "${type}" needs a connection string (§3.7.9)` });
      return;
    }
    const schemes = type === 'redis' ? ['redis:', 'rediss:'] : ['postgres:', 'postgresql:'];
    if (!(URL.canParse(storage.address) && schemes.includes(new URL(storage.address).protocol))) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: `expected a ${type} connection URL starting with ${schemes.map((s) => `${s}//`).join(' or ')}, got "${storage.address}"` });
    }
  });
}

function signingKeys(version: ApiVersion) {
  const externalField = (doc: string) => text('a string', { nonEmpty: true, max: 2048 }).optional().describe(doc);
  return closed(version, {
    signing_algorithm: z
      .enum(['ES256', 'ES384', 'EdDSA', 'RS256', 'HS256'])
      .optional()
      .describe('JWT signing algorithm (§5.8.2). Default: ES256. HS256 shares a secret and is refused when server.enabled is true.'),
    key_source: z.enum(['generate', 'file', 'external']).optional().describe('Where the signing key comes from: generate (default), file (key_path) or external (a key service).'),
    key_path: text('a path to a PEM key file', { nonEmpty: true, max: 4096 }).optional().describe('Path of the PEM signing key; required when key_source is file.'),
    rotation_period: duration('rotation_period', true).optional().describe('How often signing keys are rotated (§5.8.4). Default: "7d".'),
    jwks_endpoint: endpointPath().optional().describe('Path of the JSON Web Key Set endpoint. Default: "/v1/jwks".'),
    grace_period: duration('grace_period', false).optional().describe('How long a retired key stays in the key set after rotation.'),
    external: closed(version, {
      type: externalField('Kind of key service, e.g. "vault".'),
      address: externalField('Address of the key service.'),
      key_name: externalField('Name of the signing key in the key service.'),
    })
      .optional()
      .describe('The external key service (type, address, key_name); used only with key_source: external (§5.8.3).'),
  }).superRefine((keys, ctx) => {
    const source = keys.key_source ?? 'generate';
    if (source === 'file' && keys.key_path === undefined) {
      ctx.addIssue({ code: 'custom', path: ['key_path'], message: 'required key "key_path" is missing; key_source "file" needs the path of a PEM key file (§5.8.1)' });
    }
    if (keys.external !== undefined && source !== 'external') ctx.addIssue({ code: 'custom', path: ['external'], message: 'external is only used with key_source: "external"' });
    if (keys.external === undefined && source === 'external') {
      ctx.addIssue({ code: 'custom', path: ['external'], message: 'required key "external" is missing; key_source "external" needs the key service (type, address, key_name) (§5.8.3)' });
    }
  });
}

export function identitySchema(version: ApiVersion) {
  return closed(version, {
    enabled: flag().default(false).describe('When true, the engine issues and manages identity tokens for the session (§3.7.1). Default: false.'),
    token_ttl: duration('token_ttl', true).optional().describe('Lifetime of an identity token, e.g. "5m" (§3.7.2). Default: "5m"; short TTLs (5-15 minutes) limit a stolen token.'),
    rotation_interval: duration('rotation_interval', false)
      .optional()
      .describe('How often tokens are rotated before expiry; must be less than token_ttl, "0s" disables rotation (§3.7.3). Default: "4m" (4/5 of a shorter token_ttl).'),
    require_token: flag().default(false).describe('When true, every tool call must carry a valid identity token, else -32008 (§3.7.4). Default: false.'),
    session_binding: z.enum(['process', 'policy', 'strict']).default('process').describe('What a session identity is bound to: process (default), policy (the policy hash) or strict (process, policy and time) (§3.7.5).'),
    nonce_window: duration('nonce_window', true).optional().describe('How long nonces are kept for replay detection; at least token_ttl (§3.7.6). Default: token_ttl.'),
    policy_transition_grace: duration('policy_transition_grace', false)
      .optional()
      .describe('How long tokens of the previous policy hash stay valid after a policy change; should be less than token_ttl (§3.7.7). Default: "0s".'),
    audience: text('a URI or the policy name (metadata.name)', { max: 2048 })
      .refine((value) => value !== '', { error: 'an empty audience is not valid (§3.7.8); remove the key to default to metadata.name', abort: true })
      .refine((value) => !value.includes('*'), { error: (issue) => `wildcards are not permitted in audience values (§3.7.8), got "${String(issue.input)}"`, abort: true })
      .optional()
      .describe("The tokens' aud claim: a URI or metadata.name, never a wildcard (§3.7.8). Default: metadata.name."),
    nonce_storage: nonceStorage(version).optional().describe('Nonce storage for replay detection across instances (§3.7.9).'),
    keys: signingKeys(version).optional().describe('Token signing keys (§5.8).'),
  }).superRefine((identity, ctx) => {
    const times = identityTimes(identity);
    const rotation = identity.rotation_interval;
    if (rotation && rotation.ms > 0 && rotation.ms >= times.tokenTtlMs) {
      ctx.addIssue({ code: 'custom', path: ['rotation_interval'], message: `rotation_interval (${rotation.text}) must be less than token_ttl (${times.ttlText}) (§3.7.3); use "0s" to disable rotation` });
    }
    const nonce = identity.nonce_window;
    if (nonce && nonce.ms < times.tokenTtlMs) {
      ctx.addIssue({
        code: 'custom',
        path: ['nonce_window'],
        message: `nonce_window (${nonce.text}) must be greater than or equal to token_ttl (${times.ttlText}) (§3.7.6), or a replayed token could outlive its nonce record`,
      });
    }
  });
}

export type IdentityDocument = z.output<ReturnType<typeof identitySchema>>;

/** The identity durations in effect, defaults applied. */
export function identityTimes(identity: Pick<IdentityDocument, 'token_ttl' | 'rotation_interval' | 'nonce_window' | 'policy_transition_grace'>) {
  const tokenTtlMs = identity.token_ttl?.ms ?? DEFAULT_TOKEN_TTL_MS;
  return {
    tokenTtlMs,
    ttlText: identity.token_ttl?.text ?? formatDuration(tokenTtlMs),
    // The spec's default "4m" belongs with the default token_ttl "5m". With a shorter explicit
    // token_ttl it would violate the MUST of §3.7.3, so the default keeps the same 4:5 ratio.
    rotationIntervalMs: identity.rotation_interval?.ms ?? (tokenTtlMs > DEFAULT_ROTATION_MS ? DEFAULT_ROTATION_MS : Math.floor((tokenTtlMs * 4) / 5)),
    nonceWindowMs: identity.nonce_window?.ms ?? tokenTtlMs,
    policyTransitionGraceMs: identity.policy_transition_grace?.ms ?? 0,
  };
}
