import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { SqliteDatabase } from '../../store/transaction.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ToolDefinition } from '../../aip/evaluate/evaluator.js';
import { commandLineBases, PathBases } from '../../aip/evaluate/paths/path-bases.js';
import type { PolicyError } from '../../aip/policy/load.js';
import type { StandingGrants } from '../../approvals/standing-grants.js';
import { ApprovalConsumer } from './approval-consumer.js';
import type { Approver } from './approver.js';
import { withdrawAsk } from './ask.js';
import { ASK_PROGRESS_INTERVAL_MS } from './ask-timing.js';
import { handleClientLine } from './client-gate.js';
import { errorLine, noteAnnouncedRoots, type AskInFlight, type Forwarded, type ProxyContext } from './context.js';
import { LineSplitter } from '../../../src-shared/contract/ndjson.js';
import { PolicySource, type SavedPolicyVersion } from './policy-source.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import { ProxyAudit } from './proxy-audit.js';
import { handleServerLine } from './server-relay.js';
import { offerChanged, TOOLS_LIST_CHANGED } from './tools-offer.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { sealPinsFromBeforeSeals, toolPinSealer } from '../tool-pin-seals.js';
import type { ServerLauncher, ServerLaunchPlan } from '../sandbox/server-launcher.js';
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
  /** How the server is started: in its sandbox, or unsandboxed for a recorded reason (issue 12). */
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

const SERVER_GONE = -32603;

/**
 * `silas proxy`: one MCP server behind one AgentPolicy. Starts only with a valid policy; relays
 * both directions line by line; ends when either side goes away, answering what is still
 * pending so the client never hangs, and records start and stop in the ledger.
 */
