import { auditRows, chainBadge, connectionStatus, expect, mainNav, openActivity, openCockpit, test } from './fixtures/test.js';

/** The main navigation, in order (src-renderer/lib/routes.ts). */
const PAGES = [
  { id: 'stream', label: 'Stream' },
  { id: 'review', label: 'Review' },
  { id: 'activity', label: 'Activity' },
  { id: 'servers', label: 'Servers' },
  { id: 'policies', label: 'Policies' },
  { id: 'alignment', label: 'Alignment' },
  { id: 'memory', label: 'Memory' },
  { id: 'ilp', label: 'ILP' },
] as const;

test.describe('cockpit over a real headless runtime', () => {
  test('connects with the printed address and takes the token out of the address bar', async ({ page, silas }) => {
    await page.goto(silas.cockpitUrl);
    await expect(connectionStatus(page)).toHaveText('Connected');

    expect(page.url()).not.toContain('token');
    expect(page.url()).not.toContain(silas.token);
    expect(page.url()).toBe(`${silas.url}#/stream`);
    await expect(page.getByRole('heading', { level: 1, name: 'Stream' })).toBeVisible();
    await expect(page).toHaveTitle('Stream · Silas Control Center');
  });

  test('the Main navigation switches pages, and Back returns to the previous one', async ({ page, silas }) => {
    await openCockpit(page, silas);
    const nav = mainNav(page);
    await expect(nav.getByRole('link')).toHaveText(PAGES.map((p) => p.label));

    for (const { id, label } of [...PAGES].reverse()) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(label);
      await expect(nav.getByRole('link', { name: label, exact: true })).toHaveAttribute('aria-current', 'page');
      await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
      expect(new URL(page.url()).hash).toBe(`#/${id}`);
      await expect(page).toHaveTitle(`${label} · Silas Control Center`);
    }

    // Ended on Stream, came from Review.
    await page.goBack();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Review');
    await expect(nav.getByRole('link', { name: 'Review', exact: true })).toHaveAttribute('aria-current', 'page');
    await expect(connectionStatus(page)).toHaveText('Connected');
  });

  test('serves a strict Content-Security-Policy, and using the cockpit raises no console errors or CSP violations', async ({ page, silas, browserProblems }) => {
    const response = await page.goto(silas.cockpitUrl);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp, 'the cockpit page must carry a CSP').not.toBe('');
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/(^|\s)\*(\s|;|$)/);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values.join(' ')] as const),
    );
    expect(directives.get('script-src')).toBe("'self'");
    expect(directives.get('object-src')).toBe("'none'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('connect-src')).toBe(`'self' ws://127.0.0.1:${silas.port}`);
    await expect(connectionStatus(page)).toHaveText('Connected');

    // A tour of everything the cockpit does today.
    for (const label of ['Review', 'Servers', 'Policies', 'Alignment', 'ILP', 'Stream']) {
      await mainNav(page).getByRole('link', { name: label, exact: true }).click();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(label);
    }
    const total = await silas.settledEntries();
    await openActivity(page);
    await page.getByRole('button', { name: 'Re-verify chain' }).click();
    await expect(auditRows(page)).toHaveCount(total);
    await expect(chainBadge(page)).toHaveText(`Chain intact · ${total} entries verified`);
    const note = await silas.cli('audit', 'note', 'csp tour');
    expect(note.code).toBe(0);
    // The note and the checkpoint the CLI writes over it before exiting.
    await expect(auditRows(page)).toHaveCount(total + 2);
    const toggle = auditRows(page).first().getByRole('button', { expanded: false });
    await toggle.click();
    await expect(auditRows(page).first().getByRole('button', { expanded: true })).toBeVisible();
    await page.getByRole('button', { name: 'Re-verify chain' }).click();
    await expect(chainBadge(page)).toHaveText(`Chain intact · ${total + 2} entries verified`);
    await page.reload();
    await expect(connectionStatus(page)).toHaveText('Connected');
    await expect(auditRows(page)).toHaveCount(total + 2);

    expect(browserProblems).toEqual([]);
  });
});
