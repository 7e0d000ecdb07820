import { KeyringStandingGrants } from '../approval/standing/grants.js';
import type { SecretStore } from '../keys/secret-store.js';
import { existsSync } from 'node:fs';
import { ControlSocketApprover } from '../control/socket-asker.js';
import { homePaths } from '../home/paths.js';
import { UnreachableApprover, type Approver } from '../mcp/proxy/approver.js';
import { runProxy, type ProxyExit, type ProxyOptions } from '../mcp/proxy/proxy.js';
import { IDLE_CHECKPOINT_MS, openHome } from './home.js';
import { failProxyStart } from './proxy-start-failure.js';
import { answerStartFailure } from '../mcp/proxy/start-failure.js';
import type { SessionBus } from '../keys/session-bus.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import { PolicyVersionRepository } from '../store/repositories/policy-versions.js';
import { sandboxedLauncher, unsandboxedLauncher } from '../mcp/sandbox/server-launcher.js';
import { DEFAULT_BWRAP_PATH, DEFAULT_PRLIMIT_PATH, probeBubblewrap } from '../sandbox/bubblewrap.js';
import { detectRunLimiter } from '../sandbox/run-limits.js';

/** What the command decides; the ledger, the keys and the home's approver are composed here. */
export type ProxyForHomeOptions = Omit<ProxyOptions, 'db' | 'audit' | 'trustedKeys' | 'seals' | 'savedVersions' | 'standingGrants' | 'approver' | 'dataHome' | 'launch'> & {
  secretStore: SecretStore;
  /** `--no-sandbox`: the server runs as the person, recorded as such (docs/mcp-sandbox.md). */
  noSandbox?: boolean;
  /** Tests inject one; default: the home's control-socket approver. */
  approver?: Approver;
  /** The session bus the process entry found for the keyring (Linux), named when the keyring cannot be reached. */
  sessionBus?: SessionBus;
};

/**
 * Composition of `silas proxy` (docs/architecture.md §3: commands stay thin, app/ composes).
 * Every decision is recorded before it takes effect, and the ledger can be written only with the
 * keyring's keys: without them the proxy refuses to start, saying which keyring to unlock.
 */
export async function runProxyForHome(home: string, options: ProxyForHomeOptions): Promise<ProxyExit> {
  const { secretStore, approver, noSandbox, sessionBus, ...proxy } = options;
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
  let ledger: ReturnType<typeof openHome>;
  try {
    ledger = openHome(home, { create: false, keys: 'signer', secretStore, idleCheckpointMs: IDLE_CHECKPOINT_MS, onCheckpointError: (error) => proxy.log(`silas proxy: ${(error as Error).message}`) });
  } catch (error) {
    // Without the ledger nothing may run; the client still hears why (docs/mcp-proxy.md "Starting under any client").
    return failProxyStart({ home, error, ...(sessionBus ? { sessionBus } : {}), options: proxy });
  }
  try {
    // Only the owner key in the keyring authorises anything; keys in the database never do.
    const trusted = ledger.trustedKeys();
    const versions = new PolicyVersionRepository(ledger.db);
    const exit = await runProxy({
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
    // A proxy that started nothing still owes its client the reason (docs/mcp-proxy.md "Starting under any client").
    if (exit.notStarted) await answerStartFailure({ input: proxy.input, writeClient: proxy.writeClient, message: `silas proxy did not start "${proxy.server}": ${exit.notStarted.reason}. To fix: ${exit.notStarted.fix}. This is recorded in Silas's ledger.`, ...(proxy.stopSignal ? { stopSignal: proxy.stopSignal } : {}) });
    return exit;
  } finally {
    ledger.close();
  }
}

/**
 * The approver for a data home: the running control center over HOME/control.sock when it
 * exists, else an approver that fails closed at once with the reason.
 */
function approverForHome(home: string, askTimeoutMs: number): Approver {
  const socket = homePaths(home).controlSocket;
  if (process.platform !== 'win32' && !existsSync(socket)) return new UnreachableApprover();
  return new ControlSocketApprover(home, askTimeoutMs);
}
