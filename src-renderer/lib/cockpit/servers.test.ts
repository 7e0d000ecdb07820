import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GovernedServer } from '../../../src-shared/schemas/servers.js';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { governedServer, hash, pin } from '../../testing/server-fixtures.js';
import { SERVERS_REFRESH_DELAY_MS } from './servers.js';
import { connectCockpit } from './connect.js';

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

  it('accepts a changed tool with review.decide on its card, one decision at a time, marks it trusted, then reloads the list', async () => {
    let pending = true;
    let answer: () => void = () => {};
    let releaseList: () => void = () => {};
    const changed = () => pin('fetch', pending ? { pendingHash: hash('b'), pendingSince: '2026-01-02T00:00:00.000Z', decisionId: 'card-7' } : { approvedHash: hash('b') });
    const list = () => ({ ok: true as const, value: { servers: [governedServer('web', { pins: [changed(), pin('stable')] }), governedServer('files')] } });
    // The reload after the decision waits until the test lets it answer.
    const transport = new FakeTransport()
      .handle('servers.list', () => (pending ? list() : new Promise((resolve) => (releaseList = () => resolve(list())))))
      .handle(
        'review.decide',
        (args) =>
          new Promise((resolve) => {
            answer = () => {
              pending = false;
              resolve({ ok: true, value: { ...(args as { id: string; choice: string }), kind: 'tool_change', outcome: 'approved' } });
            };
          }),
      );
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.decide('card-7', 'approve');
    cockpit.actions.decide('card-7', 'approve');
    expect(transport.callsTo('review.decide')).toEqual([{ id: 'card-7', choice: 'approve' }]);
    expect(store.getState().review.deciding).toBe('card-7');
    answer();
    await settle();
    // Trusted at once, before the reload answers.
    expect(transport.callsTo('servers.list')).toHaveLength(2);
    expect(store.getState().review.deciding).toBeNull();
    expect(store.getState().servers.servers[0]!.pins[0]).toMatchObject({ tool: 'fetch', approvedHash: hash('b'), pendingHash: null, pendingSince: null, decisionId: null });
    expect(store.getState().servers.servers[0]!.pins[1]).toEqual(pin('stable'));
    releaseList();
    await settle();
    expect(store.getState().servers.servers[0]!.pins[0]).toEqual(pin('fetch', { approvedHash: hash('b') }));
  });

  it('keeps a change blocked when the person says so, reloading what the runtime shows', async () => {
    const changed = pin('fetch', { pendingHash: hash('b'), decisionId: 'card-7' });
    const transport = runtimeWith(() => [governedServer('web', { pins: [changed] })]).handle('review.decide', () => ({
      ok: true,
      value: { id: 'card-7', kind: 'tool_change', choice: 'keep_blocked', outcome: 'denied' },
    }));
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.decide('card-7', 'keep_blocked');
    await settle();
    expect(store.getState().servers.servers[0]!.pins[0]).toEqual(changed);
    expect(transport.callsTo('servers.list')).toHaveLength(2);
  });

  it('does not reload the servers after a decision of another kind', async () => {
    const transport = runtimeWith(() => [governedServer('web')]).handle('review.decide', () => ({
      ok: true,
      value: { id: 'tool_call-1', kind: 'tool_call', choice: 'allow_once', outcome: 'approved' },
    }));
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.decide('tool_call-1', 'allow_once');
    await settle();
    expect(transport.callsTo('servers.list')).toHaveLength(1);
  });

  it('keeps a failed acceptance with the runtime message, and the change pending', async () => {
    const transport = runtimeWith(() => [governedServer('web', { pins: [pin('fetch', { pendingHash: hash('b'), decisionId: 'card-7' })] })]).handle('review.decide', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'no pending decision card-7' },
    }));
    const store = createCockpitStore();
    const cockpit = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    cockpit.actions.decide('card-7', 'approve');
    await settle();
    expect(store.getState().review).toMatchObject({ deciding: null, decideError: { id: 'card-7', message: 'no pending decision card-7 (E_INVALID_ARGS)' } });
    expect(store.getState().servers.servers[0]!.pins[0]!.pendingHash).toBe(hash('b'));
  });
});
