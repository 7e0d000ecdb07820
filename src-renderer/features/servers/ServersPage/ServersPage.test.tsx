import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GovernedServer } from '../../../../src-shared/schemas/servers.js';
import { SERVERS_REFRESH_DELAY_MS } from '../../../lib/cockpit/servers.js';
import { auditEntry } from '../../../testing/audit-fixtures.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { agentClient } from '../../../testing/client-fixtures.js';
import { decision, denial, governedServer, hash, pin, sandboxSummary } from '../../../testing/server-fixtures.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { ServersPage } from './ServersPage.js';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function runtime(servers: () => GovernedServer[]): FakeTransport {
  return new FakeTransport('connected')
    .handle('servers.list', () => ({ ok: true, value: { servers: servers() } }))
    .handle('clients.list', () => ({ ok: true, value: { clients: [] } }));
}

async function renderServers(transport: FakeTransport) {
  const harness = renderCockpit(<ServersPage />, { transport });
  await flush();
  return harness;
}

const changedFetch = pin('fetch', { approvedHash: hash('1'), pendingHash: hash('2'), pendingSince: '2026-01-02T08:00:00.000Z' });
const web = () => governedServer('web', { pins: [changedFetch, pin('stable', { approvedHash: hash('3') })] });
const approveFetch = () => screen.getByRole('button', { name: 'Approve new definition of fetch' });

