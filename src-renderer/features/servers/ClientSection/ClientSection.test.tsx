import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentClientView } from '../../../../src-shared/schemas/clients.js';
import { agentClient, CLAUDE_FILE, clientServer, POLICY } from '../../../testing/client-fixtures.js';
import { formatLocalTime } from '../../activity/audit-format.js';
import { ClientSection, type ClientSectionProps } from './ClientSection.js';

afterEach(cleanup);

function renderSection(client: AgentClientView, overrides: Partial<ClientSectionProps> = {}) {
  const props: ClientSectionProps = {
    client,
    flow: null,
    busy: false,
    unwrapping: false,
    unwrapError: null,
    outcome: null,
    onOpenWrap: vi.fn(),
    onPreview: vi.fn(),
    onApply: vi.fn(),
    onCancel: vi.fn(),
    onUnwrap: vi.fn(),
    ...overrides,
  };
  render(<ClientSection {...props} />);
  return { props, region: screen.getByRole('region', { name: client.label }) };
}

const consequence = (button: HTMLElement) => document.getElementById(button.getAttribute('aria-describedby')!)?.textContent;

const wrappedClient = () =>
  agentClient({
    servers: [
      clientServer('files', { wrapped: true, policy: POLICY }),
      clientServer('github', { wrapped: true, policy: POLICY }),
      clientServer('linear', { transport: 'remote', reason: 'remote servers (url) are not stdio; the proxy relays stdio only' }),
    ],
    lastWrap: { backup: `${CLAUDE_FILE}.silas-backup-2026-03-01T091530.123Z`, wrappedAt: '2026-03-01T09:15:30.123Z', servers: ['files', 'github'] },
  });

describe('ClientSection', () => {
  it('shows the file and each server with transport and status, and offers "Wrap servers…"', () => {
    const { region, props } = renderSection(agentClient());
    expect(region.textContent).toContain(CLAUDE_FILE);
    expect(region.textContent).toContain('0 of 3 servers wrapped');
    const table = within(region).getByRole('table', { name: 'MCP servers of Claude Desktop' });
    expect(within(table).getAllByRole('row').map((r) => within(r).queryAllByRole('cell').map((c) => c.textContent))).toEqual([
      [],
      ['files', 'stdio', 'Not wrapped'],
      ['github', 'stdio', 'Not wrapped'],
      ['linear', 'remote (HTTP)', 'Not wrappable: remote servers (url) are not stdio; the proxy relays stdio only'],
    ]);
    expect(within(region).queryByRole('button', { name: 'Unwrap' })).toBeNull();
    const wrap = within(region).getByRole('button', { name: 'Wrap servers…' });
    expect(consequence(wrap)).toBe('Choose a policy and preview the changes; nothing is written yet');
    fireEvent.click(wrap);
    expect(props.onOpenWrap).toHaveBeenCalledOnce();
  });

  it('shows wrapped servers with their policy, the backup, and Unwrap with its consequence', () => {
    const { region, props } = renderSection(wrappedClient());
    expect(region.textContent).toContain('2 of 3 servers wrapped');
    expect(within(region).getAllByRole('row')[1]!.textContent).toBe(`filesstdioWrapped — policy ${POLICY}`);
    expect(region.textContent).toContain(`Wrapped by Silas on ${formatLocalTime('2026-03-01T09:15:30.123Z')}; the original is kept in ${CLAUDE_FILE}.silas-backup-`);
    expect(within(region).queryByRole('button', { name: 'Wrap servers…' })).toBeNull();
    const unwrap = within(region).getByRole('button', { name: 'Unwrap' });
    expect(consequence(unwrap)).toBe(`Restores ${CLAUDE_FILE} exactly as it was before wrapping`);
    fireEvent.click(unwrap);
    expect(props.onUnwrap).toHaveBeenCalledOnce();
  });

  it('waits while unwrapping, and shows a failed unwrap and an outcome in words', () => {
    renderSection(wrappedClient(), { unwrapping: true });
    expect((screen.getByRole('button', { name: 'Unwrap' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Restoring…')).toBeTruthy();
    cleanup();
    const { region } = renderSection(wrappedClient(), { unwrapError: 'changed since silas wrapped it (E_CFG_INVALID)', outcome: { client: 'claude-desktop', message: 'Restored it.' } });
    expect(within(region).getByRole('alert').textContent).toBe('Could not unwrap: changed since silas wrapped it (E_CFG_INVALID)');
    expect(within(region).getByRole('status').textContent).toBe('Restored it.');
  });

  it('says why a configuration cannot be read, and offers nothing to do with it', () => {
    const { region } = renderSection(agentClient({ servers: [], error: `${CLAUDE_FILE}:3:7: not valid JSON: unexpected token` }));
    expect(within(region).getByRole('alert').textContent).toBe(`Cannot read this configuration: ${CLAUDE_FILE}:3:7: not valid JSON: unexpected token`);
    expect(within(region).queryByRole('table')).toBeNull();
    expect(within(region).queryByRole('button')).toBeNull();
  });

  it('while another flow is open, its buttons wait; its own flow replaces them', () => {
    renderSection(agentClient(), { busy: true });
    expect((screen.getByRole('button', { name: 'Wrap servers…' }) as HTMLButtonElement).disabled).toBe(true);
    cleanup();
    const { region } = renderSection(agentClient(), { flow: { client: 'claude-desktop', phase: 'editing', requestedPolicy: null, plan: null, error: null } });
    expect(within(region).queryByRole('button', { name: 'Wrap servers…' })).toBeNull();
    expect(within(region).getByRole('group', { name: 'Wrap servers of Claude Desktop' })).toBeTruthy();
  });

  it("its wrap flow offers the client's unwrapped stdio servers and passes the chosen names on", () => {
    const client = agentClient({ servers: [clientServer('files', { wrapped: true, policy: POLICY }), clientServer('github'), clientServer('search'), agentClient().servers[2]!] });
    const { region, props } = renderSection(client, { flow: { client: 'claude-desktop', phase: 'editing', requestedPolicy: null, plan: null, error: null } });
    const group = within(region).getByRole('group', { name: 'Wrap servers of Claude Desktop' });
    const choices = within(group).getByRole('group', { name: 'Choose the servers to wrap' });
    expect(within(choices).getAllByRole('checkbox').map((c) => [c.getAttribute('value'), (c as HTMLInputElement).checked, (c as HTMLInputElement).disabled])).toEqual([
      ['files', false, true],
      ['github', true, false],
      ['search', true, false],
      ['linear', false, true],
    ]);
    fireEvent.click(within(choices).getByRole('checkbox', { name: 'search' }));
    fireEvent.change(within(group).getByRole('textbox', { name: 'Policy file' }), { target: { value: POLICY } });
    fireEvent.click(within(group).getByRole('button', { name: 'Preview changes' }));
    expect(props.onPreview).toHaveBeenCalledExactlyOnceWith(POLICY, ['github']);
  });
});
