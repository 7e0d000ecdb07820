import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { ErrorCode, isSilasError } from '../../../src-shared/errors.js';
import { defaultCockpitDir } from '../../app/config.js';
import { homePaths, resolveHome, type HomePaths } from '../../home/paths.js';
import type { CliContext, CliDatabase, Ledger, SecretStore } from '../../app/cli-context.js';
import { parseFlags } from '../args.js';
import type { CliIo, Command } from '../io.js';
import { desktopAvailability } from '../desktop-launcher.js';

const usage = `Usage: silas doctor [--home DIR] [--json]

Checks what Silas needs on this machine — Node, the OS keyring, the data home and its
database, sandbox support, Electron and the cockpit build — and says how to fix each problem.
The keyring is checked as this shell reaches it: on Linux through the D-Bus session in
DBUS_SESSION_BUS_ADDRESS, which may not be the session a running runtime uses.

Exit status:
  0  nothing required is missing; warnings (!) may remain. A keyring or owner key this shell
     cannot reach while the runtime for this home is running is a warning: the runtime has its
     own session and may well be fine — run doctor from that session to check it.
  1  a problem of the installation itself (✗): Node too old, no sandbox, cockpit not built,
     no data home or a damaged database or audit chain, or no keyring holding the owner key
     reachable while no runtime for this home is running (\`silas start\` here would fail).
  2  a usage error.`;

export type CheckStatus = 'ok' | 'warn' | 'fail';
export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

function checkNode(): CheckResult {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const ok = major > 20 || (major === 20 && minor >= 19);
  return ok ? { name: 'node', status: 'ok', detail: `Node ${process.versions.node}` } : { name: 'node', status: 'fail', detail: `Node ${process.versions.node}`, fix: 'install Node 20.19 or newer' };
}

/** What this shell can reach, and whether a runtime for the home is running (it may reach more). */
interface Reach {
  /** Why the keyring failed from this shell and the keyring's own advice; null when it worked. */
  keyringError: { reason: string; fix: string } | null;
  runtime: RuntimeState;
  /** This shell's D-Bus session as the keyring library sees it (Linux), for messages. */
  shellBus: string;
  /** The runtime was started on this shell's D-Bus session, so it reaches the same keyring. */
  sameSession: boolean;
}

function describeShellBus(env: NodeJS.ProcessEnv, found: CliIo['sessionBus']): string {
  if (process.platform !== 'linux') return '';
  // The process entry looked for the bus as libdbus does when none was given (keys/session-bus.ts).
  if (found?.source === 'discovered') return `D-Bus session ${found.address} (found on disk: DBUS_SESSION_BUS_ADDRESS was not set${found.replaced ? ` or named a socket that no longer exists, ${found.replaced}` : ''})`;
  if (found?.source === 'none') return `no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set${found.replaced ? ` or names a socket that no longer exists (${found.replaced})` : ''}${found.tried.length > 0 ? `; looked for ${found.tried.join('; ')}` : ''}`;
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (address) return `D-Bus session ${address}`;
  const fallback = env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'bus') : null;
  return `DBUS_SESSION_BUS_ADDRESS is not set${fallback ? `; the default bus ${fallback} ${existsSync(fallback) ? 'exists' : 'does not exist'}` : ''}`;
}

function probeKeyring(store: SecretStore): Reach['keyringError'] {
  const account = `doctor-probe-${process.pid}`;
  try {
    store.set(account, 'probe');
    const back = store.get(account);
    store.delete(account);
    return back === 'probe' ? null : { reason: 'the keyring did not return what was stored', fix: 'unlock or restart the OS keyring' };
  } catch (error) {
    const [reason, fix] = (error as Error).message.split('. To fix: ');
    return { reason: reason!, fix: fix ?? 'unlock or start the OS keyring' };
  }
}

function runtimeSummary(runtime: RuntimeState & { state: 'running' }): string {
  const bus = runtime.bus ? ` on D-Bus session ${runtime.bus}` : '';
  return `the runtime for this home is running (pid ${runtime.pid}${runtime.url ? `, ${runtime.url}` : ''})${bus}`;
}