export async function runProxy(options: ProxyOptions): Promise<ProxyExit> {
  const sessionId = options.sessionId ?? randomUUID();
  const audit = new ProxyAudit(options.audit, options.server, sessionId, options.client ?? null);
  const toolDefs = new Map<string, ToolDefinition>();
  // The server runs in the proxy's directory and may resolve relative paths against any directory
  // on its command line or any root the client announces (issue 9 item 13).
  const pathBases = new PathBases(commandLineBases(options.cwd, options.args));
  const policy = new PolicySource({
    file: options.policyFile,
    trustedKeys: options.trustedKeys,
    seals: options.seals,
    allowUnsigned: options.allowUnsigned === true,
    ...(options.savedVersions ? { savedVersions: options.savedVersions } : {}),
    engine: { homeDir: options.homeDir, cwd: options.cwd, dataHome: options.dataHome, pathBases, environment: options.env ?? process.env, toolDefinition: (name) => toolDefs.get(name) ?? null },
    pollMs: options.pollMs,
    onReloaded: (state, previous) => {
      audit.event('aip.policy_reloaded', { policy_name: state.policy.name, policy_hash: state.policy.hash, previous_hash: previous });
      options.log(`silas proxy: policy reloaded (${state.policy.hash.slice(0, 12)}…)`);
      // Mounts, environment and network are fixed when the server starts.
      if (sandboxSection(state.policy.document) !== startedSandbox) options.log(`silas proxy: the policy's ${SANDBOX_KEY} changed; it applies when the MCP server is restarted`);
      // What tools/list offers follows the policy; the client is told to list again (tools-offer.ts).
      if (offerChanged(offeredUnder, state.policy, toolDefs.keys())) ctx.toClient(TOOLS_LIST_CHANGED);
      offeredUnder = state.policy;
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

  // Read by onReloaded, which runs only after policy.watch() below.
  const startedSandbox = sandboxSection(initial.state.policy.document);
  let offeredUnder = initial.state.policy;
  let launch: ServerLaunchPlan | null = null;
  let child: ChildProcess;
  try {
    launch = await options.launch(initial.state.policy, {
      connection: (d) =>
        d.allowed
          ? audit.event('mcp.sandbox_allowed', { host: d.host, port: d.port })
          : audit.event('mcp.sandbox_denied', { kind: 'connect', host: d.host, port: d.port, reason: d.reason, count: d.count, window_start: d.windowStart, window_ms: d.windowMs }),
    });
    child = await startServer(launch);
  } catch (error) {
    await launch?.finish().catch(() => null);
    // Before the launch exists the error is the sandbox's (it names its fix); after, the spawn's.
    const reason = `cannot start the MCP server "${options.command}": ${launch === null ? (error as Error).message : describeSpawnError(error)}`;
    options.log(`silas proxy: ${reason}`);
    audit.event('mcp.proxy_start_failed', { command: options.command, reason });
    return { code: 1, reason, notStarted: { reason, fix: 'correct the server command or the policy\'s x-silas-sandbox grants (see docs/mcp-sandbox.md), then restart this server in your MCP client' } };
  }
  if (launch.summary.backend === 'none') options.log(`silas proxy: warning: the MCP server runs UNSANDBOXED (${launch.summary.unsandboxedReason ?? 'no reason given'}): it can read your files, use the network and reach your keyring`);
  audit.event('mcp.proxy_started', { command: options.command, args: [...options.args], pid: child.pid, policy_name: initial.state.policy.name, policy_hash: initial.state.policy.hash, policy_file: options.policyFile, sandbox: launch.summary, ...(options.allowUnsigned ? { allow_unsigned: true as const } : {}) });
  policy.watch();

  let stopping = false;
  const forwarded = new Map<string, Forwarded>();
  const asking = new Map<string, AskInFlight>();
  const ctx: ProxyContext = {
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
    announcedHashes: new Map(),
    forwarded,
    asking,
    stopped: () => stopping,
    toServer: (line) => audit.afterCommit(() => writeServer(line)),
    toClient: (line) => audit.afterCommit(() => writeClient(line)),
    log: options.log,
  };
  const writeServer = coalesce((text) => {
    if (child.stdin?.writable) child.stdin.write(`${text}\n`);
  });
  const writeClient = coalesce(options.writeClient);
  const dropped = (error: unknown) => options.log(`silas proxy: the audit entry could not be recorded, message dropped: ${(error as Error).stack ?? String(error)}`);
  /** One chunk of input: its messages' entries are committed together, then their effects run (DESIGN invariant 3). */
  const inBatch = (fn: () => void) => audit.batch(fn, dropped);
  const perMessage = (handle: (line: string) => void) => (line: string) => {
    audit.message();
    safely(ctx, () => handle(line));
  };
  // EPIPE when the server dies mid-write is reported by 'close', not here.
  child.stdin?.on('error', () => undefined);

  const fromServer = new LineSplitter(perMessage((line) => handleServerLine(ctx, line)), undefined, () => options.log(`silas proxy: dropped an oversized line from ${options.server}`));
  child.stdout?.on('data', (chunk: Buffer) => inBatch(() => fromServer.push(chunk)));
  relayStderr(child, ctx);

  const fromClient = new LineSplitter(
    perMessage((line) => {
      noteAnnouncedRoots(pathBases, line, options.log);
      handleClientLine(ctx, line);
    }),
    undefined,
    () => ctx.toClient(errorLine(null, { code: -32700, message: 'Parse error', data: { reason: 'line too long' } })),
  );
  const onData = (chunk: Buffer | string) => inBatch(() => fromClient.push(chunk));
  let clientClosed = false;
  const onEnd = () => {
    if (clientClosed) return;
    clientClosed = true;
    inBatch(() => {
      fromClient.end();
      // Nobody waits for these calls any more: their questions leave Review now, and they never run.
      for (const key of [...asking.keys()]) withdrawAsk(ctx, key, { reason: 'client_closed' });
    });
    void stopServer(child, options.graceMs ?? 2000);
  };
  options.input.on('data', onData);
  options.input.on('end', onEnd);
  options.input.on('close', onEnd);
  void options.stopSignal?.then((signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal as NodeJS.Signals);
  });

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  inBatch(() => fromServer.end());
  const limits = await launch.finish().catch((error: unknown) => {
    options.log(`silas proxy: could not read the sandbox's limits: ${(error as Error).message}`);
    return null;
  });
  stopping = true;
  policy.stop();
  options.input.off('data', onData);
  options.input.off('end', onEnd);
  options.input.off('close', onEnd);
  (options.input as NodeJS.ReadableStream & { pause?: () => void }).pause?.();

  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const reason = clientClosed ? `the client closed its input; the MCP server ${how}` : `the MCP server ${how}`;
  const pending = [...forwarded.values()].map((f) => f.id);
  for (const key of [...asking.keys()]) {
    withdrawAsk(ctx, key, { reason: clientClosed ? 'client_closed' : 'proxy_stopped' });
    pending.push(key.startsWith('n:') ? Number(key.slice(2)) : key.slice(2));
  }
  audit.event('mcp.proxy_stopped', { reason, exit_code: exit.code ?? undefined, signal: exit.signal ?? undefined, failed_pending: pending.length, limits: limits ? { ...limits } : undefined });
  if (!clientClosed) {
    for (const id of pending) ctx.toClient(errorLine(id, { code: SERVER_GONE, message: 'MCP server unavailable', data: { reason: `${reason} before answering` } }));
  }
  forwarded.clear();
  asking.clear();
  options.approver.close?.();
  options.log(`silas proxy: stopped: ${reason}`);
  const crashed = exit.signal !== null || (exit.code ?? 0) !== 0;
  return { code: clientClosed || !crashed ? 0 : 1, reason };
}

/**
 * Lines written in one synchronous run (one chunk of input, often many messages when calls
 * are in flight) leave in one write: a write per message was a sixth of the proxy's CPU time.
 * Order is kept; the flush happens before any I/O callback can run.
 */
function coalesce(write: (text: string) => void): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    const lines = pending;
    pending = [];
    write(lines.join('\n'));
  };
  return (line) => {
    if (pending.push(line) === 1) queueMicrotask(flush);
  };
}

