import { describe, expect, it } from 'vitest';
import { LOOPBACK_POLICY_KEY } from './loopback.js';
import { Client, connectRequest, exchange, freePort, startEcho, startProxy, type EchoServer, type TestProxy } from './testing/egress.js';

/*
 * Listed ports of the host's loopback. These proxies connect where they are asked (`direct`), so
 * an allowed tunnel really reaches an echo server on this machine's loopback, and a resolver that
 * records every lookup shows that the literal forms are never resolved.
 */

const ESTABLISHED = 'HTTP/1.1 200 Connection established\r\n\r\n';

/** Sends "ping" through a tunnel to `target` and returns the whole exchange once the echo is back. */
async function ping(t: TestProxy, target: string): Promise<string> {
  const client = await Client.open(t.socketPath);
  client.socket.write(`${connectRequest(target)}ping`);
  const received = await client.until(`${ESTABLISHED}ping`);
  client.socket.destroy();
  return received;
}

function loopbackProxy(echo: EchoServer, loopbackPorts: number[], allow: string[] = []): Promise<TestProxy> {
  return startProxy(echo, allow, { direct: true, loopbackPorts });
}

/** Listens on ::1, or null where this machine has no IPv6 loopback. */
async function startEcho6(): Promise<EchoServer | null> {
  try {
    return await startEcho('::1');
  } catch {
    return null;
  }
}

describe('EgressProxy loopback ports', () => {
  it('tunnels a listed port by 127.0.0.1 and localhost to the host’s 127.0.0.1, without resolving anything', async () => {
    const echo = await startEcho();
    const t = await loopbackProxy(echo, [echo.port]);
    for (const target of [`127.0.0.1:${echo.port}`, `localhost:${echo.port}`, `LocalHost.:${echo.port}`]) {
      expect(await ping(t, target)).toBe(`${ESTABLISHED}ping`);
    }
    expect(echo.received()).toBe('pingpingping');
    const allowed = { allowed: true, host: '127.0.0.1', port: echo.port, reason: expect.stringContaining(LOOPBACK_POLICY_KEY) };
    expect(t.decisions).toEqual([allowed, allowed, allowed]);
    expect(t.connects).toEqual(Array(3).fill({ host: '127.0.0.1', port: echo.port }));
    expect(t.lookups).toEqual([]);
    expect(t.proxy.stats).toMatchObject({ allowed: 3, denied: 0 });
  });

  it('tunnels a listed port by [::1] to the host’s ::1, or answers 502 (not 403) where this machine has no ::1', async () => {
    const echo6 = await startEcho6();
    const port = echo6?.port ?? (await freePort());
    const t = await loopbackProxy(echo6 ?? (await startEcho()), [port]);
    const client = await Client.open(t.socketPath);
    client.socket.write(`${connectRequest(`[::1]:${port}`)}ping`);
    const expected = echo6 === null ? /^HTTP\/1\.1 502 [\s\S]*cannot connect to \[::1\]/ : /^HTTP\/1\.1 200 Connection established\r\n\r\nping$/;
    expect(echo6 === null ? await client.rest() : await client.until('ping')).toMatch(expected);
    client.socket.destroy();
    expect(echo6?.received() ?? 'ping').toBe('ping');
    expect(t.decisions).toEqual([{ allowed: true, host: '::1', port, reason: expect.stringContaining(LOOPBACK_POLICY_KEY) }]);
    expect(t.connects).toEqual([{ host: '::1', port }]);
  });

  it('refuses an unlisted port with 403, names the fix, and reports it as the loopback address', async () => {
    const echo = await startEcho();
    const t = await loopbackProxy(echo, [echo.port]);
    const unlisted = await freePort();
    for (const target of [`127.0.0.1:${unlisted}`, `localhost:${unlisted}`, `[::1]:${unlisted}`]) {
      const answer = await exchange(t.socketPath, connectRequest(target));
      expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(answer).toContain(`add ${unlisted} to ${LOOPBACK_POLICY_KEY}`);
    }
    const refused = (host: string) => ({ allowed: false, host, port: unlisted, reason: expect.stringContaining(LOOPBACK_POLICY_KEY), count: 1 });
    // `localhost` is reported as 127.0.0.1, whose second refusal in the window is counted, not recorded again (refusal-window.ts).
    expect(t.decisions).toEqual([refused('127.0.0.1'), refused('::1')]);
    expect(t.connects).toEqual([]);
    expect(t.proxy.stats).toMatchObject({ allowed: 0, denied: 3 });
  });

  it('refuses a name that resolves to 127.0.0.1 even when the name and the port are listed', async () => {
    const echo = await startEcho();
    const t = await startProxy(echo, [`db.example.test:${echo.port}`], { direct: true, loopbackPorts: [echo.port], dns: { 'db.example.test': ['127.0.0.1'] } });
    expect(await exchange(t.socketPath, connectRequest(`db.example.test:${echo.port}`))).toMatch(/^HTTP\/1\.1 403 /);
    expect(t.decisions).toEqual([{ allowed: false, host: 'db.example.test', port: echo.port, reason: expect.stringContaining('resolves to 127.0.0.1 (loopback)'), count: 1 }]);
    expect(t.connects).toEqual([]);
  });

  it('refuses other spellings of a loopback or unspecified address on a listed port', async () => {
    const echo = await startEcho();
    const t = await loopbackProxy(echo, [echo.port]);
    for (const host of ['127.0.0.2', '[::ffff:127.0.0.1]', '0.0.0.0', '[::]', 'foo.localhost']) {
      expect(await exchange(t.socketPath, connectRequest(`${host}:${echo.port}`))).toMatch(/^HTTP\/1\.1 403 /);
    }
    expect(t.decisions.map((decision) => decision.allowed)).toEqual([false, false, false, false, false]);
    expect(t.connects).toEqual([]);
  });

  it('still allows a loopback literal listed among the hosts, as before loopback ports existed', async () => {
    const echo = await startEcho();
    const t = await loopbackProxy(echo, [], [`127.0.0.1:${echo.port}`]);
    expect(await ping(t, `127.0.0.1:${echo.port}`)).toBe(`${ESTABLISHED}ping`);
    expect(t.decisions).toEqual([{ allowed: true, host: '127.0.0.1', port: echo.port, reason: `allowed by "127.0.0.1:${echo.port}"` }]);
    expect(await exchange(t.socketPath, connectRequest(`localhost:${echo.port}`))).toMatch(/^HTTP\/1\.1 403 /);
  });

  it('refuses to start with a loopback port that is not a TCP port', async () => {
    const echo = await startEcho();
    for (const port of [0, 65_536, 1.5, Number.NaN, -1]) {
      await expect(loopbackProxy(echo, [port])).rejects.toThrow(/egress proxy: loopback port .* is not a TCP port/);
    }
  });
});