function howToCheckFromRuntimeSession(home: string, runtime: RuntimeState & { state: 'running' }, sameSession: boolean): string {
  if (sameSession) return 'the runtime uses this same D-Bus session, so its keyring was locked or stopped after it started: unlock it (or restart the keyring daemon) before the next `silas start`';
  return runtime.bus && process.platform === 'linux'
    ? `to check the keyring the runtime uses, run \`DBUS_SESSION_BUS_ADDRESS=${quote([runtime.bus])} silas doctor --home ${quote([home])}\``
    : 'to check the keyring the runtime uses, run `silas doctor` in the session (terminal or desktop login) that started it';
}

function checkKeyring(home: string, store: SecretStore, reach: Reach): CheckResult {
  const where = reach.shellBus ? ` (${reach.shellBus})` : '';
  if (reach.keyringError === null) return { name: 'keyring', status: 'ok', detail: `${store.description} reachable from this shell${where}` };
  const unreachable = `${store.description} is not reachable from this shell${where}: ${reach.keyringError.reason}`;
  const { runtime } = reach;
  if (runtime.state === 'running') {
    return {
      name: 'keyring',
      status: 'warn',
      detail: reach.sameSession
        ? `${unreachable}. ${runtimeSummary(runtime)}, the same session: it loaded its keys when it started and may well be fine, but a restart would fail until the keyring is back`
        : `${unreachable}. ${runtimeSummary(runtime)} with its own keyring connection, so it may well be fine; this shell just cannot check it`,
      fix: howToCheckFromRuntimeSession(home, runtime, reach.sameSession),
    };
  }
  return {
    name: 'keyring',
    status: 'fail',
    detail: `${unreachable}; no runtime is running for this home (${runtime.why}), so \`silas start\` from here could not sign`,
    fix: `${reach.keyringError.fix}; or, if Silas runs in another session (a desktop login, a dbus-run-session), run \`silas doctor\` there`,
  };
}

function checkOwnerKey(ledger: Ledger, home: string, reach: Reach): CheckResult {
  if (ledger.signer) return { name: 'owner key', status: 'ok', detail: `${ledger.signer.fingerprint} in the OS keyring` };
  const { runtime } = reach;
  if (runtime.state === 'running' && !reach.sameSession) {
    return {
      name: 'owner key',
      status: 'warn',
      detail: `the keyring this shell reaches does not hold the owner key ${ledger.ownerFingerprint}; ${runtimeSummary(runtime)} and may use another keyring`,
      fix: howToCheckFromRuntimeSession(home, runtime, false),
    };
  }
  return { name: 'owner key', status: 'fail', detail: `the owner key ${ledger.ownerFingerprint} is not in the keyring this shell reaches`, fix: 'unlock the keyring that holds it; `silas start` needs it to sign' };
}

function checkChain(ledger: Ledger): CheckResult {
  const chain = ledger.audit.verifyChain();
  if (!chain.valid) {
    return { name: 'audit chain', status: 'fail', detail: `broken at entry ${chain.firstInvalid!.index}: ${chain.firstInvalid!.reason}`, fix: 'investigate who modified silas.db; `silas audit export` keeps a copy of what remains' };
  }
  return { name: 'audit chain', status: 'ok', detail: `${chain.entries} entries, ${chain.checkpoints} signed checkpoints intact` };
}

function checkDatabase(paths: HomePaths, integrity: string): CheckResult {
  return integrity === 'ok'
    ? { name: 'database', status: 'ok', detail: `${paths.database} (schema current, integrity ok)` }
    : { name: 'database', status: 'fail', detail: `integrity check: ${integrity}`, fix: 'restore silas.db from a backup' };
}

/**
 * Without the keyring only the database file can be checked: the chain is verified with keys
 * that live in the keyring alone, and a key read from silas.db would prove nothing (whoever can
 * write the database can replace it).
 */
