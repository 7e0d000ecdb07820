import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditEntry } from '../../../testing/audit-fixtures.js';
import { stubLayout } from '../../../testing/layout.js';
import { fakeRuntime, flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { ActivityPage } from './ActivityPage.js';

let restoreLayout: () => void;
beforeEach(() => {
  restoreLayout = stubLayout({ viewport: 600, row: 30 });
});
afterEach(() => {
  cleanup();
  restoreLayout();
});

const list = () => screen.getByRole('list', { name: 'Audit log' });
const rows = () => within(list()).queryAllByRole('listitem');

async function connectedActivity(total: number) {
  const transport = fakeRuntime(total);
  transport.state = 'connected';
  const harness = renderCockpit(<ActivityPage />, { transport });
  await flush();
  return harness;
}

describe('ActivityPage', () => {
  it('loads the newest page on connect and shows a window of it, newest first', async () => {
    const { transport } = await connectedActivity(100_000);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Activity');
    expect(transport.callsTo('audit.list')).toEqual([{ limit: 500 }]);
    expect(rows().length).toBeLessThan(60);
    expect(rows()[0]!.textContent).toContain('#99999');
    expect(screen.getByText('100,000 entries')).toBeTruthy();
    expect(screen.getByText('500 loaded')).toBeTruthy();
  });

  it('loads older pages before the oldest loaded index as the user scrolls down', async () => {
    const { transport } = await connectedActivity(100_000);
    list().scrollTop = 30 * 450;
    fireEvent.scroll(list());
    await flush();
    expect(transport.callsTo('audit.list')).toEqual([{ limit: 500 }, { before: 99_500, limit: 500 }]);
    expect(screen.getByText('1,000 loaded')).toBeTruthy();
  });

  it('prepends live entries and counts them as new since verification', async () => {
    const { transport } = await connectedActivity(20);
    expect(screen.getByText('0 new since verification')).toBeTruthy();
    act(() => {
      transport.emit('audit.appended', auditEntry(20));
      transport.emit('audit.appended', auditEntry(21));
      transport.emit('audit.appended', auditEntry(21));
    });
    expect(rows()[0]!.textContent).toContain('#21');
    expect(rows()[1]!.textContent).toContain('#20');
    expect(screen.getByText('22 entries')).toBeTruthy();
    expect(screen.getByText('2 new since verification')).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Re-verify chain' }));
    await flush();
    expect(transport.callsTo('audit.verify')).toHaveLength(2);
  });

  it('expands an entry to its full JSON', async () => {
    await connectedActivity(5);
    const row = rows().find((r) => r.textContent?.startsWith('#3'))!;
    fireEvent.click(within(row).getByRole('button', { expanded: false }));
    expect(JSON.parse(row.querySelector('pre')?.textContent ?? '')).toEqual(auditEntry(3));
  });

  it('says so when the log is empty', async () => {
    await connectedActivity(0);
    expect(screen.getByText('No audit entries yet.')).toBeTruthy();
    expect(rows()).toHaveLength(0);
  });

  it('shows why the log could not load', async () => {
    const transport = fakeRuntime(5).handle('audit.list', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }));
    transport.state = 'connected';
    renderCockpit(<ActivityPage />, { transport });
    await flush();
    expect(screen.getByRole('alert').textContent).toContain('database is locked (E_DB_FAILURE)');
  });
});
