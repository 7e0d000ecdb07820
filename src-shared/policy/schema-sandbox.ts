import { z } from 'zod';
import { closed, CONTROL, list, openMap, text, wholeNumber, type ApiVersion } from './schema-kit.js';
import { ENV_NAME_PATTERN, SECRET_NAME_PATTERN } from '../secret-names.js';
import { SandboxNetworkMode } from '../schemas/server-sandbox.js';

/*
 * spec.x-silas-sandbox: Silas's documented extension of the AgentPolicy (not part of AIP spec 001,
 * whose §10.0.3 leaves subprocess sandboxing to implementations). It says what the governed MCP
 * server itself may reach when `silas proxy` starts it in a sandbox (DESIGN invariant 10;
 * docs/mcp-sandbox.md). Being part of the document, it is covered by the policy hash and signature
 * like every other field.
 */

export const SANDBOX_KEY = 'x-silas-sandbox';

/** Default aggregate limits for a server when the policy names none (enforced when the host can). */
export const DEFAULT_SERVER_MAX_PROCESSES = 256;
export const DEFAULT_SERVER_MAX_MEMORY_MB = 2048;
/** Where the egress proxy listens inside a sandbox (HTTPS_PROXY=http://127.0.0.1:3128). */
export const EGRESS_PROXY_PORT = 3128;

// A host pattern: a name or "*.name", an optional port; IP literals are written as they are.
const HOST_PATTERN = /^(?:\*\.)?(?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$|^\*(?::\d{1,5})?$/;

function path(what: string) {
  return text(what, { nonEmpty: true, max: 4096 }).refine((value) => !CONTROL.test(value), { error: 'expected a path, got a string with control or invisible characters', abort: true });
}

function envName(what: string) {
  return text(what, { nonEmpty: true, max: 128 }).refine((value) => ENV_NAME_PATTERN.test(value), {
    error: (issue) => `expected an environment variable name (letters, digits and "_", not starting with a digit), got "${String(issue.input)}"`,
    abort: true,
  });
}

function filesystem(version: ApiVersion) {
  return closed(version, {
    read: list('paths', path('a path')).default(() => []).describe('Paths the server may read (mounted read-only at the same place). "~" is the home directory.'),
    write: list('paths', path('a path')).default(() => []).describe('Paths the server may read and write.'),
    runtime: list('paths', path('a path'))
      .default(() => [])
      .describe("Extra read-only paths the server's program needs, beyond what is found from its command (interpreter, packages, script)."),
  });
}

function environment(version: ApiVersion) {
  return closed(version, {
    pass: list('variable names', envName('a variable name')).default(() => []).describe("Variables copied from the proxy's environment when set there. Nothing else is passed."),
    set: openMap('a mapping of variable names to values', text('a value', { max: 32_768 }))
      .default(() => new Map())
      .describe('Variables set to these values (never put a secret here: use secrets).'),
    secrets: openMap(
      'a mapping of variable names to secret names',
      text('a secret name', { nonEmpty: true, max: 64 }).refine((value) => SECRET_NAME_PATTERN.test(value), {
        error: (issue) => `expected a secret name (letters, digits, ".", "_", "-", at most 64), got "${String(issue.input)}"; store it with: silas secrets set NAME`,
        abort: true,
      }),
    )
      .default(() => new Map())
      .describe('Variables filled from the OS keyring at start (`silas secrets set NAME` stores one); the value is never written to a file, log or the ledger.'),
  });
}

function network(version: ApiVersion) {
  return closed(version, {
    // The same modes the ledger records (ServerSandboxSummary), so the two cannot drift apart.
    mode: SandboxNetworkMode.default('none')
      .describe(
        "none: no network (the server has only its own empty network namespace). loopback: only the host's loopback ports in loopback_ports. hosts: only the listed hosts, through the egress proxy of `silas proxy` (HTTPS_PROXY), and loopback_ports if any.",
      ),
    hosts: list(
      'host patterns',
      text('a host pattern', { nonEmpty: true, max: 300 }).refine((value) => HOST_PATTERN.test(value), {
        error: (issue) => `expected a host such as "api.github.com", "*.example.com" or "api.github.com:443", got "${String(issue.input)}"`,
        abort: true,
      }),
    )
      .default(() => [])
      .describe('With mode: hosts, the hosts the server may connect to ("*.example.com" for subdomains, "*" for any public name; a port after ":", else 443 and 80). Names that resolve to loopback or private addresses are always refused.'),
    loopback_ports: list('ports', wholeNumber(1, 65_535))
      .default(() => [])
      .describe("Ports of the host's own 127.0.0.1 the server may connect to (a local database, a model server), reached as 127.0.0.1:PORT inside the sandbox. Never 3128 (the egress proxy's port)."),
  }).superRefine((value, ctx) => {
    if (value.mode === 'hosts' && value.hosts.length === 0) ctx.addIssue({ code: 'custom', path: ['hosts'], message: 'mode: hosts needs at least one host; list them, or use mode: none' });
    if (value.mode !== 'hosts' && value.hosts.length > 0) ctx.addIssue({ code: 'custom', path: ['mode'], message: `hosts are listed but mode is ${value.mode}; set mode: hosts to allow them` });
    if (value.mode === 'loopback' && value.loopback_ports.length === 0) ctx.addIssue({ code: 'custom', path: ['loopback_ports'], message: 'mode: loopback needs at least one port in loopback_ports; list them, or use mode: none' });
    if (value.mode === 'none' && value.loopback_ports.length > 0) ctx.addIssue({ code: 'custom', path: ['mode'], message: 'loopback_ports are listed but mode is none; set mode: loopback (or hosts) to allow them' });
    value.loopback_ports.forEach((port, index) => {
      if (port === EGRESS_PROXY_PORT) ctx.addIssue({ code: 'custom', path: ['loopback_ports', index], message: `port ${EGRESS_PROXY_PORT} is where the egress proxy listens inside the sandbox; a server cannot reach the host's ${EGRESS_PROXY_PORT}` });
    });
  });
}

function limits(version: ApiVersion) {
  return closed(version, {
    max_processes: wholeNumber(1, 65_536).optional().describe(`Processes and threads of the server together (a cgroup's pids.max). Default: ${DEFAULT_SERVER_MAX_PROCESSES}.`),
    max_memory_mb: wholeNumber(16, 1_048_576).optional().describe(`Memory of the server's processes together, in MiB. Default: ${DEFAULT_SERVER_MAX_MEMORY_MB}.`),
  });
}

export function sandboxSchema(version: ApiVersion) {
  return closed(version, {
    filesystem: filesystem(version).optional().describe('What the server may see of the filesystem besides the system (/usr) and a private /tmp.'),
    env: environment(version).optional().describe('The environment the server gets: PATH, HOME and TMPDIR, plus what is listed here.'),
    network: network(version).optional().describe('What the server may reach on the network. Default: nothing.'),
    limits: limits(version)
      .optional()
      .describe('Aggregate limits of the server. When given, the server does not start where they cannot be enforced; when absent, defaults apply where the host can enforce them.'),
  });
}

export type SandboxDocument = z.output<ReturnType<typeof sandboxSchema>>;
