import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ownerAccountForHome } from '../keys/owner-key.js';
import { OsKeyring } from '../keys/secret-store.js';
import { runSilasProcess, spawnSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';

// Real processes, real OS keyring (scripts/with-keyring.sh), real signals.
const tempDir = useTempDirs();

async function startRuntime(home: string, extra: string[] = [], env: NodeJS.ProcessEnv = process.env) {
  const child = spawnSilas(['start', '--headless', '--port', '0', '--home', home, ...extra], env);
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const deadline = Date.now() + 30_000;
  while (!/^Cockpit: /m.test(out)) {
    if (child.exitCode !== null) throw new Error(`silas start exited ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) throw new Error(`silas start not ready: ${out} ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const control = JSON.parse(readFileSync(join(home, 'control.json'), 'utf8')) as { url: string; wsUrl: string; token: string; pid: number };
  // The cockpit credential exists only in this printed line.
  const printed = /^Cockpit: (\S+)#token=(\S+)$/m.exec(out);
  if (!printed) throw new Error(`no cockpit address printed: ${out}`);
  return { child, control, cockpitToken: printed[2]!, printedUrl: printed[1]!, exited, output: () => ({ out, err }) };
}

describe('silas start --headless (real process)', () => {
  it('initialises a fresh home, serves, and shuts down gracefully on SIGTERM', async () => {
    const home = join(tempDir(), 'home');
    const rt = await startRuntime(home);
    expect(statSync(join(home, 'control.json')).mode & 0o777).toBe(0o600);
    expect(rt.control.pid).toBe(rt.child.pid);
    expect(rt.printedUrl).toBe(rt.control.url);
    // control.json holds the ask credential only; the printed one is the cockpit's.
    expect(rt.cockpitToken).not.toBe(rt.control.token);
    expect(readFileSync(join(home, 'control.json'), 'utf8')).not.toContain(rt.cockpitToken);
    expect(rt.output().out).not.toMatch(/\?token=/);

    const ws = new WebSocket(rt.control.wsUrl, { origin: new URL(rt.control.url).origin });
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'auth', token: rt.cockpitToken }));
    await once(ws, 'message');
    const closed = once(ws, 'close') as Promise<[number, Buffer]>;

    rt.child.kill('SIGTERM');
    const [code] = await rt.exited;
    expect(code).toBe(0);
    const [closeCode] = await closed;
    expect(closeCode).toBe(1001);
    expect(existsSync(join(home, 'control.json'))).toBe(false);
    expect(existsSync(join(home, 'runtime.lock'))).toBe(false);

    const verify = runSilasProcess(['audit', 'verify', '--home', home, '--json']);
    expect(verify.code).toBe(0);
    const report = JSON.parse(verify.out) as { valid: boolean; entries: number; checkpoints: number };
    expect(report.valid).toBe(true);
    expect(report.checkpoints).toBeGreaterThanOrEqual(2);
    const tail = runSilasProcess(['audit', 'tail', '-n', '3', '--home', home]);
    expect(tail.out).toMatch(/runtime\.stopped.*SIGTERM/);
  });

  it('shuts down completely on SIGTERM once the WAL checkpoint worker runs (it starts 3 s after the runtime)', async () => {
    const home = join(tempDir(), 'home');
    const rt = await startRuntime(home);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    rt.child.kill('SIGTERM');
    const [code] = await rt.exited;
    expect(code, rt.output().err).toBe(0);
    // The whole shutdown ran: a worker stopping must not let the process end with the loop empty half-way.
    expect(rt.output().out).toContain('Stopped; audit checkpoint written.');
    const log = readFileSync(join(home, 'logs', 'runtime.log'), 'utf8');
    expect(log).toContain('runtime stopped');
    expect(log).not.toContain('WAL checkpoints back on the runtime thread');
  });

  it('refuses a second runtime on the same home, and a port that is in use, without changing stored data', async () => {
    const home = join(tempDir(), 'home');
    const rt = await startRuntime(home);
    try {
      const second = runSilasProcess(['start', '--headless', '--port', '0', '--home', home]);
      expect(second.code).toBe(1);
      expect(second.err).toMatch(new RegExp(`another Silas runtime \\(pid ${rt.child.pid}\\) is already running`));

      const blocker = createServer();
      await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
      const port = (blocker.address() as { port: number }).port;
      const otherHome = join(tempDir(), 'other');
      expect(runSilasProcess(['init', '--home', otherHome]).code).toBe(0);
      const before = runSilasProcess(['audit', 'export', '--format', 'jsonl', '--home', otherHome]).out;
      const busy = runSilasProcess(['start', '--headless', '--port', String(port), '--home', otherHome]);
      blocker.close();
      expect(busy.code).toBe(1);
      expect(busy.err).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(busy.err).toContain('--port 0');
      // The port is refused before the home is opened: the record is unchanged.
      const after = runSilasProcess(['audit', 'export', '--format', 'jsonl', '--home', otherHome]).out;
      expect(after).toBe(before);
      expect(runSilasProcess(['audit', 'verify', '--home', otherHome]).code).toBe(0);
      expect(existsSync(join(otherHome, 'runtime.lock'))).toBe(false);
    } finally {
      rt.child.kill('SIGTERM');
      await rt.exited;
    }
  });

  it('serves the cockpit when this installation never built it: `silas start` builds it first', async () => {
    const home = join(tempDir(), 'home');
    const cockpitDir = join(tempDir(), 'cockpit-not-built');
    const rt = await startRuntime(home, [], { ...process.env, SILAS_COCKPIT_DIR: cockpitDir });
    try {
      expect(rt.output().err).toContain('The cockpit is not built yet; building it');
      const page = await fetch(rt.control.url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toMatch(/<script type="module"[^>]*src="\.\/assets\//);
      expect(existsSync(join(cockpitDir, 'index.html'))).toBe(true);
    } finally {
      rt.child.kill('SIGTERM');
      await rt.exited;
    }
  });

  it('a start on a port in use with a fresh --home creates nothing: no home, no database, no owner key in the keyring', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const home = join(tempDir(), 'fresh');
    try {
      const busy = runSilasProcess(['start', '--headless', '--port', String(port), '--home', home]);
      expect(busy.code).toBe(1);
      expect(busy.err).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      blocker.close();
    }
    expect(existsSync(home)).toBe(false);
    expect(new OsKeyring().get(ownerAccountForHome(home))).toBeNull();
  });

  it('refuses a non-loopback listen without TLS', () => {
    const home = join(tempDir(), 'home');
    const result = runSilasProcess(['start', '--headless', '--host', '0.0.0.0', '--port', '0', '--home', home]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('refusing to serve the control surface on 0.0.0.0 without TLS');
  });

  it('fails with a how-to message when no keyring is reachable, creating nothing', () => {
    const home = join(tempDir(), 'home');
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
    for (const command of ['init', 'start']) {
      const result = runSilasProcess([command, '--home', home, ...(command === 'start' ? ['--headless', '--port', '0'] : [])], env);
      expect(result.code).toBe(1);
      expect(result.err).toContain('OS keyring');
      expect(result.err).toContain('gnome-keyring-daemon');
      expect(existsSync(join(home, 'silas.db'))).toBe(false);
    }
  });
});
