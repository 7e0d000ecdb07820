import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { agentClient } from '../../testing/client-fixtures.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { CLIENTS_REFRESH_DELAY_MS } from './clients.js';
import { connectCockpit } from './connect.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const runtime = () => new FakeTransport().handle('clients.list', () => ({ ok: true, value: { clients: [agentClient()] } }));

describe('connectCockpit: agent clients', () => {
  it('loads clients.list on every (re)connect', async () => {
    const transport = runtime();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('clients.list')).toEqual([{}]);
    expect(store.getState().clients).toMatchObject({ status: 'ready', clients: [agentClient()] });
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('clients.list')).toHaveLength(2);
  });

  it('refreshes once after a burst of wrap/unwrap events, and not for other mcp events', async () => {
    const transport = runtime();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.emit('audit.appended', auditEntry(10, { event: 'mcp.proxy_started', data: { server: 'files' } }));
    vi.advanceTimersByTime(CLIENTS_REFRESH_DELAY_MS * 2);
    expect(transport.callsTo('clients.list')).toHaveLength(1);
    transport.emit('audit.appended', auditEntry(11, { event: 'mcp.client_wrapped', data: { client: 'claude-desktop' } }));
    transport.emit('audit.appended', auditEntry(12, { event: 'mcp.client_wrap_failed', data: { client: 'claude-desktop' } }));
    vi.advanceTimersByTime(CLIENTS_REFRESH_DELAY_MS);
    expect(transport.callsTo('clients.list')).toHaveLength(2);
  });

  it('reads the configurations again each time the Servers page is opened', async () => {
    const transport = runtime();
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.navigate('servers');
    actions.navigate('servers');
    expect(transport.callsTo('clients.list')).toHaveLength(2);
    actions.navigate('review');
    actions.navigate('servers');
    expect(transport.callsTo('clients.list')).toHaveLength(3);
  });

  it('sends one unwrap at a time', async () => {
    const transport = runtime().handle('clients.unwrap', () => new Promise(() => {}));
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.unwrapClient('claude-desktop');
    actions.unwrapClient('claude-desktop');
    expect(transport.callsTo('clients.unwrap')).toEqual([{ client: 'claude-desktop' }]);
    expect(store.getState().clients.unwrapping).toBe('claude-desktop');
  });
});
