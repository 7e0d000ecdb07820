import { z } from 'zod';
import { isLoopbackHost, parseListen } from './formats.js';
import { closed, duration, flag, list, text, wholeNumber, type ApiVersion } from './schema-kit.js';

/* spec.server (§3.8): the optional validation server, its TLS, fail-open limits and endpoints. */

const DEFAULT_LISTEN = '127.0.0.1:9443';
export const DEFAULT_SERVER_TIMEOUT_MS = 5_000;

export function endpointPath() {
  return text('an endpoint path such as "/v1/validate"', { nonEmpty: true, max: 256 }).refine((value) => /^\/[A-Za-z0-9/_.~-]*$/.test(value), {
    error: (issue) => `expected an endpoint path starting with "/" (letters, digits, "/", "_", ".", "~", "-"), got "${String(issue.input)}"`,
    abort: true,
  });
}

function tls(version: ApiVersion) {
  const path = (what: string, missing?: string) => text(what, { nonEmpty: true, max: 4096, missing });
  return closed(version, {
    cert: path('a certificate path', 'the path of a PEM certificate').describe('Path of the PEM certificate.'),
    key: path('a private key path', 'the path of a PEM private key').describe('Path of the PEM private key.'),
    client_ca: path('a CA certificate path').optional().describe('PEM CA that signs client certificates; needed for require_client_cert.'),
    require_client_cert: flag().default(false).describe('When true, clients must present a certificate signed by client_ca (mutual TLS). Default: false.'),
  }).superRefine((value, ctx) => {
    if (value.require_client_cert && value.client_ca === undefined) {
      ctx.addIssue({ code: 'custom', path: ['require_client_cert'], message: 'require_client_cert needs client_ca, the CA that signs client certificates' });
    }
  });
}

function failOpenConstraints(version: ApiVersion) {
  return closed(version, {
    allowed_tools: list('tool names', text('a tool name', { nonEmpty: true, max: 256 }))
      .optional()
      .describe('Only these tools are allowed while failing open; every other tool is blocked.'),
    max_duration: duration('max_duration', true).optional().describe('Fail open for at most this long, then revert to fail_closed.'),
    max_requests: wholeNumber(1, 1_000_000_000).optional().describe('Fail open for at most this many requests, then revert to fail_closed.'),
    alert_webhook: text('an http(s) URL', { nonEmpty: true, max: 2048 })
      .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), { error: (issue) => `expected an http(s) URL, got "${String(issue.input)}"`, abort: true })
      .optional()
      .describe('URL that receives a POST when fail_open activates.'),
    require_local_policy: flag().optional().describe('Fail open only while a valid local policy is loaded.'),
  });
}

function endpoints(version: ApiVersion) {
  return closed(version, {
    validate: endpointPath().optional().describe('Policy validation endpoint. Default: "/v1/validate".'),
    revoke: endpointPath().optional().describe('Token and session revocation endpoint. Default: "/v1/revoke".'),
    jwks: endpointPath().optional().describe('JSON Web Key Set endpoint. Default: "/v1/jwks".'),
    health: endpointPath().optional().describe('Health check endpoint. Default: "/health".'),
    metrics: endpointPath().optional().describe('Prometheus metrics endpoint. Default: "/metrics".'),
  }).superRefine((paths, ctx) => {
    const seen = new Map<string, string>();
    for (const [name, path] of Object.entries(paths)) {
      if (path === undefined) continue;
      const other = seen.get(path);
      if (other) ctx.addIssue({ code: 'custom', path: [name], message: `endpoint path "${path}" is already used by endpoints.${other}; each endpoint needs its own path` });
      else seen.set(path, name);
    }
  });
}

export function serverSchema(version: ApiVersion) {
  return closed(version, {
    enabled: flag().default(false).describe('When true, an HTTP server answers remote validation requests (§3.8.1). Default: false.'),
    listen: text('a listen address such as "127.0.0.1:9443"', { nonEmpty: true, max: 300 })
      .superRefine((value, ctx) => {
        const parsed = parseListen(value);
        if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed, continue: false });
      })
      .default(DEFAULT_LISTEN)
      .describe('"<host>:<port>" or ":<port>" to bind (§3.8.2). Default: "127.0.0.1:9443". Anything but loopback needs tls.'),
    failover_mode: z
      .enum(['fail_closed', 'fail_open', 'local_policy'])
      .default('fail_closed')
      .describe('What happens when validation is unavailable: fail_closed denies (default), fail_open allows, local_policy evaluates the local policy (§3.8.3).'),
    timeout: duration('timeout', true).optional().describe('How long to wait for the validation server before failover_mode applies (§3.8.4). Default: "5s".'),
    tls: tls(version).optional().describe('TLS certificate and key; required when listen is not loopback (§3.8.5).'),
    fail_open_constraints: failOpenConstraints(version).optional().describe('Limits on fail_open: tools, duration, request count, alerting (§3.8.3).'),
    endpoints: endpoints(version).optional().describe('Endpoint paths (§3.8.6).'),
  }).superRefine((server, ctx) => {
    const parsed = parseListen(server.listen);
    const host = typeof parsed === 'string' ? '' : parsed.host;
    if (server.enabled && !isLoopbackHost(host) && server.tls === undefined) {
      const shown = host === '' || host === '*' ? 'every interface' : host;
      ctx.addIssue({
        code: 'custom',
        path: ['listen'],
        message: `server.listen "${server.listen}" binds ${shown}, not loopback; TLS MUST be configured for it (§3.8.2, §3.8.5): add server.tls with cert and key, or listen on 127.0.0.1`,
      });
    }
  });
}

export type ServerDocument = z.output<ReturnType<typeof serverSchema>>;
