import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { spawnSilas } from './cli.js';

/*
 * What the cockpit benches share (docs/architecture.md §9): a real headless runtime on a home of
 * their own, its cockpit built from the current sources, opened in Debian's Chromium. No browser is
 * downloaded.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WITH_KEYRING = fileURLToPath(new URL('../../scripts/with-keyring.sh', import.meta.url));

/**
 * `silas init` and `silas start` need the OS keyring. `npm run bench` runs without a D-Bus session,
 * so on Linux a bench started without one runs itself again under scripts/with-keyring.sh (a private
 * session and a throwaway keyring, as the e2e tests use) and returns its exit status; the caller
 * exits with it. Null when this process already has a session.
 */
export function rerunUnderKeyring(benchFile: string): number | null {
  if (process.platform !== 'linux' || process.env.DBUS_SESSION_BUS_ADDRESS) return null;
  const run = spawnSync(WITH_KEYRING, [process.execPath, '--import', 'tsx', benchFile], { cwd: ROOT, stdio: 'inherit' });
  return run.status ?? 1;
}

/** Debian's Chromium, kept off the keyring's private D-Bus session: it needs none, and its accessibility bus requests only fill stderr. */
export function launchChromium(): Promise<Browser> {
  const { DBUS_SESSION_BUS_ADDRESS: _session, ...env } = process.env;
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    env,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export interface BenchRuntime {
  /** The address `silas start` printed, the cockpit credential in its fragment. */
  cockpitUrl: string;
  stop(): Promise<void>;
}

/**
 * `silas start --headless` on `home`, ready once it printed its `Cockpit:` line. The cockpit is served
 * from `cockpitDir`, which the runtime builds from the current sources when it is empty, so the figure
 * is always that of the code being measured.
 */
export async function startBenchRuntime(home: string, cockpitDir: string): Promise<BenchRuntime> {
  const child = spawnSilas(['start', '--headless', '--port', '0', '--home', home], { ...process.env, SILAS_COCKPIT_DIR: cockpitDir });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = once(child, 'exit');
  const deadline = Date.now() + 120_000;
  let printed: RegExpExecArray | null = null;
  while (!(printed = /^Cockpit: (\S+)$/m.exec(out))) {
    if (child.exitCode !== null) throw new Error(`silas start exited ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) throw new Error(`silas start was not ready: ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { cockpitUrl: printed[1]!, stop };
}

/**
 * A script for `page.evaluate`: one control-plane call over a bare WebSocket with the cockpit's
 * stored credential, timed from the send to its result — the floor a page's own call is read
 * beside. Resolves to `{took, value}`, `value` the result's value reduced by `pick` (JS source of a
 * function of the value).
 */
export function callOverWebSocket(name: string, args: unknown, pick: string): string {
  return `(async () => {
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
  const frames = [];
  let wake = null;
  ws.onmessage = (event) => { frames.push(event.data); wake?.(); };
  const next = () => frames.length > 0 ? Promise.resolve(frames.shift()) : new Promise((resolve) => (wake = () => { wake = null; resolve(frames.shift()); }));
  await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
  ws.send(JSON.stringify({ type: 'auth', token: sessionStorage.getItem('silas.cockpit.token') }));
  for (;;) if (JSON.parse(await next()).type === 'ready') break;
  const start = performance.now();
  ws.send(JSON.stringify({ type: 'call', id: 'floor', name: ${JSON.stringify(name)}, args: ${JSON.stringify(args)} }));
  let frame;
  do frame = JSON.parse(await next()); while (frame.type !== 'result' || frame.id !== 'floor');
  const took = performance.now() - start;
  ws.close();
  if (!frame.result.ok) throw new Error(frame.result.error.message);
  return { took, ...(${pick})(frame.result.value) };
})()`;
}
