import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentClientView } from '../../../../src-shared/schemas/clients.js';
import type { Envelope } from '../../../../src-shared/contract/index.js';
import { FakeTransport } from '../../../testing/fake-transport.js';
import { flush, renderCockpit } from '../../../testing/render-cockpit.js';
import { agentClient, CLAUDE_FILE, clientServer, missingClient, POLICY, wrapPlan } from '../../../testing/client-fixtures.js';
import { AgentClients } from './AgentClients.js';

afterEach(cleanup);

const BACKUP = `${CLAUDE_FILE}.silas-backup-2026-03-01T091530.123Z`;
const wrapped = () =>
  agentClient({
    servers: [clientServer('files', { wrapped: true, policy: POLICY }), clientServer('github', { wrapped: true, policy: POLICY }), agentClient().servers[2]!],
    lastWrap: { backup: BACKUP, wrappedAt: '2026-03-01T09:15:30.123Z', servers: ['files', 'github'] },
  });

function runtime(clients: () => AgentClientView[]): FakeTransport {
  return new FakeTransport('connected').handle('clients.list', () => ({
    ok: true,
    value: { clients: [...clients(), missingClient('cursor', 'Cursor', '/home/ada/.cursor/mcp.json')] },
  }));
}

async function renderClients(transport: FakeTransport) {
  const harness = renderCockpit(<AgentClients />, { transport });
  await flush();
  return { ...harness, region: screen.getByRole('region', { name: 'Agent clients' }) };
}

const claude = () => screen.getByRole('region', { name: 'Claude Desktop' });
const flowGroup = () => within(claude()).getByRole('group', { name: 'Wrap servers of Claude Desktop' });

async function preview(policy: string) {
  fireEvent.click(within(claude()).getByRole('button', { name: 'Wrap servers…' }));
  fireEvent.change(within(flowGroup()).getByRole('textbox', { name: 'Policy file' }), { target: { value: policy } });
  fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Preview changes' }));
  await flush();
}

