import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ESTABLISHED } from './connect-head.js';
import { Client, connectRequest, exchange, PUBLIC_ADDRESS, startEcho, startProxy, tempDir } from './testing/egress.js';

/** The status line of what `target` gets from a proxy that allows `allow`, and the decision recorded. */
async function attempt(allow: string[], target: string, dns?: Record<string, string[]>) {
  const echo = await startEcho();
  const t = await startProxy(echo, allow, { dns });
  const client = await Client.open(t.socketPath);
  client.socket.write(connectRequest(target));
  const answer = await client.answer();
  client.socket.destroy();
  return { status: answer.split('\r\n')[0], answer, decisions: t.decisions, connects: t.connects };
}

describe('EgressProxy tunnels what the policy lists', () => {
  it('tunnels bytes both ways, including bytes sent right after the header, to the address it checked', async () => {
    const echo = await startEcho();
    const t = await startProxy(echo, ['api.example.test']);
    const client = await Client.open(t.socketPath);
    client.socket.write(`${connectRequest('api.example.test:443')}hello`);
    expect(await client.until(`${ESTABLISHED}hello`)).toBe(`${ESTABLISHED}hello`);
    client.socket.write(' world');
    expect(await client.until(' world')).toBe(`${ESTABLISHED}hello world`);
    expect(echo.received()).toBe('hello world');
    expect(t.connects).toEqual([{ host: PUBLIC_ADDRESS, port: 443 }]);
    expect(t.decisions).toEqual([{ allowed: true, host: 'api.example.test', port: 443, reason: expect.stringContaining('api.example.test') }]);
    expect(t.proxy.stats).toMatchObject({ allowed: 1, denied: 0, openTunnels: 1 });
    client.socket.end();
    await client.closed;
    await vi.waitFor(() => expect(t.proxy.stats.openTunnels).toBe(0));
  });

  it('refuses an unlisted host with 403, says how to allow it, and reports the decision', async () => {
    const r = await attempt(['api.example.test'], 'exfil.example.test:443');
    expect(r.status).toBe('HTTP/1.1 403 Forbidden');
    expect(r.answer).toContain('exfil.example.test');
    expect(r.answer).toContain('x-silas-sandbox.network.hosts');
    expect(r.decisions).toEqual([{ allowed: false, host: 'exfil.example.test', port: 443, reason: expect.any(String), count: 1 }]);
    expect(r.connects).toEqual([]);
  });

  it('matches *.example.test on subdomains only, never the apex or a look-alike suffix', async () => {
    expect((await attempt(['*.example.test'], 'a.example.test:443')).status).toBe('HTTP/1.1 200 Connection established');
    expect((await attempt(['*.example.test'], 'b.a.example.test:443')).status).toBe('HTTP/1.1 200 Connection established');
    expect((await attempt(['*.example.test'], 'example.test:443')).status).toBe('HTTP/1.1 403 Forbidden');
    expect((await attempt(['*.example.test'], 'evilexample.test:443')).status).toBe('HTTP/1.1 403 Forbidden');
  });

  it('allows 443 and 80 without a port in the pattern, and only the named port with one', async () => {
    expect((await attempt(['api.example.test'], 'api.example.test:80')).status).toContain('200');
    expect((await attempt(['api.example.test'], 'api.example.test:22')).status).toContain('403');
    const named = await attempt(['api.example.test:8443'], 'api.example.test:8443');
    expect(named.status).toContain('200');
    expect(named.connects).toEqual([{ host: PUBLIC_ADDRESS, port: 8443 }]);
    expect((await attempt(['api.example.test:8443'], 'api.example.test:443')).status).toContain('403');
    const unlisted = await attempt(['api.example.test'], 'api.example.test:22');
    expect(unlisted.answer).toContain('"api.example.test:22"');
  });

  it('matches on the normalised host: case and a trailing dot do not matter, a homoglyph does', async () => {
    const upper = await attempt(['api.example.test'], 'API.Example.TEST.:443');
    expect(upper.status).toContain('200');
    expect(upper.decisions[0]).toMatchObject({ allowed: true, host: 'api.example.test' });
    // The first letter is CYRILLIC SMALL LETTER A, sent as UTF-8 the way a client would.
    const homoglyph = await attempt(['api.example.test'], '\u0430pi.example.test:443');
    expect(homoglyph.status).toContain('403');
    expect(homoglyph.decisions[0]).toMatchObject({ allowed: false, host: expect.stringMatching(/^xn--/) });
    expect(homoglyph.connects).toEqual([]);
  });

  it('refuses IP literals unless that literal is listed', async () => {
    expect((await attempt(['api.example.test'], `${PUBLIC_ADDRESS}:443`)).status).toContain('403');
    expect((await attempt(['api.example.test'], '[::1]:443')).status).toContain('403');
    const listed = await attempt(['10.0.0.5:8080'], '10.0.0.5:8080');
    expect(listed.status).toContain('200');
    expect(listed.connects).toEqual([{ host: '10.0.0.5', port: 8080 }]);
  });

  it.each([['127.0.0.1'], ['10.0.0.1'], ['::ffff:127.0.0.1'], ['::1'], ['169.254.169.254'], ['fd00::1']])(
    'refuses a listed name that resolves to %s, with the reason',
    async (address) => {
      const r = await attempt(['api.example.test'], 'api.example.test:443', { 'api.example.test': [address] });
      expect(r.status).toBe('HTTP/1.1 403 Forbidden');
      expect(r.decisions).toEqual([{ allowed: false, host: 'api.example.test', port: 443, reason: expect.stringContaining(`resolves to ${address}`), count: 1 }]);
      expect(r.connects).toEqual([]);
    },
  );

  it('refuses, under "*", a name that resolves to a loopback address: any name is not any place', async () => {
    const r = await attempt(['*'], 'rebound.example.test:443', { 'rebound.example.test': ['127.0.0.1'] });
    expect(r.status).toBe('HTTP/1.1 403 Forbidden');
    expect(r.connects).toEqual([]);
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const r = await attempt(['api.example.test'], 'api.example.test:443', { 'api.example.test': [PUBLIC_ADDRESS, '127.0.0.1'] });
    expect(r.status).toContain('403');
    expect(r.decisions[0]!.reason).toContain('loopback');
  });
});