function checkHomeWithoutKeyring(paths: HomePaths, database: CliDatabase): CheckResult[] {
  const notChecked = 'not checked from this shell, because the keyring is not reachable from it (see keyring)';
  let file: CheckResult;
  try {
    file = checkDatabase(paths, database.fileIntegrity());
  } catch (error) {
    file = { name: 'database', status: 'fail', detail: (error as Error).message };
  }
  return [file, { name: 'audit chain', status: 'warn', detail: `${notChecked}; it needs the ledger keys held there`, fix: 'run `silas audit verify` where the keyring is reachable' }, { name: 'owner key', status: 'warn', detail: notChecked }];
}

async function checkHome(cli: CliContext, reach: Reach): Promise<CheckResult[]> {
  const { home } = cli;
  const paths = homePaths(home);
  if (!existsSync(paths.database)) {
    return [{ name: 'home', status: 'fail', detail: `no Silas home at ${home}`, fix: `run \`silas init --home ${home}\`` }];
  }
  const database = await cli.database();
  if (reach.keyringError !== null) return checkHomeWithoutKeyring(paths, database);
  try {
    const ledger = database.openHome({ create: false, keys: 'verify' });
    try {
      return [checkDatabase(paths, database.integrity(ledger)), ...checkKeyed(ledger, home, reach)];
    } finally {
      ledger.close();
    }
  } catch (error) {
    return [{ name: 'database', status: 'fail', detail: (error as Error).message }];
  }
}

/** The checks that need the home's keys: a reachable keyring that lacks them is reported, not thrown. */
function checkKeyed(ledger: Ledger, home: string, reach: Reach): CheckResult[] {
  const owner = checkOwnerKey(ledger, home, reach);
  try {
    return [checkChain(ledger), owner];
  } catch (error) {
    if (!isSilasError(error) || (error.code !== ErrorCode.KeyMissing && error.code !== ErrorCode.Keyring)) throw error;
    return [{ name: 'audit chain', status: owner.status === 'ok' ? 'fail' : owner.status, detail: `not verified: ${error.message}` }, owner];
  }
}

function checkSandbox(): CheckResult {
  if (process.platform === 'darwin') {
    return existsSync('/usr/bin/sandbox-exec') ? { name: 'sandbox', status: 'ok', detail: 'sandbox-exec (Seatbelt)' } : { name: 'sandbox', status: 'fail', detail: 'sandbox-exec not found', fix: 'Silas needs macOS Seatbelt (sandbox-exec)' };
  }
  if (process.platform !== 'linux') return { name: 'sandbox', status: 'warn', detail: `no sandbox backend for ${process.platform} yet; agent execution will be refused (fail closed)` };
  const probe = spawnSync('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.error) return { name: 'sandbox', status: 'fail', detail: 'bubblewrap (bwrap) is not installed', fix: 'apt-get install bubblewrap (or your distribution\'s bubblewrap package)' };
  if (probe.status !== 0) return { name: 'sandbox', status: 'fail', detail: `bwrap cannot create a sandbox: ${probe.stderr.trim().split('\n')[0]}`, fix: 'enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run as a user allowed to use them' };
  return { name: 'sandbox', status: 'ok', detail: 'bubblewrap works (network namespace available)' };
}

function checkCockpit(): CheckResult {
  const dir = defaultCockpitDir();
  return existsSync(join(dir, 'index.html')) ? { name: 'cockpit', status: 'ok', detail: `built at ${dir}` } : { name: 'cockpit', status: 'fail', detail: 'the cockpit is not built', fix: 'run `npm run build:cockpit` (npm start does it for you)' };
}

type RuntimeState = { state: 'running'; pid: number; url: string | null; bus: string | null } | { state: 'stopped' | 'stale'; why: string };

/** Reads HOME/control.json and checks that its pid is alive; never throws. */
function probeRuntime(home: string): RuntimeState {
  const file = homePaths(home).controlFile;
  if (!existsSync(file)) return { state: 'stopped', why: `no ${file}` };
  let control: { pid?: unknown; url?: unknown };
  try {
    control = JSON.parse(readFileSync(file, 'utf8')) as typeof control;
  } catch (error) {
    return { state: 'stale', why: `${file} is unreadable: ${(error as Error).message}` };
  }
  const pid = control.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return { state: 'stale', why: `${file} names no process` };
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else, so it is not this user's runtime.
    const gone = (error as NodeJS.ErrnoException).code === 'ESRCH' ? 'which has exited' : 'which is not this user\'s process';
    return { state: 'stale', why: `${file} names pid ${pid}, ${gone}` };
  }
  return { state: 'running', pid, url: typeof control.url === 'string' ? control.url : null, bus: runtimeBus(pid) };
}

