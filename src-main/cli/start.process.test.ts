import { once } from 'node:events';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { runSilasProcess, spawnSilas } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';

// Real processes, real OS keyring (scripts/with-keyring.sh), real signals.
const tempDir = useTempDirs();

async function startRuntime(home: string, extra: string[] = []) {
  const child = spawnSilas(['start', '--headless', '--port', '0', '--home', home, ...extra]);
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
  return { child, control, exited, output: () => ({ out, err }) };
}

describe('silas start --headless (real process)', () => {
  it('initialises a fresh home, serves, and shuts down gracefully on SIGTERM', async () => {
    const home = join(tempDir(), 'home');
    const rt = await startRuntime(home);
    expect(statSync(join(home, 'control.json')).mode & 0o777).toBe(0o600);
    expect(rt.control.pid).toBe(rt.child.pid);
    expect(rt.output().out).toContain(`Cockpit: ${rt.control.url}#token=${rt.control.token}`);
    expect(rt.output().out).not.toMatch(/\?token=/);

    const ws = new WebSocket(rt.control.wsUrl);
    await once(ws, 'open');
    ws.send(JSON.stringify({ type: 'auth', token: rt.control.token }));
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
    const tail = runSilasProcess(['audit', 'tail', '-n', '1', '--home', home]);
    expect(tail.out).toMatch(/runtime\.stopped.*SIGTERM/);
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
      // The failed start leaves its own started/stopped pair, and nothing before it changed.
      const after = runSilasProcess(['audit', 'export', '--format', 'jsonl', '--home', otherHome]).out;
      expect(after.startsWith(before)).toBe(true);
      expect(runSilasProcess(['audit', 'verify', '--home', otherHome]).code).toBe(0);
      expect(existsSync(join(otherHome, 'runtime.lock'))).toBe(false);
    } finally {
      rt.child.kill('SIGTERM');
      await rt.exited;
    }
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
