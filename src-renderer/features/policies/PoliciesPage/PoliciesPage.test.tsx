import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { STANDING_REFRESH_DELAY_MS } from '../../../lib/cockpit/standing.js';
import type { StandingApproval } from '../../../store/standing-slice.js';
import { auditEntry } from '../../../testing/audit-fixtures.js';
import { stubRangeLayout } from '../../../testing/codemirror-dom.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { POLICY_PATH, PolicyDisk, TYPO_POLICY, VALID_POLICY } from '../../../testing/policy-fixtures.js';
import { afterDebounce, flushAll, typeDraft } from '../../../testing/render-policies.js';
import { flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { standingApproval } from '../../../testing/standing-fixtures.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { PoliciesPage } from './PoliciesPage.js';

beforeAll(stubRangeLayout);

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function runtime(standing: () => StandingApproval[], disk = new PolicyDisk({})): FakeTransport {
  return disk.serve(new FakeTransport('connected')).handle('approvals.listStanding', () => ({ ok: true, value: { standing: standing() } }));
}

async function renderPolicies(transport: FakeTransport) {
  const harness = renderCockpit(<PoliciesPage />, { transport });
  await flush();
  return harness;
}

const section = () => screen.getByRole('region', { name: 'Standing approvals' });
const revokeDelete = () => screen.getByRole('button', { name: 'Revoke always-allow for delete_file on files' });

describe('PoliciesPage', () => {
  it('has its h1 and lead, and explains standing approvals when there are none', async () => {
    await renderPolicies(runtime(() => []));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Policies');
    expect(screen.getByRole('region', { name: 'Policies' }).textContent).toMatch(/The AIP policies your proxies enforce/);
    expect(section().textContent).toContain('No standing approvals');
    expect(section().textContent).toContain('When you choose Always allow on a Review card');
    expect(screen.queryByRole('list')).toBeNull();
    expect(screen.queryByRole('button', { name: /^Revoke/ })).toBeNull();
  });

  it('lists each standing approval: server, tool, created time, short key, and arguments behind a toggle', async () => {
    const fetch = standingApproval(3, { server: 'web', tool: 'fetch', argsDisplay: '{"url":"https://example.com"}' });
    await renderPolicies(runtime(() => [fetch, standingApproval(1)]));
    const list = within(section()).getByRole('list', { name: 'Standing approvals' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('aria-label'))).toEqual(['delete_file on files', 'fetch on web']);

    const item = items[0]!;
    expect(item.textContent).toContain('Serverfiles');
    expect(item.textContent).toContain('Tooldelete_file');
    expect(item.textContent).toContain(`Created${formatLocalTime('2026-01-01T10:00:00.000Z')}`);
    const key = within(item).getByText('ed25519:9f2c1be07a51');
    expect(key.getAttribute('title')).toBe('ed25519:9f2c1be07a51d4c3e8f0aa11bb22cc33');

    const toggle = within(item).getByRole('button', { name: 'Arguments' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByLabelText('Arguments of delete_file on files')).toBeNull();
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const args = screen.getByLabelText('Arguments of delete_file on files');
    expect(args.tagName).toBe('PRE');
    expect(JSON.parse(args.textContent!)).toEqual({ path: '/home/ada/tmp/1.txt', token: '[REDACTED:api_key]' });
    fireEvent.click(toggle);
    expect(screen.queryByLabelText('Arguments of delete_file on files')).toBeNull();

    expect(revokeDelete().textContent).toBe('Revoke');
    expect(screen.getByRole('button', { name: 'Revoke always-allow for delete_file on files', description: 'The next identical call asks you again' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Revoke always-allow for fetch on web' })).toBeTruthy();
  });

  it('revokes, waiting on the runtime, then shows the refreshed list', async () => {
    let standing = [standingApproval(1), standingApproval(2, { tool: 'write_file' })];
    let answer: () => void = () => {};
    const transport = runtime(() => standing).handle(
      'approvals.revokeStanding',
      (args) =>
        new Promise((resolve) => {
          answer = () => {
            standing = [standingApproval(2, { tool: 'write_file' })];
            resolve({ ok: true, value: args });
          };
        }),
    );
    await renderPolicies(transport);
    fireEvent.click(revokeDelete());
    expect(transport.callsTo('approvals.revokeStanding')).toEqual([{ id: 'standing-1' }]);
    expect((revokeDelete() as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Revoke always-allow for write_file on files' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Revoking…')).toBeTruthy();

    await act(async () => answer());
    await flush();
    expect(screen.queryByRole('button', { name: 'Revoke always-allow for delete_file on files' })).toBeNull();
    expect((screen.getByRole('button', { name: 'Revoke always-allow for write_file on files' }) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.queryByText('Revoking…')).toBeNull();
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(2);
  });

  it('shows a failed revocation inline with the runtime message and lets the person retry', async () => {
    const transport = runtime(() => [standingApproval(1)]).handle('approvals.revokeStanding', () => ({
      ok: false,
      error: { code: 'E_DB_FAILURE', message: 'database is locked' },
    }));
    await renderPolicies(transport);
    fireEvent.click(revokeDelete());
    await flush();
    const item = screen.getByRole('listitem', { name: 'delete_file on files' });
    expect(within(item).getByRole('alert').textContent).toBe('Could not revoke: database is locked (E_DB_FAILURE)');
    expect((revokeDelete() as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(revokeDelete());
    expect(transport.callsTo('approvals.revokeStanding')).toHaveLength(2);
  });

  it('reports a failed revocation above the list when the approval is gone meanwhile', async () => {
    let standing = [standingApproval(1)];
    const transport = runtime(() => standing).handle('approvals.revokeStanding', () => {
      standing = [];
      return { ok: false, error: { code: 'E_INVALID_ARGS', message: 'no active standing approval standing-1; it was already revoked' } };
    });
    await renderPolicies(transport);
    fireEvent.click(revokeDelete());
    await flush();
    expect(within(section()).getByRole('alert').textContent).toBe(
      'Could not revoke: no active standing approval standing-1; it was already revoked (E_INVALID_ARGS)',
    );
    expect(section().textContent).toContain('No standing approvals');
  });

  it('refreshes when standing approvals are created or revoked elsewhere', async () => {
    vi.useFakeTimers();
    let standing: StandingApproval[] = [];
    const transport = runtime(() => standing);
    await renderPolicies(transport);
    expect(section().textContent).toContain('No standing approvals');

    standing = [standingApproval(1)];
    act(() => transport.emit('audit.appended', auditEntry(1, { event: 'approvals.standing_created', data: { server: 'files', tool: 'delete_file' } })));
    await act(async () => vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS));
    await flush();
    expect(revokeDelete()).toBeTruthy();

    standing = [];
    act(() => transport.emit('audit.appended', auditEntry(2, { event: 'approvals.standing_revoked', data: { server: 'files', tool: 'delete_file' } })));
    await act(async () => vi.advanceTimersByTime(STANDING_REFRESH_DELAY_MS));
    await flush();
    expect(screen.queryByRole('button', { name: /^Revoke/ })).toBeNull();
    expect(section().textContent).toContain('No standing approvals');
    expect(transport.callsTo('approvals.listStanding')).toHaveLength(3);
  });

  it('says why the standing approvals could not be loaded', async () => {
    const transport = new PolicyDisk({}).serve(new FakeTransport('connected')).handle('approvals.listStanding', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }));
    await renderPolicies(transport);
    expect(within(section()).getByRole('alert').textContent).toBe('Could not load the standing approvals: database is locked (E_DB_FAILURE)');
  });

  it('opens a policy in the editor, checks each edit with the runtime, saves it signed, and tries the draft', async () => {
    const disk = new PolicyDisk();
    const harness = await renderPolicies(runtime(() => [], disk));
    expect(within(screen.getByRole('list', { name: 'Policies' })).getAllByRole('listitem').map((item) => item.getAttribute('aria-label'))).toEqual(['files.yaml']);
    expect(screen.queryByRole('region', { name: 'Test bench' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Open files.yaml' }));
    // The first check of the opened text runs after the editor's debounce, like every edit's.
    await afterDebounce();
    expect(await screen.findByText('Nothing marked in the editor')).toBeTruthy();
    const editor = document.querySelector('.policy-code__host')!.shadowRoot!.querySelector('[aria-label="Policy YAML"]');
    expect(editor?.textContent).toContain('allowed_tools: [read_file]');
    expect(screen.getByRole('region', { name: 'Problems' }).textContent).toContain('No problems');
    expect(screen.getByRole('region', { name: 'Test bench' })).toBeTruthy();
    expect(screen.getByRole('region', { name: 'History' }).textContent).toContain('No saved version yet');

    typeDraft(harness, TYPO_POLICY);
    await afterDebounce();
    expect(screen.getByRole('region', { name: 'Problems' }).textContent).toContain('line 6, column 3: unknown key "alowed_tools"');
    expect(await screen.findByText('1 problem marked in the editor')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Save and sign', description: 'Fix the 1 problem first' })).toHaveProperty('disabled', true);

    const fixed = `${VALID_POLICY}# reviewed\n`;
    typeDraft(harness, fixed);
    await afterDebounce();
    fireEvent.click(screen.getByRole('button', { name: 'Save and sign' }));
    await flushAll();
    expect(harness.transport.callsTo('policies.save')).toHaveLength(1);
    expect(within(screen.getByRole('region', { name: 'Editing files.yaml' })).getByRole('status').textContent).toBe('Saved version 1, signed');
    expect(disk.files.get(POLICY_PATH)).toBe(PolicyDisk.sign(fixed));
    expect(within(screen.getByRole('region', { name: 'History' })).getByRole('button', { name: 'Restore version 1' })).toBeTruthy();
    expect(within(screen.getByRole('listitem', { name: 'files.yaml' })).getByText('Signed')).toBeTruthy();

    const bench = screen.getByRole('region', { name: 'Test bench' });
    fireEvent.change(within(bench).getByRole('textbox', { name: 'Tool' }), { target: { value: 'read_file' } });
    fireEvent.click(within(bench).getByRole('button', { name: 'Try' }));
    await flushAll();
    expect(within(screen.getByRole('table', { name: 'Test results' })).getAllByRole('row')).toHaveLength(2);
  });
});