function sandboxSection(document: JsonObject): string {
  const spec = document.spec;
  return JSON.stringify(spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec[SANDBOX_KEY] ?? null) : null);
}

/** An exception while handling one message is a bug; it must not kill the relay or pass the message. */
function safely(ctx: ProxyContext, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    ctx.log(`silas proxy: internal error, message dropped: ${(error as Error).stack ?? String(error)}`);
  }
}

function startServer(launch: ServerLaunchPlan): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // No shell: arguments reach the server exactly as given, and nothing is interpreted.
    const child = spawn(launch.file, launch.args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false, env: launch.env, windowsHide: true });
    child.once('error', reject);
    child.once('spawn', () => {
      child.off('error', reject);
      child.on('error', () => undefined);
      resolve(child);
    });
  });
}

function describeSpawnError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such command (check the path, or that it is on PATH)';
  if (code === 'EACCES') return 'permission denied (is it executable?)';
  return (error as Error).message;
}

/** Closing stdin is the MCP way to ask a stdio server to exit; then SIGTERM, then SIGKILL. */
async function stopServer(child: ChildProcess, graceMs: number): Promise<void> {
  child.stdin?.end();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const wait = (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref());
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (await Promise.race([exited.then(() => true), wait(graceMs)])) return;
  child.kill('SIGTERM');
  if (await Promise.race([exited.then(() => true), wait(graceMs)])) return;
  child.kill('SIGKILL');
}

/** The server's stderr goes to the proxy's stderr, line by line, through filter_stderr. */
function relayStderr(child: ChildProcess, ctx: ProxyContext): void {
  const emit = (line: string) => {
    const dlp = ctx.state().dlp;
    if (!dlp) return ctx.log(line);
    const filtered = dlp.filterStderr(line);
    if (filtered.redacted) ctx.audit.dlp('downstream', 'stderr', filtered.events);
    ctx.log(filtered.output);
  };
  const lines = new LineSplitter((line) => safely(ctx, () => emit(line)), 64 * 1024, () => ctx.log('silas proxy: dropped an oversized stderr line from the server'));
  child.stderr?.on('data', (chunk: Buffer) => lines.push(chunk));
  child.stderr?.on('end', () => lines.end());
}

/** The proxy's pins, sealed with the ledger key; pins from before seals are sealed at the first start after the upgrade. */
function pinsOf(options: Pick<ProxyOptions, 'db' | 'seals'>): ToolPinRepository {
  const pins = new ToolPinRepository(options.db, toolPinSealer(options.seals));
  sealPinsFromBeforeSeals(pins, options.seals);
  return pins;
}
