import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentPolicy } from '../../aip/policy/types.js';
import type { ServerSandboxSummary } from '../../../src-shared/schemas/server-sandbox.js';
import type { RunLimiter, RunLimitReport } from '../../sandbox/run-limits.js';
import type { SandboxAvailability } from '../../sandbox/types.js';
import { EgressProxy } from './egress/egress-proxy.js';
import { egressOf, prepareSandboxedServer, SandboxSetupError, unsandboxedSummary } from './server-sandbox.js';
import { INSTALL_HINT } from '../../sandbox/bubblewrap.js';

/*
 * How `silas proxy` starts its server (docs/mcp-sandbox.md "`--no-sandbox` and a missing backend"):
 * in a bubblewrap sandbox built from the policy by default; without one only when the person said
 * `--no-sandbox`, and then the ledger and the Servers page say so. A missing backend is never a
 * silent downgrade: the proxy refuses.
 */

/** One started server's program, arguments, environment and what its sandbox allows. */
export interface ServerLaunchPlan {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  summary: ServerSandboxSummary;
  /** After the server exits: stops the egress proxy, reads and removes the cgroup. */
  finish(): Promise<RunLimitReport | null>;
}

/** What the sandbox's boundary reports, for the ledger. */
interface SandboxEvents {
  /** A refusal's `count` and window: several refusals of one host in one entry (egress/refusal-window.ts). */
  connection(decision: { allowed: boolean; host: string; port: number; reason: string; count?: number; windowStart?: string; windowMs?: number }): void;
}

export type ServerLauncher = (policy: AgentPolicy, events: SandboxEvents) => Promise<ServerLaunchPlan>;

export interface SandboxedLauncherOptions {
  command: string;
  args: readonly string[];
  policyFile: string;
  homeDir: string;
  dataHome: string;
  cwd: string;
  environment: NodeJS.ProcessEnv;
  availability: () => Promise<SandboxAvailability>;
  limiter: () => RunLimiter;
  secrets: (refs: ReadonlyMap<string, string>) => Record<string, string>;
}

/** The server runs as the person, with everything the person has: recorded with its reason. */
export function unsandboxedLauncher(command: string, args: readonly string[], environment: NodeJS.ProcessEnv, reason: string): ServerLauncher {
  return () => Promise.resolve({ file: command, args: [...args], env: environment, summary: unsandboxedSummary(reason), finish: () => Promise.resolve(null) });
}

export function sandboxedLauncher(options: SandboxedLauncherOptions): ServerLauncher {
  return async (policy, events) => {
    const availability = await options.availability();
    if (!availability.available) {
      throw new SandboxSetupError(`cannot sandbox the MCP server: ${availability.reason ?? 'no sandbox backend'}. To fix, ${INSTALL_HINT}, or run it unsandboxed with --no-sandbox (recorded in the ledger and shown on the Servers page)`);
    }
    const { hosts, loopbackPorts } = egressOf(policy.sandbox);
    let egress: EgressProxy | null = null;
    let socketDir: string | null = null;
    const cleanup = async () => {
      await egress?.close();
      if (socketDir !== null) rmSync(socketDir, { recursive: true, force: true });
    };
    try {
      if (hosts.length > 0 || loopbackPorts.length > 0) {
        // A folder of its own, so the sandbox's read-only view of it holds nothing but the socket.
        socketDir = mkdtempSync(join(tmpdir(), 'silas-egress-'));
        egress = await EgressProxy.start({ socketPath: join(socketDir, 'egress.sock'), allow: hosts, loopbackPorts, onDecision: (decision) => events.connection(decision) });
      }
      const launch = prepareSandboxedServer({
        command: options.command,
        args: options.args,
        sandbox: policy.sandbox,
        protectedPaths: policy.protectedPaths,
        policyFile: options.policyFile,
        homeDir: options.homeDir,
        dataHome: options.dataHome,
        cwd: options.cwd,
        environment: options.environment,
        availability,
        limiter: options.limiter(),
        secrets: options.secrets,
        egressSocket: egress?.address,
      });
      return {
        file: launch.file,
        args: launch.args,
        env: launch.env,
        summary: launch.summary,
        finish: async () => {
          await cleanup();
          return launch.cgroup ? await launch.cgroup.finish() : null;
        },
      };
    } catch (error) {
      await cleanup();
      throw error;
    }
  };
}
