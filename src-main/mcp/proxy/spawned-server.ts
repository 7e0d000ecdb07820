import { spawn, type ChildProcess } from 'node:child_process';
import { LineSplitter } from '../../../src-shared/contract/ndjson.js';
import type { ServerSandboxSummary } from '../../../src-shared/schemas/server-sandbox.js';
import type { AgentPolicy } from '../../aip/policy/types.js';
import type { ServerLauncher, ServerLaunchPlan } from '../sandbox/server-launcher.js';
import { coalesce } from './coalesce.js';
import type { ServerExit, ServerSide } from './transport.js';

export interface SpawnedServerOptions {
  /** The server's name in the proxy's log lines. */
  name: string;
  /** How it is started: in its sandbox or unsandboxed for a recorded reason (docs/mcp-sandbox.md). */
  launch: ServerLauncher;
  /** The policy in force at start: mounts, environment and network are fixed from it. */
  policy: AgentPolicy;
  /** What the sandbox's boundary reports, for the ledger. */
  events: Parameters<ServerLauncher>[1];
  /** How long the server gets after its stdin closes, and again after SIGTERM. */
  graceMs: number;
  log: (text: string) => void;
}

/**
 * The MCP server as a child process speaking MCP stdio, started through its sandbox launch
 * (mcp/sandbox/server-launcher.ts). Each chunk of its stdout is one batch; its stderr goes
 * to `onLog` line by line.
 */
export class SpawnedServer implements ServerSide {
  onLine?: (line: string) => void;
  onBatch?: (deliver: () => void) => void;
  onLog?: (line: string) => void;
  onClose?: (exit: ServerExit) => void;

  private plan: ServerLaunchPlan | null = null;
  private child: ChildProcess | null = null;
  private readonly write = coalesce((text) => {
    if (this.child?.stdin?.writable) this.child.stdin.write(`${text}\n`);
  });

  constructor(private readonly options: SpawnedServerOptions) {}

  /** The process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** What the server can reach, once started. */
  get sandbox(): ServerSandboxSummary | null {
    return this.plan?.summary ?? null;
  }

  /**
   * Launches and spawns the server. Its output is read from here on, but no line can be
   * delivered before the next I/O turn, so callbacks installed right after this resolves miss
   * nothing (proxy.ts installs the session there, once the start is in the ledger).
   */
  async start(): Promise<void> {
    try {
      this.plan = await this.options.launch(this.options.policy, this.options.events);
      this.child = await spawnServer(this.plan);
    } catch (error) {
      const plan = this.plan;
      this.plan = null;
      await plan?.finish().catch(() => null);
      // Before the launch exists the error is the sandbox's (it names its fix); after, the spawn's.
      throw new Error(plan === null ? (error as Error).message : describeSpawnError(error));
    }
    this.relay(this.child, this.plan);
  }

  send(line: string): void {
    this.write(line);
  }

  stop(signal?: string): void {
    const child = this.child;
    if (!child) return;
    if (signal === undefined) return void stopGently(child, this.options.graceMs);
    if (child.exitCode === null && child.signalCode === null) child.kill(signal as NodeJS.Signals);
  }

  private relay(child: ChildProcess, plan: ServerLaunchPlan): void {
    const { log, name } = this.options;
    const batch = (deliver: () => void) => (this.onBatch ? this.onBatch(deliver) : deliver());
    // EPIPE when the server dies mid-write is reported by 'close', not here.
    child.stdin?.on('error', () => undefined);
    const out = new LineSplitter((line) => this.onLine?.(line), undefined, () => log(`silas proxy: dropped an oversized line from ${name}`));
    child.stdout?.on('data', (chunk: Buffer) => batch(() => out.push(chunk)));
    const err = new LineSplitter((line) => this.onLog?.(line), 64 * 1024, () => log('silas proxy: dropped an oversized stderr line from the server'));
    child.stderr?.on('data', (chunk: Buffer) => err.push(chunk));
    child.stderr?.on('end', () => err.end());
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      batch(() => out.end());
      void plan
        .finish()
        .catch((error: unknown) => {
          log(`silas proxy: could not read the sandbox's limits: ${(error as Error).message}`);
          return null;
        })
        .then((limits) => {
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          this.onClose?.({ how, crashed: signal !== null || (code ?? 0) !== 0, record: { exit_code: code ?? undefined, signal: signal ?? undefined, limits: limits ? { ...limits } : undefined } });
        });
    });
  }
}

function spawnServer(plan: ServerLaunchPlan): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    // No shell: arguments reach the server exactly as given, and nothing is interpreted.
    const child = spawn(plan.file, plan.args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false, env: plan.env, windowsHide: true });
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
async function stopGently(child: ChildProcess, graceMs: number): Promise<void> {
  child.stdin?.end();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const wait = (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms).unref());
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (await Promise.race([exited.then(() => true), wait(graceMs)])) return;
  child.kill('SIGTERM');
  if (await Promise.race([exited.then(() => true), wait(graceMs)])) return;
  child.kill('SIGKILL');
}