/** The D-Bus session the runtime was started with (Linux, same user), so the fix can name it. */
function runtimeBus(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((variable) => variable.startsWith('DBUS_SESSION_BUS_ADDRESS='));
    return entry ? entry.slice('DBUS_SESSION_BUS_ADDRESS='.length) : null;
  } catch {
    return null;
  }
}

function checkRunning(runtime: RuntimeState): CheckResult {
  if (runtime.state === 'running') return { name: 'runtime', status: 'ok', detail: `running (pid ${runtime.pid})${runtime.url ? ` at ${runtime.url}` : ''}` };
  if (runtime.state === 'stopped') return { name: 'runtime', status: 'ok', detail: 'not running' };
  return { name: 'runtime', status: 'warn', detail: `stale control file: ${runtime.why}`, fix: 'it is removed on the next `silas start`' };
}

function machineChecks(env: NodeJS.ProcessEnv): CheckResult[] {
  const desktop = desktopAvailability(env);
  return [
    checkNode(),
    checkSandbox(),
    desktop.available ? { name: 'electron', status: 'ok', detail: 'desktop shell available' } : { name: 'electron', status: 'warn', detail: desktop.reason, fix: 'optional: `npm install electron` on a machine that can download its binary' },
    checkCockpit(),
  ];
}

export interface DoctorOptions {
  /** The checks of this machine that do not involve the keyring or the home (Node, sandbox, Electron, cockpit). */
  machineChecks?: (env: NodeJS.ProcessEnv) => CheckResult[];
  /** The session bus the process entry found (CliIo.sessionBus). */
  sessionBus?: CliIo['sessionBus'];
}

export async function runChecks(cli: CliContext, env: NodeJS.ProcessEnv, options: DoctorOptions = {}): Promise<CheckResult[]> {
  const { home, secretStore: store } = cli;
  const runtime = probeRuntime(home);
  const sameSession = runtime.state === 'running' && runtime.bus !== null && runtime.bus === env.DBUS_SESSION_BUS_ADDRESS;
  const reach: Reach = { keyringError: probeKeyring(store), runtime, shellBus: describeShellBus(env, options.sessionBus), sameSession };
  const machine = (options.machineChecks ?? machineChecks)(env);
  return [checkKeyring(home, store, reach), ...(await checkHome(cli, reach)), ...machine, checkRunning(runtime)];
}

/** 1 only for problems of the installation itself; warnings (a keyring only another session reaches) do not count. */
export function doctorExitCode(results: readonly CheckResult[]): number {
  return results.some((r) => r.status === 'fail') ? 1 : 0;
}

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

export const doctorCommand: Command = {
  name: 'doctor',
  usage,
  async run(argv, io, open) {
    const { values } = parseFlags(argv, { home: { type: 'string' }, json: { type: 'boolean' } }, usage);
    if (values.help) {
      io.out(usage);
      return 0;
    }
    const results = await runChecks(await open(resolveHome(values.home, io.env)), io.env, { sessionBus: io.sessionBus });
    if (values.json) io.out(JSON.stringify(results));
    else for (const r of results) io.out(`${MARK[r.status]} ${r.name}: ${r.detail}${r.fix ? ` — fix: ${r.fix}` : ''}`);
    return doctorExitCode(results);
  },
};