describe('AgentClients', () => {
  it('lists found clients as regions and the others in one list, and says that quitting never unwraps', async () => {
    const { region } = await renderClients(runtime(() => [agentClient()]));
    expect(region.textContent).toContain('Quitting Silas never unwraps anything');
    expect(within(region).getByRole('table', { name: 'MCP servers of Claude Desktop' })).toBeTruthy();
    expect(within(region).getByRole('list', { name: 'Clients without an MCP configuration' }).textContent).toBe('Cursor: not found at /home/ada/.cursor/mcp.json');
  });

  it('wraps: policy, preview of the exact diff, apply with the previewed hash, then the list shows it wrapped', async () => {
    let isWrapped = false;
    const plan = wrapPlan();
    const transport = runtime(() => [isWrapped ? wrapped() : agentClient()])
      .handle('clients.planWrap', () => ({ ok: true, value: plan }))
      .handle('clients.wrap', () => {
        isWrapped = true;
        return { ok: true, value: { client: 'claude-desktop', file: CLAUDE_FILE, backup: BACKUP, servers: ['files', 'github'] } };
      });
    await renderClients(transport);
    await preview(` ${POLICY}`);
    expect(transport.callsTo('clients.planWrap')).toEqual([{ client: 'claude-desktop', policy: ` ${POLICY}`, servers: ['files', 'github'] }]);
    expect(flowGroup().querySelector('pre')!.textContent).toBe(plan.diff);
    expect(transport.callsTo('clients.wrap')).toEqual([]);

    fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Apply' }));
    await flush();
    expect(transport.callsTo('clients.wrap')).toEqual([{ client: 'claude-desktop', policy: POLICY, servers: ['files', 'github'], expectedDiffHash: plan.diffHash }]);
    expect(within(claude()).queryByRole('group')).toBeNull();
    expect(within(claude()).getByRole('status').textContent).toBe(`Wrapped 2 servers in ${CLAUDE_FILE}. Backup: ${BACKUP}. Restart Claude Desktop to use them.`);
    expect(claude().textContent).toContain(`Wrapped — policy ${POLICY}`);
    expect(within(claude()).getByRole('button', { name: 'Unwrap' })).toBeTruthy();
    expect(transport.callsTo('clients.list')).toHaveLength(2);
  });

  it("wraps only the checked servers: unchecking one re-plans, and the wrap sends the same names with that plan's hash", async () => {
    const full = wrapPlan();
    const github = wrapPlan({ diffHash: `sha256:${'e'.repeat(64)}`, wrap: [{ name: 'github', policy: POLICY }], skipped: [] });
    const transport = runtime(() => [agentClient()])
      .handle('clients.planWrap', (args) => ({ ok: true, value: (args as { servers: string[] }).servers.length === 1 ? github : full }))
      .handle('clients.wrap', () => ({ ok: true, value: { client: 'claude-desktop', file: CLAUDE_FILE, backup: BACKUP, servers: ['github'] } }));
    await renderClients(transport);
    await preview(POLICY);
    fireEvent.click(within(flowGroup()).getByRole('checkbox', { name: 'files' }));
    await flush();
    expect(transport.callsTo('clients.planWrap')).toEqual([
      { client: 'claude-desktop', policy: POLICY, servers: ['files', 'github'] },
      { client: 'claude-desktop', policy: POLICY, servers: ['github'] },
    ]);
    expect(within(flowGroup()).getByRole('list', { name: 'Servers to wrap' }).textContent).toBe(`github will run through silas proxy with policy ${POLICY}`);
    fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Apply' }));
    await flush();
    expect(transport.callsTo('clients.wrap')).toEqual([{ client: 'claude-desktop', policy: POLICY, servers: ['github'], expectedDiffHash: github.diffHash }]);
  });

  it("shows the runtime's policy validation error inline and lets the person fix the path", async () => {
    const message = `the policy /tmp/bad.yaml is not valid, so a wrapped server would not start; nothing was changed. Fix it:\n  /tmp/bad.yaml:7:3 spec: unknown key`;
    const transport = runtime(() => [agentClient()]).handle('clients.planWrap', (args) =>
      (args as { policy: string }).policy === POLICY ? { ok: true, value: wrapPlan() } : { ok: false, error: { code: 'E_CFG_INVALID', message } },
    );
    await renderClients(transport);
    await preview('/tmp/bad.yaml');
    const input = within(flowGroup()).getByRole('textbox', { name: 'Policy file' });
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(within(flowGroup()).getByRole('alert').textContent).toContain('/tmp/bad.yaml:7:3 spec: unknown key (E_CFG_INVALID)');
    expect(within(flowGroup()).queryByRole('button', { name: 'Apply' })).toBeNull();

    fireEvent.change(input, { target: { value: POLICY } });
    fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Preview changes' }));
    await flush();
    expect(within(flowGroup()).queryByRole('alert')).toBeNull();
    expect(within(flowGroup()).getByRole('button', { name: 'Apply' })).toBeTruthy();
  });

  it('asks for a policy before calling the runtime', async () => {
    const transport = runtime(() => [agentClient()]);
    await renderClients(transport);
    await preview('   ');
    expect(transport.callsTo('clients.planWrap')).toEqual([]);
    expect(within(flowGroup()).getByRole('alert').textContent).toBe('Give the policy file every wrapped server will run under.');
  });

  it('keeps the preview with the message when the plan changed since, and cancelling writes nothing', async () => {
    const transport = runtime(() => [agentClient()])
      .handle('clients.planWrap', () => ({ ok: true, value: wrapPlan() }))
      .handle('clients.wrap', () => ({ ok: false, error: { code: 'E_BAD_REQUEST', message: `${CLAUDE_FILE} or the policy changed since the preview; nothing was changed. Preview the changes again, then apply.` } }));
    await renderClients(transport);
    await preview(POLICY);
    fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Apply' }));
    await flush();
    expect(within(flowGroup()).getByRole('alert').textContent).toContain('changed since the preview; nothing was changed. Preview the changes again');
    fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Cancel' }));
    expect(within(claude()).queryByRole('group')).toBeNull();
    expect(within(claude()).getByRole('button', { name: 'Wrap servers…' })).toBeTruthy();
  });

  it('drops a preview that arrives after Cancel', async () => {
    let answer: (value: Envelope<unknown>) => void = () => {};
    const transport = runtime(() => [agentClient()]).handle('clients.planWrap', () => new Promise((resolve) => (answer = resolve)));
    await renderClients(transport);
    await preview(POLICY);
    fireEvent.click(within(flowGroup()).getByRole('button', { name: 'Cancel' }));
    await act(async () => answer({ ok: true, value: wrapPlan() }));
    await flush();
    expect(within(claude()).queryByRole('group')).toBeNull();
    expect(claude().querySelector('pre')).toBeNull();
  });

  it('unwraps, then shows the restored configuration; a refused unwrap shows the runtime message', async () => {
    let isWrapped = true;
    let refuse = true;
    const transport = runtime(() => [isWrapped ? wrapped() : agentClient()]).handle('clients.unwrap', () => {
      if (refuse) return { ok: false, error: { code: 'E_CFG_INVALID', message: `${CLAUDE_FILE} changed since silas wrapped it; nothing was changed.` } };
      isWrapped = false;
      return { ok: true, value: { client: 'claude-desktop', file: CLAUDE_FILE, backup: BACKUP, servers: ['files', 'github'] } };
    });
    await renderClients(transport);
    fireEvent.click(within(claude()).getByRole('button', { name: 'Unwrap' }));
    await flush();
    expect(within(claude()).getByRole('alert').textContent).toBe(`Could not unwrap: ${CLAUDE_FILE} changed since silas wrapped it; nothing was changed. (E_CFG_INVALID)`);

    refuse = false;
    fireEvent.click(within(claude()).getByRole('button', { name: 'Unwrap' }));
    await flush();
    expect(transport.callsTo('clients.unwrap')).toEqual([{ client: 'claude-desktop' }, { client: 'claude-desktop' }]);
    expect(within(claude()).queryByRole('alert')).toBeNull();
    expect(within(claude()).getByRole('status').textContent).toBe(`Restored ${CLAUDE_FILE} byte for byte from ${BACKUP}. Restart Claude Desktop to use its servers directly.`);
    expect(within(claude()).queryByRole('button', { name: 'Unwrap' })).toBeNull();
    expect(claude().textContent).toContain('0 of 3 servers wrapped');
  });

  it('says why the clients could not be loaded', async () => {
    const transport = new FakeTransport('connected').handle('clients.list', () => ({ ok: false, error: { code: 'E_CFG_INVALID', message: 'wraps.json is not valid JSON' } }));
    await renderClients(transport);
    expect(screen.getByRole('alert').textContent).toBe('Could not load the agent clients: wraps.json is not valid JSON (E_CFG_INVALID)');
  });
});
