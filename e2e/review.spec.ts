import type { Page } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolCallSubject } from '../src-main/approval/tool-call.js';
import { bindingOf, proxyVerifier } from '../src-main/testing/approvals.js';
import { FakeProxy, ownerKeys, type ProxiedCall } from './fixtures/approval-proxy.js';
import { auditLog, expect, mainNav, openActivity, openCockpit, test } from './fixtures/test.js';

const readNotes: ProxiedCall = { server: 'filesystem', tool: 'read_file', args: { path: '/home/ada/projects/notes/todo.md' }, requestId: 7 };
const deleteDraft: ProxiedCall = { server: 'filesystem', tool: 'delete_file', args: { path: '/home/ada/projects/drafts/old.md' }, requestId: 'req-8' };
const listProjects: ProxiedCall = { server: 'filesystem', tool: 'list_directory', args: { path: '/home/ada/projects' }, requestId: 9 };

const reviewHeading = (page: Page) => page.getByRole('heading', { level: 1, name: 'Review' });
const card = (page: Page, call: ProxiedCall) => page.getByRole('article', { name: `Approval request: ${call.tool} on ${call.server}` });
const upNext = (page: Page) => page.getByRole('list', { name: 'Up next' });

async function openReview(page: Page): Promise<void> {
  // The link's name is "Review" when nothing waits and "Review, N pending" otherwise.
  await mainNav(page).getByRole('link', { name: /^Review/ }).click();
  await expect(reviewHeading(page)).toBeVisible();
}

/** A stand-in for the Notification API that records what the cockpit shows and the permission requests. */
const recordingNotifications = (initial: 'default' | 'granted') => `
  (() => {
    const shown = [];
    let permission = ${JSON.stringify(initial)};
    class RecordingNotification {
      static get permission() { return permission; }
      static requestPermission() { window.__permissionRequests += 1; permission = 'granted'; return Promise.resolve(permission); }
      constructor(title) { this.onclick = null; shown.push(title); }
      close() {}
    }
    window.Notification = RecordingNotification;
    window.__notifications = shown;
    window.__permissionRequests = 0;
  })();
`;

interface TailEntry {
  event: string;
  data: Record<string, unknown>;
}