describe('EgressProxy refuses what is not a well-formed CONNECT', () => {
  it('answers any other method with 405, without waiting for the rest of the header', async () => {
    const { socketPath } = await startProxy(await startEcho(), ['api.example.test']);
    const answer = await exchange(socketPath, 'GET http://api.example.test/ HTTP/1.1\r\nHost: api.example.test\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 405 /);
    expect(answer).toContain('only CONNECT');
    expect(answer).toContain('HTTPS_PROXY');
  });

  it.each([['hello world\r\n\r\n'], ['CONNECT api.example.test:443\r\n\r\n'], ['CONNECT  api.example.test:443 HTTP/1.1\r\n\r\n'], ['\u0000\u0001\u0002\r\n\r\n']])(
    'answers garbage %j with 400',
    async (request) => {
      const { socketPath, decisions } = await startProxy(await startEcho(), ['api.example.test']);
      expect(await exchange(socketPath, request)).toMatch(/^HTTP\/1\.1 400 /);
      expect(decisions).toEqual([]);
    },
  );

  it.each([['api.example.test'], ['user@api.example.test:443'], ['api.example.test:99999'], ['api.example.test:0'], ['api..example.test:443'], ['api.example.test%2e:443'], ['0x7f.1:443'], ['2130706433:443']])(
    'answers a malformed CONNECT target %s with 400 and reports it refused',
    async (target) => {
      const { socketPath, decisions, connects } = await startProxy(await startEcho(), ['api.example.test', '*.example.test']);
      expect(await exchange(socketPath, connectRequest(target))).toMatch(/^HTTP\/1\.1 400 /);
      expect(decisions).toEqual([{ allowed: false, host: expect.any(String), port: 0, reason: 'malformed CONNECT target', count: 1 }]);
      expect(connects).toEqual([]);
    },
  );

  it('answers an oversized header with 431 and keeps serving other clients', async () => {
    const { proxy, socketPath } = await startProxy(await startEcho(), ['api.example.test'], { maxHeaderBytes: 1024 });
    const padding = `X-Padding: ${'a'.repeat(2000)}\r\n`;
    expect(await exchange(socketPath, connectRequest('api.example.test:443', padding))).toMatch(/^HTTP\/1\.1 431 /);
    expect(await exchange(socketPath, `CONNECT api.example.test:443 HTTP/1.1\r\n${'b'.repeat(4000)}`)).toMatch(/^HTTP\/1\.1 431 /);
    const client = await Client.open(socketPath);
    client.socket.write(`${connectRequest('api.example.test:443')}ping`);
    expect(await client.until('ping')).toBe(`${ESTABLISHED}ping`);
    expect(proxy.stats).toMatchObject({ allowed: 1, rejected: 2 });
    client.socket.destroy();
  });
});

describe('EgressProxy failures', () => {
  it('answers 502 when the name does not resolve or the target cannot be reached', async () => {
    const echo = await startEcho();
    const unresolved = await startProxy(echo, ['api.example.test'], {
      resolve: () => Promise.reject(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' })),
    });
    expect(await exchange(unresolved.socketPath, connectRequest('api.example.test:443'))).toMatch(/^HTTP\/1\.1 502 /);
    expect(unresolved.decisions).toEqual([{ allowed: false, host: 'api.example.test', port: 443, reason: expect.stringContaining('ENOTFOUND'), count: 1 }]);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await startProxy({ ...echo, port }, ['api.example.test']);
    expect(await exchange(unreachable.socketPath, connectRequest('api.example.test:443'))).toMatch(/^HTTP\/1\.1 502 /);
  });

  it('opens nothing when the decision cannot be recorded', async () => {
    const t = await startProxy(await startEcho(), ['api.example.test'], {
      onDecision: () => {
        throw new Error('ledger unavailable');
      },
    });
    expect(await exchange(t.socketPath, connectRequest('api.example.test:443'))).toMatch(/^HTTP\/1\.1 500 /);
    expect(t.connects).toEqual([]);
  });
});

describe('EgressProxy socket', () => {
  it('creates its socket 0600 and leaves nothing behind on close, ending live tunnels', async () => {
    const t = await startProxy(await startEcho(), ['api.example.test']);
    expect(statSync(t.socketPath).mode & 0o777).toBe(0o600);
    expect(t.proxy.address).toBe(t.socketPath);
    const client = await Client.open(t.socketPath);
    client.socket.write(connectRequest('api.example.test:443'));
    await client.until(ESTABLISHED);
    await t.proxy.close();
    await client.closed;
    expect(existsSync(t.socketPath)).toBe(false);
    expect(t.proxy.stats.openTunnels).toBe(0);
  });

  it('refuses a socket folder other users can enter, where they could connect before the chmod', async () => {
    const echo = await startEcho();
    const open = tempDir();
    chmodSync(open, 0o755);
    await expect(startProxy(echo, ['api.example.test'], { socketPath: join(open, 'egress.sock') })).rejects.toThrow(/is open to other users \(mode 755\).*mode 0700/);
    expect(existsSync(join(open, 'egress.sock'))).toBe(false);
  });

  it('replaces a stale socket of its own, but not a live socket or any other file', async () => {
    const echo = await startEcho();
    const dir = tempDir();
    // A process that dies leaves its socket file behind (a clean close removes it).
    const stale = join(dir, 'stale.sock');
    const crash = `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`;
    spawnSync(process.execPath, ['-e', crash]);
    expect(lstatSync(stale).isSocket()).toBe(true);
    const replaced = await startProxy(echo, ['api.example.test'], { socketPath: stale });
    expect(await exchange(stale, connectRequest('exfil.example.test:443'))).toMatch(/^HTTP\/1\.1 403 /);
    await expect(startProxy(echo, [], { socketPath: stale })).rejects.toThrow(/not a stale socket/);
    await replaced.proxy.close();

    const file = join(dir, 'file');
    writeFileSync(file, 'keep me');
    await expect(startProxy(echo, [], { socketPath: file })).rejects.toThrow(/not a stale socket/);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
  });

  it('refuses to start on an invalid host pattern', async () => {
    const echo = await startEcho();
    for (const pattern of ['**', '*:0', 'a.*.example.test', '*.10.0.0.1', 'user@host', 'host:0', 'http://host']) {
      await expect(startProxy(echo, [pattern])).rejects.toThrow(/network host pattern/);
    }
  });
});
