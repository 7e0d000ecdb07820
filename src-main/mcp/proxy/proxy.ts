import { randomUUID } from 'node:crypto';
import type { SqliteDatabase } from '../../store/transaction.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ToolDefinition } from '../../aip/evaluate/evaluator.js';
import { commandLineBases, PathBases } from '../../aip/evaluate/paths/path-bases.js';
import type { PolicyError } from '../../aip/policy/load.js';
import type { StandingGrants } from '../../approval/standing/grants.js';
import { ApprovalConsumer } from './approval-consumer.js';
import type { Approver } from './approver.js';
import { ASK_PROGRESS_INTERVAL_MS } from './ask-timing.js';
import { PolicySource, type PolicyState, type SavedPolicyVersion } from './policy-source.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import { ProxyAudit } from './proxy-audit.js';
import { ProxySession } from './session.js';
import { SpawnedServer } from './spawned-server.js';
import { StdioClient } from './stdio-client.js';
import { offerChanged, TOOLS_LIST_CHANGED } from './tools-offer.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { sealPinsFromBeforeSeals, toolPinSealer } from '../tool-pin-seals.js';
import type { ServerLauncher } from '../sandbox/server-launcher.js';
import { SANDBOX_KEY } from '../../../src-shared/policy/schema-sandbox.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';

export interface ProxyOptions {
  server: string;
  /** The agent client whose configuration started the proxy (`--client`); recorded with every event. */
  client?: string | null;
  command: string;
  args: readonly string[];
  policyFile: string;
  db: SqliteDatabase;
  audit: AuditLog;
  /** Keys trusted for signed policies and approvals: the owner key (keyring, else the DB's). */
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  /** The keyring's anchors of the policies in force: only the one Silas last put in force is enforced. */
  seals: Pick<StateSeals, 'checkAnchored' | 'anchoredDigest' | 'anchor' | 'seal' | 'check'>;
  /** `--allow-unsigned`: enforce any valid policy, signed or not (recorded at start; development only). */
  allowUnsigned?: boolean;
  /** The versions Silas saved for the policy file, newest first (the cockpit's history). */
  savedVersions?: () => SavedPolicyVersion[];
  /** The keyring's record of standing approvals in force; without it none is honoured. */
  standingGrants?: StandingGrants;
  approver: Approver;
  /** How long an ask waits for the person (`--ask-timeout`; ask-timing.ts says why 50 s by default). */
  askTimeoutMs: number;
  /** How long an ask whose request carries a `progressToken` waits (`--ask-timeout-with-progress`; default: `askTimeoutMs`). */
  progressAskTimeoutMs?: number;
  /** How often a waiting ask with a `progressToken` sends progress; tests shorten it (default ASK_PROGRESS_INTERVAL_MS). */
  progressIntervalMs?: number;
  /** Where the policy's protected-path expansion and automatic protection look. */
  homeDir: string;
  cwd: string;
  dataHome: string;
  /** The MCP client's side: lines in, lines out. */
  input: NodeJS.ReadableStream;
  writeClient: (line: string) => void;
  /** One line to the proxy's stderr (which an MCP client shows in its logs). */
  log: (text: string) => void;
  formatPolicyErrors: (errors: PolicyError[]) => string[];
  /** Resolves with a signal name to forward to the server (SIGINT/SIGTERM of the proxy). */
  stopSignal?: Promise<string>;
  /** How the server is started: in its sandbox, or unsandboxed for a recorded reason (docs/mcp-sandbox.md). */
  launch: ServerLauncher;
  env?: NodeJS.ProcessEnv;
  sessionId?: string;
  /** How long the server gets after its stdin closes, and again after SIGTERM. */
  graceMs?: number;
  pollMs?: number;
}

export interface ProxyExit {
  code: number;
  reason: string;
  /** Set when no server was started: what the client is told, with the fix, in answer to `initialize`. */
  notStarted?: { reason: string; fix: string };
}

