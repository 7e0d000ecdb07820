import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCockpitDir } from '../../app/config.js';
import { openLedger } from '../../app/ledger.js';
import { homePaths, resolveHome } from '../../app/paths.js';
import { OsKeyring, type SecretStore } from '../../keys/secret-store.js';
import { parseFlags } from '../args.js';
import type { CliIo, Command } from '../io.js';
import { desktopAvailability } from '../desktop-launcher.js';

const usage = `Usage: silas doctor [--home DIR] [--json]

Checks what Silas needs on this machine — Node, the OS keyring, the data home and its
database, sandbox support, Electron and the cockpit build — and says how to fix each problem.
Exit 0 when nothing required is missing, 1 otherwise.`;

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

function checkKeyring(store: SecretStore): CheckResult {
  const account = `doctor-probe-${process.pid}`;
  try {
    store.set(account, 'probe');
    const back = store.get(account);
    store.delete(account);
    if (back !== 'probe') throw new Error('the keyring did not return what was stored');
    return { name: 'keyring', status: 'ok', detail: `${store.description} reachable` };
  } catch (error) {
    return { name: 'keyring', status: 'fail', detail: (error as Error).message.split('. To fix:')[0]!, fix: (error as Error).message.split('To fix: ')[1] ?? 'unlock or start the OS keyring' };
  }
}

function checkHome(home: string, store: SecretStore): CheckResult[] {
  const paths = homePaths(home);
  if (!existsSync(paths.database)) {
    return [{ name: 'home', status: 'fail', detail: `no Silas home at ${home}`, fix: `run \`silas init --home ${home}\`` }];
  }
  try {
    const ledger = openLedger(home, { create: false, keys: 'verify', secretStore: store });
    try {
      const integrity = ledger.db.pragma('quick_check', { simple: true });
      const chain = ledger.audit.verifyChain();
      const results: CheckResult[] = [
        integrity === 'ok' ? { name: 'database', status: 'ok', detail: `${paths.database} (schema current, integrity ok)` } : { name: 'database', status: 'fail', detail: `integrity check: ${String(integrity)}`, fix: 'restore silas.db from a backup' },
        chain.valid
          ? { name: 'audit chain', status: 'ok', detail: `${chain.entries} entries, ${chain.checkpoints} signed checkpoints intact` }
          : { name: 'audit chain', status: 'fail', detail: `broken at entry ${chain.firstInvalid!.index}: ${chain.firstInvalid!.reason}`, fix: 'investigate who modified silas.db; `silas audit export` keeps a copy of what remains' },
        ledger.signer
          ? { name: 'owner key', status: 'ok', detail: `${ledger.signer.fingerprint} in the OS keyring` }
          : { name: 'owner key', status: 'fail', detail: `the owner key ${ledger.ownerFingerprint} is not reachable in the OS keyring`, fix: 'unlock the keyring that holds it; `silas start` needs it to sign' },
      ];
      return results;
    } finally {
      ledger.close();
    }
  } catch (error) {
    return [{ name: 'database', status: 'fail', detail: (error as Error).message }];
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

function checkRunning(home: string): CheckResult {
  const file = homePaths(home).controlFile;
  if (!existsSync(file)) return { name: 'runtime', status: 'ok', detail: 'not running' };
  try {
    const { pid, url } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number; url: string };
    process.kill(pid, 0);
    return { name: 'runtime', status: 'ok', detail: `running (pid ${pid}) at ${url}` };
  } catch {
    return { name: 'runtime', status: 'warn', detail: `stale ${file} from a runtime that is gone`, fix: 'it is removed on the next `silas start`' };
  }
}

export function runChecks(home: string, env: NodeJS.ProcessEnv, store: SecretStore): CheckResult[] {
  const desktop = desktopAvailability(env);
  return [
    checkNode(),
    checkKeyring(store),
    ...checkHome(home, store),
    checkSandbox(),
    desktop.available ? { name: 'electron', status: 'ok', detail: 'desktop shell available' } : { name: 'electron', status: 'warn', detail: desktop.reason, fix: 'optional: `npm install electron` on a machine that can download its binary' },
    checkCockpit(),
    checkRunning(home),
  ];
}

const MARK: Record<CheckStatus, string> = { ok: '✓', warn: '!', fail: '✗' };

export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check this machine and data home, and say how to fix problems',
  usage,
  async run(argv: string[], io: CliIo) {
    const { values } = parseFlags(argv, { home: { type: 'string' }, json: { type: 'boolean' } }, usage);
    if (values.help) {
      io.out(usage);
      return 0;
    }
    const results = runChecks(resolveHome(values.home, io.env), io.env, io.secretStore ?? new OsKeyring());
    if (values.json) io.out(JSON.stringify(results));
    else for (const r of results) io.out(`${MARK[r.status]} ${r.name}: ${r.detail}${r.fix ? ` — fix: ${r.fix}` : ''}`);
    return results.some((r) => r.status === 'fail') ? 1 : 0;
  },
};