test.describe('Review: deciding what a proxy asks', () => {
  test('a proxy request becomes the active card; Allow once answers it with a signature from the owner key', async ({ page, silas, browserProblems }) => {
    await openCockpit(page, silas);
    await openReview(page);
    await expect(page.getByText('No decisions waiting')).toBeVisible();

    const proxy = await FakeProxy.connect(silas);
    try {
      const answer = proxy.ask(readNotes);
      const active = card(page, readNotes);
      await expect(active).toBeVisible();
      await expect(mainNav(page).getByRole('link', { name: 'Review, 1 pending' })).toBeVisible();
      await expect(active.getByRole('heading', { name: 'read_file on filesystem wants to run' })).toBeVisible();
      await expect(active.getByText('Medium risk')).toBeVisible();
      await expect(active).toContainText('Files outside the workspace need your approval.');
      await expect(active.getByRole('timer', { name: 'Time left' })).toHaveText(/^Expires in [12]:\d\d$/);
      await expect(active.getByRole('button', { name: 'Allow once' })).toHaveAccessibleDescription('Runs this call once; signed with your key');
      await expect(active.getByRole('button', { name: 'Deny' })).toHaveAccessibleDescription('The agent receives an error (-32004)');

      const details = active.getByRole('button', { name: 'Details' });
      await expect(details).toHaveAttribute('aria-expanded', 'false');
      await details.click();
      await expect(details).toHaveAttribute('aria-expanded', 'true');
      await expect(active.getByLabel('Arguments')).toContainText('"path": "/home/ada/projects/notes/todo.md"');
      // The rule that asked is part of the tool call's details (§0.5.3), next to the arguments.
      await expect(active).toContainText('tools.ask: filesystem/*');

      await active.getByRole('button', { name: 'Allow once' }).click();
      const result = await answer;
      expect(result.outcome).toBe('approve');
      if (result.outcome !== 'approve') throw new Error('unreachable');
      // A token from the approval engine, bound to exactly this call (scope single_step).
      expect(result.token).toMatchObject({ scope: 'single_step', plan_hash: toolCallSubject(bindingOf(proxy.binding(readNotes))).hash, conditions: { server: 'filesystem', tool: 'read_file', request_id: 7, session_id: proxy.sessionId } });
      const verify = proxyVerifier(mkdtempSync(join(tmpdir(), 'silas-e2e-proxy-')), ownerKeys(silas));
      // Bound to the exact call: the same token does not pass for other arguments, and passes once for its own.
      expect(verify(result.token, { ...proxy.binding(readNotes), args: { path: '/etc/shadow' } })).toEqual({ ok: false, reason: 'approval is for other arguments' });
      expect(verify(result.token, proxy.binding(readNotes))).toMatchObject({ ok: true, nonce: result.token.nonce });

      await expect(page.getByText('No decisions waiting')).toBeVisible();
      await expect(mainNav(page).getByRole('link', { name: 'Review', exact: true })).toBeVisible();
    } finally {
      proxy.close();
    }
    expect(browserProblems).toEqual([]);
  });

  test('one card at a time, the rest up next; Deny answers deny, and the audit log records every step', async ({ page, silas, browserProblems }) => {
    await openCockpit(page, silas);
    await openReview(page);
    const proxy = await FakeProxy.connect(silas);
    try {
      const denied = proxy.ask(deleteDraft);
      await expect(card(page, deleteDraft)).toBeVisible();
      const approved = proxy.ask(listProjects);

      // The oldest request stays active; the newer one waits in the numbered list, intent and risk only.
      // Each line says who asked: a proxy is a local requester whose claim to be that server's proxy is quoted as a claim.
      await expect(upNext(page).getByRole('listitem')).toHaveText([/^list_directory on filesystem wants to runMedium riska local requester claiming to be the proxy of server "filesystem" \(session [0-9a-f]+\) · via a local-socket requester · external — not from you$/]);
      await expect(page.getByRole('article')).toHaveCount(1);
      await expect(mainNav(page).getByRole('link', { name: 'Review, 2 pending' })).toBeVisible();

      // High risk: Deny is the recommended action and comes first; details are open from the start.
      const active = card(page, deleteDraft);
      await expect(active.getByText('High risk')).toBeVisible();
      await expect(active.getByRole('group', { name: 'Decision' }).getByRole('button')).toHaveText(['Deny', 'Always allow', 'Allow once']);
      await expect(active.getByRole('button', { name: 'Details' })).toHaveAttribute('aria-expanded', 'true');
      await expect(active.getByLabel('Arguments')).toContainText('/home/ada/projects/drafts/old.md');

      await active.getByRole('button', { name: 'Deny' }).click();
      expect(await denied).toEqual({ outcome: 'deny', reason: 'denied by the user in the control center' });

      const next = card(page, listProjects);
      await expect(next).toBeVisible();
      await expect(upNext(page)).toHaveCount(0);
      await next.getByRole('button', { name: 'Allow once' }).click();
      expect((await approved).outcome).toBe('approve');
      await expect(page.getByText('No decisions waiting')).toBeVisible();
    } finally {
      proxy.close();
    }

    const tail = await silas.cli('audit', 'tail', '-n', '20', '--json');
    expect(tail.code, tail.stderr).toBe(0);
    const entries = tail.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TailEntry)
      .filter((entry) => entry.event.startsWith('approvals.'));
    expect(entries.map((entry) => [entry.event, entry.data.tool])).toEqual([
      ['approvals.requested', 'delete_file'],
      ['approvals.requested', 'list_directory'],
      ['approvals.denied', 'delete_file'],
      ['approvals.approved', 'list_directory'],
    ]);

    await openActivity(page);
    await expect(auditLog(page)).toContainText('approvals.requested');
    await expect(auditLog(page)).toContainText('approvals.denied');
    await expect(auditLog(page)).toContainText('approvals.approved');
    expect(browserProblems).toEqual([]);
  });

  test('browser notifications are raised for requests that arrive while the cockpit is open, not for those already waiting', async ({ page, silas, browserProblems }) => {
    await page.addInitScript({ content: recordingNotifications('granted') });
    const shown = () => page.evaluate('window.__notifications') as Promise<string[]>;

    const proxy = await FakeProxy.connect(silas);
    try {
      const first = proxy.ask(readNotes);
      await openCockpit(page, silas);
      await openReview(page);
      await expect(card(page, readNotes)).toBeVisible();
      // Permission is already granted, so there is nothing to offer.
      await expect(page.getByRole('button', { name: 'Enable notifications' })).toHaveCount(0);

      const second = proxy.ask(listProjects);
      await expect(upNext(page).getByRole('listitem')).toHaveCount(1);
      await expect.poll(shown).toEqual(['Approve list_directory on filesystem?']);

      await card(page, readNotes).getByRole('button', { name: 'Allow once' }).click();
      await card(page, listProjects).getByRole('button', { name: 'Deny' }).click();
      expect((await first).outcome).toBe('approve');
      expect((await second).outcome).toBe('deny');
      expect(await shown()).toHaveLength(1);
    } finally {
      proxy.close();
    }
    expect(browserProblems).toEqual([]);
  });

  test('"Enable notifications" asks the browser once, then gets out of the way', async ({ page, silas, browserProblems }) => {
    await page.addInitScript({ content: recordingNotifications('default') });
    await openCockpit(page, silas);
    await openReview(page);
    await page.getByRole('button', { name: 'Enable notifications' }).click();
    await expect(page.getByRole('button', { name: 'Enable notifications' })).toHaveCount(0);
    expect(await page.evaluate('window.__permissionRequests')).toBe(1);

    const proxy = await FakeProxy.connect(silas);
    try {
      const answer = proxy.ask(readNotes);
      await expect.poll(() => page.evaluate('window.__notifications')).toEqual(['Approve read_file on filesystem?']);
      await card(page, readNotes).getByRole('button', { name: 'Deny' }).click();
      expect((await answer).outcome).toBe('deny');
    } finally {
      proxy.close();
    }
    expect(browserProblems).toEqual([]);
  });
});