/**
 * `silas proxy`: one MCP server behind one AgentPolicy. Starts only with a valid policy; relays
 * both directions line by line; ends when either side goes away, answering what is still
 * pending so the client never hangs, and records start and stop in the ledger. This is the
 * composition: the policy source, a session (session.ts) and its two sides, the client over
 * stdio and the spawned server (docs/mcp-proxy.md "Transports").
 */
export async function runProxy(options: ProxyOptions): Promise<ProxyExit> {
  const sessionId = options.sessionId ?? randomUUID();
  const audit = new ProxyAudit(options.audit, options.server, sessionId, options.client ?? null);
  const toolDefs = new Map<string, ToolDefinition>();
  // The server runs in the proxy's directory and may resolve relative paths against any directory
  // on its command line or any root the client announces.
  const pathBases = new PathBases(commandLineBases(options.cwd, options.args));
  // Set once the session exists; reloads are watched only from then on.
  let onReloaded: (state: PolicyState) => void = () => undefined;
  const policy = policySource(options, audit, { pathBases, toolDefs, onReloaded: (state) => onReloaded(state) });
  const initial = policy.load();
  if (!initial.ok) {
    if (initial.refusal) {
      options.log('silas proxy: no policy signed by the owner is in force for this file; the MCP server was not started');
      return { code: 1, reason: 'policy not signed by the owner', notStarted: { reason: `no policy signed by the owner is in force for ${options.policyFile}`, fix: 'save it in the Silas cockpit (Policies) or run `silas policy sign FILE`, then restart this server in your MCP client' } };
    }
    for (const line of options.formatPolicyErrors(initial.errors)) options.log(line);
    options.log('silas proxy: invalid policy; the MCP server was not started');
    const first = options.formatPolicyErrors(initial.errors)[0] ?? options.policyFile;
    return { code: 1, reason: 'invalid policy', notStarted: { reason: `the policy is invalid: ${first}`, fix: `correct ${options.policyFile} (every error is in this server's log; \`silas policy validate FILE\` lists them), then restart this server in your MCP client` } };
  }
  if (initial.fallback) options.log(`silas proxy: enforcing version ${initial.fallback.seq} saved by Silas, the policy in force, instead of the file`);
  if (options.allowUnsigned) options.log('silas proxy: warning: started with --allow-unsigned: any valid policy file is enforced, signed by the owner or not (development only)');

  const server = new SpawnedServer({
    name: options.server,
    launch: options.launch,
    policy: initial.state.policy,
    graceMs: options.graceMs ?? 2000,
    log: options.log,
    events: {
      connection: (d) =>
        d.allowed
          ? audit.event('mcp.sandbox_allowed', { host: d.host, port: d.port })
          : audit.event('mcp.sandbox_denied', { kind: 'connect', host: d.host, port: d.port, reason: d.reason, count: d.count, window_start: d.windowStart, window_ms: d.windowMs }),
    },
  });
  try {
    await server.start();
  } catch (error) {
    const reason = `cannot start the MCP server "${options.command}": ${(error as Error).message}`;
    options.log(`silas proxy: ${reason}`);
    audit.event('mcp.proxy_start_failed', { command: options.command, reason });
    return { code: 1, reason, notStarted: { reason, fix: 'correct the server command or the policy\'s x-silas-sandbox grants (see docs/mcp-sandbox.md), then restart this server in your MCP client' } };
  }
  const sandbox = server.sandbox!;
  if (sandbox.backend === 'none') options.log(`silas proxy: warning: the MCP server runs UNSANDBOXED (${sandbox.unsandboxedReason ?? 'no reason given'}): it can read your files, use the network and reach your keyring`);
  audit.event('mcp.proxy_started', { command: options.command, args: [...options.args], pid: server.pid, policy_name: initial.state.policy.name, policy_hash: initial.state.policy.hash, policy_file: options.policyFile, sandbox, ...(options.allowUnsigned ? { allow_unsigned: true as const } : {}) });

  // Installed in the continuation of start, before any I/O turn can deliver a line from the server.
  const session = new ProxySession(
    {
      server: options.server,
      sessionId,
      audit,
      pins: pinsOf(options),
      approvals: new ApprovalConsumer(options.db, options.audit, options.trustedKeys, options.standingGrants),
      approver: options.approver,
      askTimeoutMs: options.askTimeoutMs,
      progressAskTimeoutMs: options.progressAskTimeoutMs ?? options.askTimeoutMs,
      progressIntervalMs: options.progressIntervalMs ?? ASK_PROGRESS_INTERVAL_MS,
      state: () => policy.current(),
      toolDefs,
      pathBases,
      log: options.log,
    },
    new StdioClient(options.input, options.writeClient),
    server,
  );
  // Mounts, environment and network are fixed when the server starts.
  const startedSandbox = sandboxSection(initial.state.policy.document);
  let offeredUnder = initial.state.policy;
  onReloaded = (state) => {
    if (sandboxSection(state.policy.document) !== startedSandbox) options.log(`silas proxy: the policy's ${SANDBOX_KEY} changed; it applies when the MCP server is restarted`);
    // What tools/list offers follows the policy; the client is told to list again (tools-offer.ts).
    if (offerChanged(offeredUnder, state.policy, toolDefs.keys())) session.ctx.toClient(TOOLS_LIST_CHANGED, undefined);
    offeredUnder = state.policy;
  };
  policy.watch();
  void options.stopSignal?.then((signal) => server.stop(signal));
  const end = await session.run();
  policy.stop();
  return end;
}

