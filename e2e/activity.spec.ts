import Database from 'better-sqlite3';
import type { SilasRuntime } from './fixtures/silas-runtime.js';
import { auditRows, chainBadge, connectionStatus, expect, openActivity, openCockpit, rowIndex, test } from './fixtures/test.js';

interface TailEntry {
  index: number;
  id: string;
  ts: string;
  event: string;
  data: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/** Appends an operator note from a second process and returns the index it was recorded at. */
async function appendNote(silas: SilasRuntime, text: string): Promise<number> {
  const result = await silas.cli('audit', 'note', text);
  expect(result.code, result.stderr).toBe(0);
  const match = /Recorded as entry #(\d+)\./.exec(result.stdout);
  expect(match, result.stdout).not.toBeNull();
  return Number(match![1]);
}

async function tail(silas: SilasRuntime, count: number): Promise<TailEntry[]> {
  const result = await silas.cli('audit', 'tail', '-n', String(count), '--json');
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as TailEntry);
}

test.describe('Activity: the live audit log', () => {
  test('lists the runtime entries newest first and verifies the chain on connect', async ({ page, silas }) => {
    // init: runtime.initialised + its checkpoint; start: runtime.started, the Stream's start (§5.1
    // "log stream_started") and the checkpoints that cover them (one, or two when the writer's
    // one-second rule fired between the appends on a loaded machine).
    const total = await silas.settledEntries();
    const entries = await tail(silas, total);
    expect(entries.map((e) => e.event).filter((event) => event !== 'audit.checkpoint')).toEqual(['runtime.initialised', 'runtime.started', 'silas.stream.started']);
    expect(total).toBeLessThanOrEqual(6);
    await openCockpit(page, silas);
    await openActivity(page);

    const rows = auditRows(page);
    await expect(rows).toHaveCount(total);
    // Newest first, each row its entry's index and event.
    const newestFirst = [...entries].reverse();
    for (const [i, entry] of newestFirst.entries()) {
      await expect(rows.nth(i)).toContainText(rowIndex(entry.index));
      await expect(rows.nth(i)).toContainText(entry.event);
    }
    await expect(rows.nth(newestFirst.findIndex((e) => e.event === 'runtime.started'))).toContainText('mode: headless');
    await expect(page.getByText(`${total} entries`, { exact: true })).toBeVisible();
    await expect(chainBadge(page)).toHaveText(`Chain intact · ${total} entries verified`);
  });

  test('an entry appended by another process appears on top without a reload, and expands to its stored JSON', async ({ page, silas }) => {
    const total = await silas.settledEntries();
    await openCockpit(page, silas);
    await openActivity(page);
    const rows = auditRows(page);
    await expect(rows).toHaveCount(total);
    await expect(chainBadge(page)).toHaveText(`Chain intact · ${total} entries verified`);
    // A reload or navigation would wipe this marker.
    await page.evaluate('window.__e2eSamePage = true');

    const index = await appendNote(silas, 'e2e live note');
    expect(index).toBe(total);

    // The CLI checkpoints what it wrote before it exits: the note, then the checkpoint covering it.
    await expect(rows).toHaveCount(total + 2);
    await expect(rows.nth(0)).toContainText(rowIndex(index + 1));
    await expect(rows.nth(0)).toContainText('audit.checkpoint');
    const noteRow = rows.nth(1);
    await expect(noteRow).toContainText(rowIndex(index));
    await expect(noteRow).toContainText('operator.note');
    await expect(noteRow).toContainText('text: e2e live note');
    await expect(rows.nth(2)).toContainText('audit.checkpoint');
    await expect(page.getByText('2 new since verification', { exact: true })).toBeVisible();
    expect(await page.evaluate('window.__e2eSamePage === true')).toBe(true);

    // The row's one button is its toggle.
    const toggle = noteRow.getByRole('button');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const detailId = await toggle.getAttribute('aria-controls');
    expect(detailId).toBe(`audit-entry-${index}`);
    const detail = noteRow.locator(`#${detailId}`);
    await expect(detail).toContainText('"text": "e2e live note"');

    const shown = JSON.parse(await detail.innerText()) as TailEntry;
    const stored = (await tail(silas, 10)).find((e) => e.index === index);
    expect(stored).toBeDefined();
    expect(shown).toEqual(stored);
    expect(shown.event).toBe('operator.note');
    expect(shown.data).toEqual({ text: 'e2e live note' });
    expect(shown.hash).toMatch(/^[0-9a-f]{64}$/);
    await expect(detail).toContainText(`"hash": "${stored!.hash}"`);

    // Collapsing hides the JSON again.
    await toggle.click();
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await expect(detail).toHaveCount(0);
  });

  test('re-verification catches a row edited directly in the SQLite file, at the right entry', async ({ page, silas }) => {
    const total = await silas.settledEntries();
    await openCockpit(page, silas);
    await openActivity(page);
    await expect(chainBadge(page)).toHaveText(`Chain intact · ${total} entries verified`);

    const index = await appendNote(silas, 'e2e note to be forged');
    await expect(auditRows(page).nth(0)).toContainText(rowIndex(index + 1));
    const reverify = page.getByRole('button', { name: 'Re-verify chain' });
    await reverify.click();
    await expect(chainBadge(page)).toHaveText(`Chain intact · ${total + 2} entries verified`);

    // Tamper behind the runtime's back while it keeps running.
    const db = new Database(silas.database, { fileMustExist: true, timeout: 10_000 });
    try {
      const change = db.prepare(`UPDATE audit_entries SET data = '{"text":"forged"}' WHERE idx = ?`).run(index);
      expect(change.changes).toBe(1);
    } finally {
      db.close();
    }
    expect(silas.running).toBe(true);

    await reverify.click();
    await expect(chainBadge(page)).toHaveText(new RegExp(`^Chain broken at entry ${index}: `));
    await expect(chainBadge(page)).toContainText(`entry ${index} was modified after it was written`);
    await expect(reverify).toBeEnabled();
    await expect(connectionStatus(page)).toHaveText('Connected');

    // The CLI, an independent reader, agrees.
    const verify = await silas.cli('audit', 'verify', '--json');
    expect(verify.code).toBe(1);
    const verdict = JSON.parse(verify.stdout) as { valid: boolean; firstInvalid: { index: number } | null };
    expect(verdict.valid).toBe(false);
    expect(verdict.firstInvalid?.index).toBe(index);
  });
});
