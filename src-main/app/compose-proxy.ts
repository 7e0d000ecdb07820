import { KeyringStandingGrants } from '../approvals/standing-grants.js';
import type { SecretStore } from '../keys/secret-store.js';
import { existsSync } from 'node:fs';
import { ControlSocketApprover } from '../control/socket-asker.js';
import { homePaths } from '../home/paths.js';
import { UnreachableApprover, type Approver } from '../mcp/proxy/approver.js';
import { runProxy, type ProxyExit, type ProxyOptions } from '../mcp/proxy/proxy.js';
import { IDLE_CHECKPOINT_MS, openLedger } from './ledger.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { PolicyVersionRepository } from '../store/repositories/policy-versions.js';
import { sandboxedLauncher, unsandboxedLauncher } from '../mcp/sandbox/server-launcher.js';
import { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, probeBubblewrap } from '../silas/sandbox/bubblewrap.js';
import { detectRunLimiter } from '../silas/sandbox/run-limits.js';

/** What the command decides; the ledger, the keys and the home's approver are composed here. */
export type ProxyForHomeOptions = Omit<ProxyOptions, 'db' | 'audit' | 'trustedKeys' | 'seals' | 'savedVersions' | 'standingGrants' | 'approver' | 'dataHome' | 'launch'> & {
  secretStore: SecretStore;
  /** `--no-sandbox`: the server runs as the person, recorded as such (issue 12). */
  noSandbox?: boolean;
  /** Tests inject one; default: the home's control-socket approver. */
  approver?: Approver;
};

/**
 * Composition of `silas proxy` (docs/architecture.md §3: commands stay thin, app/ composes).
 * Every decision is recorded before it takes effect, and the ledger can be written only with the
 * keyring's keys: without them the proxy refuses to start, saying which keyring to unlock.
 */
export async function runProxyForHome(home: string, options: ProxyForHomeOptions): Promise<ProxyExit> {
  const { secretStore, approver, noSandbox, ...proxy } = options;
  const environment = proxy.env ?? process.env;
  const secrets = new NamedSecrets(secretStore);
  const launch = noSandbox
    ? unsandboxedLauncher(proxy.command, proxy.args, environment, 'started with --no-sandbox')
    : sandboxedLauncher({
        command: proxy.command,
        args: proxy.args,
        policyFile: proxy.policyFile,
        homeDir: proxy.homeDir,
        dataHome: home,
        cwd: proxy.cwd,
        environment,
        availability: () => probeBubblewrap(DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH),
        limiter: () => detectRunLimiter(),
        secrets: (refs) => secrets.resolveEnvironment(Object.fromEntries(refs)).env,
      });
  const ledger = openLedger(home, { create: false, keys: 'signer', secretStore, idleCheckpointMs: IDLE_CHECKPOINT_MS, onCheckpointError: (error) => proxy.log(`silas proxy: ${(error as Error).message}`) });
  try {
    // Only the owner key in the keyring authorises anything; keys in the database never do.
    const trusted = ledger.trustedKeys();
    const versions = new PolicyVersionRepository(ledger.db);
    return await runProxy({
      ...proxy,
      db: ledger.db,
      audit: ledger.audit,
      trustedKeys: () => trusted,
      // Only the policy the owner last put in force for this path is enforced (docs/mcp-proxy.md "Signed policies").
      seals: ledger.seals,
      savedVersions: () => versions.list(proxy.policyFile, 100),
      standingGrants: new KeyringStandingGrants(secretStore, home),
      approver: approver ?? approverForHome(home, proxy.askTimeoutMs),
      dataHome: home,
      launch,
    });
  } finally {
    ledger.close();
  }
}

/**
 * The approver for a data home: the running control center over HOME/control.sock when it
 * exists, else an approver that fails closed at once with the reason.
 */
export function approverForHome(home: string, askTimeoutMs: number): Approver {
  const socket = homePaths(home).controlSocket;
  if (process.platform !== 'win32' && !existsSync(socket)) return new UnreachableApprover();
  return new ControlSocketApprover(home, askTimeoutMs);
}