/** The policy file as the proxy enforces it: reloads, refusals and failures go to the ledger and the log. */
function policySource(options: ProxyOptions, audit: ProxyAudit, engine: { pathBases: PathBases; toolDefs: ReadonlyMap<string, ToolDefinition>; onReloaded: (state: PolicyState) => void }): PolicySource {
  return new PolicySource({
    file: options.policyFile,
    trustedKeys: options.trustedKeys,
    seals: options.seals,
    allowUnsigned: options.allowUnsigned === true,
    ...(options.savedVersions ? { savedVersions: options.savedVersions } : {}),
    engine: { homeDir: options.homeDir, cwd: options.cwd, dataHome: options.dataHome, pathBases: engine.pathBases, environment: options.env ?? process.env, toolDefinition: (name) => engine.toolDefs.get(name) ?? null },
    pollMs: options.pollMs,
    onReloaded: (state, previous) => {
      audit.event('aip.policy_reloaded', { policy_name: state.policy.name, policy_hash: state.policy.hash, previous_hash: previous });
      options.log(`silas proxy: policy reloaded (${state.policy.hash.slice(0, 12)}…)`);
      engine.onReloaded(state);
    },
    onRefused: (refusal, inForce) => {
      audit.event('aip.policy_refused', { policy_file: options.policyFile, reason: refusal.reason, text_sha256: refusal.textSha256, in_force_hash: inForce?.policy.hash ?? null, detail: refusal.detail });
      options.log(`silas proxy: ${refusal.detail}`);
      if (inForce) options.log(`silas proxy: the policy in force stays (${inForce.policy.hash.slice(0, 12)}…)`);
    },
    onReloadFailed: (errors) => {
      // FILE:LINE:COL lines, the same the proxy prints, so the cockpit shows what an editor can jump to.
      const lines = options.formatPolicyErrors(errors);
      audit.event('aip.policy_reload_failed', { errors: lines.slice(0, 10) });
      options.log('silas proxy: the edited policy is invalid; the last valid policy stays in force:');
      for (const line of lines) options.log(line);
    },
  });
}

function sandboxSection(document: JsonObject): string {
  const spec = document.spec;
  return JSON.stringify(spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec[SANDBOX_KEY] ?? null) : null);
}

/** The proxy's pins, sealed with the ledger key; pins from before seals are sealed at the first start after the upgrade. */
function pinsOf(options: Pick<ProxyOptions, 'db' | 'seals'>): ToolPinRepository {
  const pins = new ToolPinRepository(options.db, toolPinSealer(options.seals));
  sealPinsFromBeforeSeals(pins, options.seals);
  return pins;
}
