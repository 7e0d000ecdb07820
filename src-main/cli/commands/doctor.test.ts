import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { openForCommand } from '../../app/cli-context.js';
import { openHome } from '../../app/home.js';
import { homePaths } from '../../home/paths.js';
import { MemorySecretStore, type SecretStore } from '../../keys/secret-store.js';
import { runSilasChild } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { doctorExitCode, runChecks, type CheckResult } from './doctor.js';

const tempDir = useTempDirs('silas-doctor-');
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill();
});

const SHELL_BUS = 'unix:path=/nonexistent/silas-doctor-test/bus';
const RUNTIME_BUS = 'unix:path=/tmp/silas-doctor-test-runtime-bus';

/** A keyring this shell cannot reach, failing the way OsKeyring does outside the keyring's D-Bus session. */
class UnreachableKeyring implements SecretStore {
  readonly description = 'Secret Service';
  private fail(): never {
    throw new SilasError(ErrorCode.Keyring, 'the OS keyring (Secret Service) is not reachable: Platform secure storage failure: D-Bus error. To fix: start a Secret Service keyring');
  }
  get(): string | null {
    return this.fail();
  }
  set(): void {
    this.fail();
  }
  delete(): boolean {
    return this.fail();
  }
}

/** An initialised home whose owner key lives in `store` (the keyring of the runtime's session). */
function initialisedHome(store: SecretStore = new MemorySecretStore()): string {
  const home = join(tempDir(), 'home');
  openHome(home, { create: true, keys: 'signer', secretStore: store }).close();
  return home;
}

/** A live process standing in for the runtime, started in another D-Bus session, recorded in control.json. */
async function runningRuntime(home: string, bus = RUNTIME_BUS): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { env: { DBUS_SESSION_BUS_ADDRESS: bus }, stdio: 'ignore' });
  started.push(child);
  await new Promise((resolve, reject) => child.once('spawn', resolve).once('error', reject));
  writeFileSync(homePaths(home).controlFile, JSON.stringify({ url: 'http://127.0.0.1:7420/', pid: child.pid }));
  return child.pid!;
}

/** Only what depends on the keyring, home and runtime: the machine checks (sandbox, cockpit build) vary by host. */
function checks(home: string, store: SecretStore, env: NodeJS.ProcessEnv = { DBUS_SESSION_BUS_ADDRESS: SHELL_BUS }): Promise<CheckResult[]> {
  return runChecks(openForCommand(home, { secretStore: store }), env, { machineChecks: () => [] });
}

function row(results: CheckResult[], name: string): CheckResult {
  const found = results.find((r) => r.name === name);
  expect(found, `no "${name}" check in ${JSON.stringify(results)}`).toBeDefined();
  return found!;
}

