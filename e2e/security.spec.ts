import { serveForeignSite } from './fixtures/foreign-origin.js';
import { rawGet, upgradeHeaders } from './fixtures/raw-http.js';
import type { SilasRuntime } from './fixtures/silas-runtime.js';
import { connectionStatus, expect, openCockpit, test } from './fixtures/test.js';

interface TailEntry {
  index: number;
  event: string;
  data: Record<string, unknown>;
}

async function securityEvents(silas: SilasRuntime, event: string): Promise<TailEntry[]> {
  const result = await silas.cli('audit', 'tail', '-n', '50', '--json');
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TailEntry)
    .filter((entry) => entry.event === event);
}

test.describe('control surface security, from the browser side', () => {
  test('without a token the cockpit says "No token", and a token in the query string is not taken', async ({ page, browser, silas }) => {
    await page.goto(silas.url);
    await expect(connectionStatus(page)).toHaveText('No token');
    await expect(page.getByRole('alert')).toContainText('No token.');

    // A fresh tab (nothing kept in sessionStorage) given the token the wrong way.
    const other = await browser.newPage();
    try {
      await other.goto(`${silas.url}?token=${silas.token}`);
      await expect(connectionStatus(other)).toHaveText('No token');
    } finally {
      await other.close();
    }
  });

  test('a wrong token is rejected, said so, and recorded in the audit log', async ({ page, silas }) => {
    await page.goto(`${silas.url}#token=not-the-right-token-${'x'.repeat(20)}`);
    await expect(connectionStatus(page)).toHaveText('Unauthorised — token rejected');
    await expect(page.getByRole('alert')).toContainText('Token rejected.');
    expect(page.url()).not.toContain('token=');

    await expect
      .poll(async () => (await securityEvents(silas, 'control.auth_failed')).map((e) => e.data.reason), { timeout: 10_000 })
      .toContain('wrong token');
  });

  test('the token in HOME/control.json (readable by any same-user process) does not open the cockpit', async ({ page, silas }) => {
    // From the cockpit's own origin: the credential is refused at auth.
    await page.goto(`${silas.url}#token=${silas.askToken}`);
    await expect(connectionStatus(page)).toHaveText('Unauthorised — token rejected');
    // Without a browser Origin the upgrade itself is refused.
    const upgrade = await rawGet(silas.port, '/ws', { Host: `127.0.0.1:${silas.port}`, ...upgradeHeaders() });
    expect(upgrade.status).toBe(403);
    await expect
      .poll(async () => (await securityEvents(silas, 'control.auth_failed')).map((e) => e.data.reason), { timeout: 10_000 })
      .toContain('wrong token');
    const refusals = await securityEvents(silas, 'control.upgrade_refused');
    expect(refusals.map((e) => e.data)).toContainEqual(expect.objectContaining({ origin: '', reason: expect.stringContaining('missing Origin') }));
  });

  test('a page on another origin cannot open the WebSocket, even knowing the token', async ({ page, silas }) => {
    const foreign = await serveForeignSite(silas.wsUrl, silas.token);
    try {
      await page.goto(foreign.url);
      const socket = page.getByRole('status', { name: 'Socket' });
      // Refused at the handshake: never opened, so no auth frame and no message ever went through.
      await expect(socket).toHaveText(/^error close:1006$/);

      const refusals = await securityEvents(silas, 'control.upgrade_refused');
      expect(refusals.map((e) => e.data)).toContainEqual(expect.objectContaining({ reason: 'forbidden Origin header', origin: foreign.origin }));
    } finally {
      await foreign.close();
    }
  });

  test('requests with a forged Host header get 403, on the page and on the socket', async ({ request, silas }) => {
    const own = `127.0.0.1:${silas.port}`;

    const control = await rawGet(silas.port, '/', { Host: own });
    expect(control.status).toBe(200);

    for (const host of ['evil.example', `evil.example:${silas.port}`, `127.0.0.1.evil.example:${silas.port}`]) {
      const page = await rawGet(silas.port, '/', { Host: host });
      expect(page.status, `GET / with Host: ${host}`).toBe(403);
      expect(page.body).not.toContain('<script');

      const health = await rawGet(silas.port, '/healthz', { Host: host });
      expect(health.status, `GET /healthz with Host: ${host}`).toBe(403);

      const upgrade = await rawGet(silas.port, '/ws', { Host: host, ...upgradeHeaders() });
      expect(upgrade.status, `WebSocket upgrade with Host: ${host}`).toBe(403);
    }

    const refusals = await securityEvents(silas, 'control.upgrade_refused');
    expect(refusals.map((e) => e.data)).toContainEqual(expect.objectContaining({ reason: 'forbidden Host header', host: 'evil.example' }));

    // The same through Playwright's request client: its own Host is fine, a forged one is not.
    expect((await request.get(silas.url)).status()).toBe(200);
    expect((await request.get(silas.url, { headers: { Host: 'evil.example' } })).status()).toBe(403);
  });

  test('"Sign out other sessions" in a tab opened with a `silas open` link signs out the start link\'s tab; this tab stays', async ({ page, browser, silas }) => {
    await openCockpit(page, silas);
    const opened = await silas.cli('open', '--print');
    expect(opened.code, opened.stderr).toBe(0);
    const link = /^Cockpit: (\S+#token=\S+)$/m.exec(opened.stdout)?.[1];
    expect(link).toBeDefined();
    expect(link).not.toBe(silas.cockpitUrl);

    const mine = await browser.newPage();
    try {
      await mine.goto(link!);
      await expect(connectionStatus(mine)).toHaveText('Connected');
      await mine.getByRole('button', { name: 'Sign out other sessions' }).click();
      const question = mine.getByRole('alertdialog', { name: 'Sign out other sessions?' });
      await expect(question).toContainText('Signs out every other cockpit tab and link; this one stays.');
      await question.getByRole('button', { name: 'Sign out others' }).click();
      await expect(mine.getByText('1 open tab signed out; 1 link no longer works.')).toBeVisible();

      await expect(connectionStatus(page)).toHaveText('Unauthorised — token rejected');
      await expect(page.getByRole('alert')).toContainText('Token rejected.');
      await expect(connectionStatus(mine)).toHaveText('Connected');
      const revoked = await securityEvents(silas, 'control.cockpit_sessions_revoked');
      expect(revoked.map((e) => e.data)).toEqual([expect.objectContaining({ credentials: 1, sessions: 1, transport: 'websocket' })]);
    } finally {
      await mine.close();
    }
  });
});
