import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GovernedServer } from '../../src-shared/schemas/servers.js';
import { createCockpitStore } from '../store/cockpit-store.js';
import { auditEntry } from '../test/audit-fixtures.js';
import { FakeTransport, settle } from '../test/fake-transport.js';
import { governedServer, hash, pin } from '../test/server-fixtures.js';
import { connectCockpit, SERVERS_REFRESH_DELAY_MS } from './cockpit.js';

function runtimeWith(servers: () => GovernedServer[]): FakeTransport {
  return new FakeTransport().handle('servers.list', () => ({ ok: true, value: { servers: servers() } }));
}

const appended = (index: number, event: string) => auditEntry(index, { event, data: { server: 'files' } });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connectCockpit: servers', () => {
  it('loads servers.list on every (re)connect', async () => {
    const transport = runtimeWith(() => [governedServer('files')]);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('servers.list')).toEqual([{}]);
    expect(store.getState().servers).toMatchObject({ status: 'ready', servers: [governedServer('files')] });
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('servers.list')).toHaveLength(2);
  });

  it('refreshes once, debounced, after a burst of mcp.* and aip.decision events, and not for others', async () => {
    let name = 'files';
    const transport = runtimeWith(() => [governedServer(name)]);
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();

    transport.emit('audit.appended', appended(10, 'runtime.started'));
    transport.emit('audit.appended', appended(11, 'approvals.approved'));
    vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS * 2);
    expect(transport.callsTo('servers.list')).toHaveLength(1);

    name = 'web';
    transport.emit('audit.appended', appended(12, 'mcp.proxy_started'));
    vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS - 50);
    transport.emit('audit.appended', appended(13, 'mcp.tool_pinned'));
    transport.emit('audit.appended', appended(14, 'aip.decision'));
    vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS - 50);
    expect(transport.callsTo('servers.list')).toHaveLength(1);
    vi.advanceTimersByTime(50);
    await settle();
    expect(transport.callsTo('servers.list')).toHaveLength(2);
    expect(store.getState().servers.servers.map((s) => s.name)).toEqual(['web']);
    // The entries still reach the audit log as usual.
    expect(store.getState().audit.entries.map((e) => e.index)).toEqual([14, 13, 12, 11, 10]);
  });

  it('drops a refresh that was overtaken by a newer one, and stops refreshing once disposed', async () => {
    const answers: ((servers: GovernedServer[]) => void)[] = [];
    const transport = new FakeTransport().handle('servers.list', () => new Promise((resolve) => answers.push((servers) => resolve({ ok: true, value: { servers } }))));
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    transport.emit('audit.appended', appended(1, 'mcp.tool_changed'));
    vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS);
    expect(answers).toHaveLength(2);
    answers[1]!([governedServer('new')]);
    await settle();
    answers[0]!([governedServer('old')]);
    await settle();
    expect(store.getState().servers.servers.map((s) => s.name)).toEqual(['new']);

    transport.emit('audit.appended', appended(2, 'mcp.tool_changed'));
    cockpit.dispose();
    vi.advanceTimersByTime(SERVERS_REFRESH_DELAY_MS * 2);
    expect(answers).toHaveLength(2);
  });

  it('approves a changed tool with servers.approveToolChange, one at a time, then reloads the list', async () => {
    let pending = true;
    let answer: () => void = () => {};
    const transport = runtimeWith(() => [governedServer('web', { pins: [pin('fetch', pending ? { pendingHash: hash('b'), pendingSince: '2026-01-02T00:00:00.000Z' } : { approvedHash: hash('b') })] })]).handle(
      'servers.approveToolChange',
      (args) =>
        new Promise((resolve) => {
          answer = () => {
            pending = false;
            resolve({ ok: true, value: args });
          };
        }),
    );
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.approveToolChange({ server: 'web', tool: 'fetch' }, hash('b'));
    cockpit.actions.approveToolChange({ server: 'web', tool: 'fetch' }, hash('b'));
    expect(transport.callsTo('servers.approveToolChange')).toEqual([{ server: 'web', tool: 'fetch', hash: hash('b') }]);
    expect(store.getState().servers.approving).toEqual({ server: 'web', tool: 'fetch' });
    answer();
    await settle();
    expect(store.getState().servers.approving).toBeNull();
    expect(store.getState().servers.servers[0]!.pins[0]).toMatchObject({ approvedHash: hash('b'), pendingHash: null });
    expect(transport.callsTo('servers.list')).toHaveLength(2);
  });

  it('keeps a failed approval with the runtime message', async () => {
    const transport = runtimeWith(() => [governedServer('web', { pins: [pin('fetch', { pendingHash: hash('b') })] })]).handle('servers.approveToolChange', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'no pending change' },
    }));
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.approveToolChange({ server: 'web', tool: 'fetch' }, hash('b'));
    await settle();
    expect(store.getState().servers).toMatchObject({ approving: null, approveError: { server: 'web', tool: 'fetch', message: 'no pending change (E_INVALID_ARGS)' } });
    expect(store.getState().servers.servers[0]!.pins[0]!.pendingHash).toBe(hash('b'));
  });
});