describe('silas doctor from a shell outside the keyring session', () => {
  it('warns, says what it tried and that the running runtime may well be fine, and exits 0', async () => {
    const home = initialisedHome();
    const pid = await runningRuntime(home);

    const results = await checks(home, new UnreachableKeyring());

    const keyring = row(results, 'keyring');
    expect(keyring.status).toBe('warn');
    expect(keyring.detail).toContain(`not reachable from this shell (D-Bus session ${SHELL_BUS})`);
    expect(keyring.detail).toContain(`the runtime for this home is running (pid ${pid}, http://127.0.0.1:7420/) on D-Bus session ${RUNTIME_BUS}`);
    expect(keyring.detail).toContain('may well be fine');
    // shell-quote escapes ':' and '=' one by one; the line still pastes into a POSIX shell as it is.
    expect(keyring.fix).toContain(`DBUS_SESSION_BUS_ADDRESS=${RUNTIME_BUS.replace(/[:=]/g, '\\$&')} silas doctor --home ${home}`);
    expect(row(results, 'owner key')).toMatchObject({ status: 'warn', detail: expect.stringContaining('not checked from this shell') });
    // Verifying with a key read from silas.db would prove nothing; it says so instead of claiming "intact".
    expect(row(results, 'audit chain')).toMatchObject({ status: 'warn', detail: expect.stringContaining('not checked from this shell') });
    expect(row(results, 'database').status).toBe('ok');
    expect(row(results, 'runtime')).toMatchObject({ status: 'ok', detail: expect.stringContaining(`running (pid ${pid})`) });
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(doctorExitCode(results)).toBe(0);
  });

  it('fails, saying no runtime is running for this home and how to reach a keyring, when none is', async () => {
    const home = initialisedHome();

    const results = await checks(home, new UnreachableKeyring(), {});

    const keyring = row(results, 'keyring');
    expect(keyring.status).toBe('fail');
    expect(keyring.detail).toContain('not reachable from this shell (DBUS_SESSION_BUS_ADDRESS is not set');
    expect(keyring.detail).toContain(`no runtime is running for this home (no ${homePaths(home).controlFile})`);
    expect(keyring.fix).toContain('start a Secret Service keyring');
    expect(keyring.fix).toContain('run `silas doctor` there');
    expect(doctorExitCode(results)).toBe(1);
  });

  it('names the session bus the process found on disk, or where it looked, when none was given (keys/session-bus.ts)', async () => {
    const home = initialisedHome();
    const found = { source: 'discovered' as const, address: 'unix:path=/run/user/1000/bus', socket: '/run/user/1000/bus', replaced: null };
    const discovered = await runChecks(openForCommand(home, { secretStore: new UnreachableKeyring() }), { DBUS_SESSION_BUS_ADDRESS: found.address }, { machineChecks: () => [], sessionBus: found });
    expect(row(discovered, 'keyring').detail).toContain('(D-Bus session unix:path=/run/user/1000/bus (found on disk: DBUS_SESSION_BUS_ADDRESS was not set))');
    const none = { source: 'none' as const, tried: ['/run/user/1000/bus does not exist'], replaced: 'unix:path=/tmp/dbus-gone' };
    const missing = await runChecks(openForCommand(home, { secretStore: new UnreachableKeyring() }), {}, { machineChecks: () => [], sessionBus: none });
    expect(row(missing, 'keyring').detail).toContain('no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set or names a socket that no longer exists (unix:path=/tmp/dbus-gone); looked for /run/user/1000/bus does not exist');
  });

  it('treats a control.json left by a runtime that is gone as not running', async () => {
    const home = initialisedHome();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    writeFileSync(homePaths(home).controlFile, JSON.stringify({ url: null, pid: child.pid }));

    const results = await checks(home, new UnreachableKeyring());

    expect(row(results, 'keyring')).toMatchObject({ status: 'fail', detail: expect.stringContaining(`no runtime is running for this home (${homePaths(home).controlFile} names pid ${child.pid}, which has exited)`) });
    expect(row(results, 'runtime').status).toBe('warn');
    expect(doctorExitCode(results)).toBe(1);
  });

  it('a reachable keyring without the owner key fails when no runtime runs, and warns when one does (it may use another keyring)', async () => {
    const home = initialisedHome(new MemorySecretStore());
    const otherKeyring = new MemorySecretStore();
    expect(row(await checks(home, otherKeyring), 'owner key').status).toBe('fail');
    expect(doctorExitCode(await checks(home, otherKeyring))).toBe(1);

    await runningRuntime(home);
    const results = await checks(home, otherKeyring);
    expect(row(results, 'owner key')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`the runtime for this home is running`) });
    expect(doctorExitCode(results)).toBe(0);
  });

  it('a runtime on this same D-Bus session does not excuse a keyring that lost the owner key', async () => {
    const home = initialisedHome(new MemorySecretStore());
    await runningRuntime(home, SHELL_BUS);

    const missingKey = await checks(home, new MemorySecretStore());
    expect(row(missingKey, 'owner key').status).toBe('fail');
    expect(doctorExitCode(missingKey)).toBe(1);

    const unreachable = row(await checks(home, new UnreachableKeyring()), 'keyring');
    expect(unreachable).toMatchObject({ status: 'warn', detail: expect.stringContaining('a restart would fail until the keyring is back') });
    expect(unreachable.fix).toContain('unlock it');
    expect(unreachable.fix).not.toContain('DBUS_SESSION_BUS_ADDRESS=');
  });

  it('with the keyring reachable everything about the home is checked and passes', async () => {
    const store = new MemorySecretStore();
    const home = initialisedHome(store);
    await runningRuntime(home);

    const results = await checks(home, store);

    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['keyring', 'ok'],
      ['database', 'ok'],
      ['audit chain', 'ok'],
      ['owner key', 'ok'],
      ['runtime', 'ok'],
    ]);
    expect(doctorExitCode(results)).toBe(0);
  });

  it('the real binary, with DBUS_SESSION_BUS_ADDRESS pointing nowhere, reports the keyring as a warning while the runtime runs', async () => {
    const home = initialisedHome();
    const pid = await runningRuntime(home);
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: SHELL_BUS };

    const result = await runSilasChild(['doctor', '--json', '--home', home], env);

    const results = JSON.parse(result.out) as CheckResult[];
    expect(row(results, 'keyring')).toMatchObject({ status: 'warn', detail: expect.stringContaining(`the runtime for this home is running (pid ${pid}`) });
    expect(row(results, 'keyring').detail).toContain(SHELL_BUS);
    // Whatever else this host lacks (a cockpit build, a sandbox), the keyring is not among the failures.
    expect(results.filter((r) => r.status === 'fail').map((r) => r.name)).not.toContain('keyring');
  });
});