describe('ServersPage', () => {
  it('explains how to put a server behind Silas when none has been seen', async () => {
    await renderServers(runtime(() => []));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Servers');
    const page = screen.getByRole('region', { name: 'Servers' });
    expect(page.textContent).toContain('No MCP server has run through Silas yet');
    expect(page.textContent).toContain('silas clients wrap CLIENT --policy FILE');
    expect(page.textContent).toContain('silas proxy --policy FILE -- COMMAND');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows each server as a region: last start, policy with short hash, pinned tools and recent decisions', async () => {
    const files = governedServer('files', {
      pins: [pin('delete_file', { approvedHash: hash('d'), firstSeenAt: '2026-01-01T09:30:00.000Z' }), pin('read_file', { approvedHash: hash('e') })],
      recentDecisions: [
        decision(12, 'delete_file', 'ALLOW', { approval_nonce: 'n-1' }),
        decision(11, 'write_file', 'BLOCK', { violation: true, reason: 'tool write_file is not in allowed_tools' }),
        decision(10, 'delete_file', 'ASK'),
      ],
    });
    await renderServers(runtime(() => [files, governedServer('web', { pins: [], policyName: null, policyHash: null, lastStartedAt: null })]));
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['files', 'web', 'Agent clients']);

    const region = screen.getByRole('region', { name: 'files' });
    expect(region.textContent).toContain(`Last started${formatLocalTime('2026-01-01T12:00:00.000Z')}`);
    expect(within(region).getByText('workstation')).toBeTruthy();
    expect(within(region).getByText('c0ffeec0ffee').getAttribute('title')).toBe(files.policyHash);

    const pins = within(region).getByRole('table', { name: 'Pinned tools' });
    expect(within(pins).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['Tool', 'Approved hash', 'First seen']);
    expect(within(pins).getAllByRole('row').slice(1).map((r) => r.textContent)).toEqual([
      `delete_filedddddddddddd${formatLocalTime('2026-01-01T09:30:00.000Z')}`,
      `read_fileeeeeeeeeeeee${formatLocalTime('2026-01-01T12:00:00.000Z')}`,
    ]);

    const decisions = within(region).getByRole('table', { name: 'Recent decisions' });
    expect(within(decisions).getAllByRole('columnheader').map((c) => c.textContent)).toEqual(['Time', 'Tool', 'Decision', 'Violation']);
    const rows = within(decisions).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell').slice(1).map((c) => c.textContent))).toEqual([
      ['delete_file', 'Allow', 'No'],
      ['write_file', 'Block', 'Yes — tool write_file is not in allowed_tools'],
      ['delete_file', 'Ask', 'No'],
    ]);
    expect(within(rows[0]!).getAllByRole('cell')[0]!.textContent).toBe(formatLocalTime(auditEntry(12).ts));

    const bare = screen.getByRole('region', { name: 'web' });
    expect(bare.textContent).toContain('Last startedNot recorded');
    expect(bare.textContent).toContain('PolicyNot recorded');
    expect(bare.textContent).toContain('No tools pinned yet');
    expect(bare.textContent).toContain('No tool calls through this server yet.');
    expect(within(bare).queryByRole('table')).toBeNull();
  });

  it('shows at most the last 20 decisions', async () => {
    const many = Array.from({ length: 25 }, (_, i) => decision(100 - i, `tool_${i}`, 'ALLOW'));
    await renderServers(runtime(() => [governedServer('files', { recentDecisions: many })]));
    const decisions = screen.getByRole('table', { name: 'Recent decisions' });
    expect(within(decisions).getAllByRole('row')).toHaveLength(21);
  });

  it('warns prominently under a changed tool, with both hashes and the consequence of approving', async () => {
    await renderServers(runtime(() => [web()]));
    const region = screen.getByRole('region', { name: 'web' });
    expect(region.textContent).toContain('1 changed tool waits for you');
    const warning = within(region).getByRole('group', { name: 'Changed definition of fetch' });
    expect(warning.textContent).toContain('Definition changed — hidden from the agent and refused until you approve');
    expect(warning.textContent).toContain('Approved 111111111111 → announced 222222222222');
    expect(warning.textContent).toContain(`since ${formatLocalTime('2026-01-02T08:00:00.000Z')}`);
    const rows = within(within(region).getByRole('table', { name: 'Pinned tools' })).getAllByRole('row');
    expect(rows.map((r) => r.textContent?.slice(0, 6))).toEqual(['ToolAp', 'fetch1', 'Defini', 'stable']);
    expect(within(warning).getByRole('button', { name: 'Approve new definition of fetch' })).toBeTruthy();
    expect(approveFetch().getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(approveFetch().getAttribute('aria-describedby')!)?.textContent).toBe('The agent can see and call the changed tool again');
  });

  it('approves the new definition by answering its Review card, waiting on the runtime, then shows the tool as trusted', async () => {
    let approved = false;
    let answer: () => void = () => {};
    const transport = runtime(() => (approved ? [governedServer('web', { pins: [pin('fetch', { approvedHash: hash('2') }), pin('stable', { approvedHash: hash('3') })] })] : [web()])).handle(
      'review.decide',
      (args) =>
        new Promise((resolve) => {
          answer = () => {
            approved = true;
            resolve({ ok: true, value: { ...(args as { id: string; choice: string }), kind: 'tool_change', outcome: 'approved' } });
          };
        }),
    );
    await renderServers(transport);
    fireEvent.click(approveFetch());
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'tool_change-fetch', choice: 'approve' }]);
    expect((approveFetch() as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Approving…')).toBeTruthy();

    await act(async () => answer());
    await flush();
    expect(screen.queryByRole('group', { name: 'Changed definition of fetch' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Approve new definition/ })).toBeNull();
    const pins = screen.getByRole('table', { name: 'Pinned tools' });
    expect(within(pins).getAllByRole('row')[1]!.textContent).toContain('fetch222222222222');
    expect(screen.getByRole('region', { name: 'web' }).textContent).not.toContain('waits for you');
  });

  it('shows a failed approval inline with the runtime message and lets the person retry', async () => {
    const transport = runtime(() => [web()]).handle('review.decide', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'no pending decision tool_change-fetch; reload the Servers page' },
    }));
    await renderServers(transport);
    fireEvent.click(approveFetch());
    await flush();
    const warning = screen.getByRole('group', { name: 'Changed definition of fetch' });
    expect(within(warning).getByRole('alert').textContent).toBe(
      'Could not approve the new definition: no pending decision tool_change-fetch; reload the Servers page (E_INVALID_ARGS)',
    );
    expect((approveFetch() as HTMLButtonElement).disabled).toBe(false);
    fireEvent.click(approveFetch());
    expect(transport.callsTo('review.decide')).toHaveLength(2);
  });

  it('waits while any decision is on its way, and for a change the runtime has no Review card for yet', async () => {
    const orphan = pin('other', { approvedHash: hash('4'), pendingHash: hash('5'), decisionId: null });
    const transport = runtime(() => [governedServer('web', { pins: [changedFetch, orphan] })]).handle('review.decide', () => new Promise(() => {}));
    const harness = await renderServers(transport);
    const approveOther = screen.getByRole('button', { name: 'Approve new definition of other' }) as HTMLButtonElement;
    expect(approveOther.disabled).toBe(true);
    fireEvent.click(approveOther);
    expect(transport.callsTo('review.decide')).toEqual([]);

    act(() => harness.cockpit.actions.decide('tool_call-9', 'deny'));
    expect((approveFetch() as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByText('Approving…')).toBeNull();
  });

  it('refreshes when proxy events arrive, so a new change shows up without a reload', async () => {
    vi.useFakeTimers();
    let servers: GovernedServer[] = [];
    const transport = runtime(() => servers);
    await renderServers(transport);
    expect(screen.getByText('No MCP server has run through Silas yet')).toBeTruthy();

    servers = [governedServer('web', { pins: [pin('fetch'), pin('stable')] })];
    act(() => transport.emit('audit.appended', auditEntry(1, { event: 'mcp.proxy_started', data: { server: 'web' } })));
    act(() => transport.emit('audit.appended', auditEntry(2, { event: 'mcp.tool_pinned', data: { server: 'web', tool: 'fetch' } })));
    await act(async () => vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS));
    await flush();
    expect(screen.getByRole('region', { name: 'web' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /^Approve new definition/ })).toBeNull();

    servers = [web()];
    act(() => transport.emit('audit.appended', auditEntry(3, { event: 'mcp.tool_changed', data: { server: 'web', tool: 'fetch' } })));
    await act(async () => vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS));
    await flush();
    expect(approveFetch()).toBeTruthy();
    expect(transport.callsTo('servers.list')).toHaveLength(3);
  });

  it('puts a rejected policy edit first in its server, prominently, with each error line', async () => {
    const errors = ['/home/ada/files.yaml:7:5 spec.tool_rules[0]: unknown key "alow_args" [E_SCHEMA]', '/home/ada/files.yaml:9:1 spec: bad indentation'];
    await renderServers(runtime(() => [governedServer('files', { policyError: { at: '2026-03-01T09:00:00.000Z', errors } }), governedServer('web')]));
    const files = screen.getByRole('region', { name: 'files' });
    expect(files.className).toContain('server--attention');
    const alert = within(files).getByRole('alert');
    expect(alert.textContent).toContain('Policy edit rejected — the last valid policy stays in force');
    expect(within(alert).getAllByRole('listitem').map((li) => li.textContent)).toEqual(errors);
    // The policy still shown is the one in force.
    expect(files.textContent).toContain('Policyworkstation');
    expect(within(screen.getByRole('region', { name: 'web' })).queryByRole('alert')).toBeNull();
  });

  it("shows each server's own sandbox and denials, and marks an unsandboxed server for attention", async () => {
    const files = governedServer('files', { sandbox: sandboxSummary(), sandboxDenials: [denial(9, 'evil.example', 443)] });
    const web = governedServer('web', { sandbox: sandboxSummary({ backend: 'none', unsandboxedReason: '--no-sandbox' }) });
    await renderServers(runtime(() => [files, web, governedServer('old')]));
    const filesSandbox = within(screen.getByRole('region', { name: 'files' })).getByRole('region', { name: 'Sandbox' });
    expect(within(within(filesSandbox).getByRole('table', { name: 'Recent denials' })).getAllByRole('row')[1]!.textContent).toContain('evil.example:443');
    expect(screen.getByRole('region', { name: 'files' }).className).not.toContain('server--attention');
    const webRegion = screen.getByRole('region', { name: 'web' });
    expect(webRegion.className).toContain('server--attention');
    expect(within(within(webRegion).getByRole('region', { name: 'Sandbox' })).getByRole('alert').textContent).toContain('Unsandboxed — started with --no-sandbox.');
    expect(within(screen.getByRole('region', { name: 'old' })).getByRole('region', { name: 'Sandbox' }).textContent).toContain('Not recorded (started before sandboxing was recorded)');
  });

  it('lists the agent clients below the governed servers', async () => {
    const transport = runtime(() => [governedServer('files')]).handle('clients.list', () => ({ ok: true, value: { clients: [agentClient()] } }));
    await renderServers(transport);
    const clients = screen.getByRole('region', { name: 'Agent clients' });
    expect(within(clients).getByRole('region', { name: 'Claude Desktop' })).toBeTruthy();
    const regions = screen.getAllByRole('region').map((r) => r.getAttribute('aria-labelledby') && document.getElementById(r.getAttribute('aria-labelledby')!)?.textContent);
    expect(regions).toEqual(['Servers', 'files', 'Sandbox', 'Agent clients', 'Claude Desktop']);
  });

  it('says why the servers could not be loaded', async () => {
    const transport = new FakeTransport('connected')
      .handle('servers.list', () => ({ ok: false, error: { code: 'E_DB_FAILURE', message: 'database is locked' } }))
      .handle('clients.list', () => ({ ok: true, value: { clients: [] } }));
    await renderServers(transport);
    expect(screen.getByRole('alert').textContent).toBe('Could not load the servers: database is locked (E_DB_FAILURE)');
  });
});
