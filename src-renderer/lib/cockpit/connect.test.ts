import { beforeEach, describe, expect, it } from 'vitest';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { auditEntry, auditRange } from '../../testing/audit-fixtures.js';
import { FakeTransport, runtimeInfo, settle } from '../../testing/fake-transport.js';
import { AUDIT_PAGE_SIZE } from './audit.js';
import { connectCockpit } from './connect.js';

const verified = { valid: true, entries: 1000, checkpoints: 2, firstInvalid: null, verifiedAt: '2026-01-01T12:00:00.000Z' };

function runtimeWithAudit(): FakeTransport {
  return new FakeTransport()
    .handle('runtime.info', () => ({ ok: true, value: runtimeInfo }))
    .handle('audit.list', (args) => {
      const { before, limit } = args as { before?: number; limit: number };
      const newest = before === undefined ? 999 : before - 1;
      const oldest = Math.max(0, newest - limit + 1);
      return { ok: true, value: { entries: newest < 0 ? [] : auditRange(oldest, newest), total: 1000, head: null } };
    })
    .handle('audit.verify', () => ({ ok: true, value: verified }));
}

describe('connectCockpit', () => {
  beforeEach(() => {
    window.history.replaceState(null, '', '/#/stream');
  });

  it('loads runtime info, the first audit page and verifies the chain on connect', async () => {
    const transport = runtimeWithAudit();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    expect(transport.calls).toEqual([]);

    transport.setState('connected');
    await settle();
    expect(transport.callsTo('audit.list')).toEqual([{ limit: AUDIT_PAGE_SIZE }]);
    expect(transport.callsTo('audit.verify')).toEqual([{}]);
    const state = store.getState();
    expect(state.connection.state).toBe('connected');
    expect(state.runtime.info).toEqual(runtimeInfo);
    expect(state.audit.entries).toHaveLength(500);
    expect(state.audit.entries[0]!.index).toBe(999);
    expect(state.chain).toMatchObject({ status: 'intact', entries: 1000 });
  });

  it('starts loading at once over a transport that is already connected (IPC)', async () => {
    const transport = runtimeWithAudit();
    transport.state = 'connected';
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    await settle();
    expect(store.getState().audit.total).toBe(1000);
  });

  it('loads older pages before the oldest loaded index, once at a time', async () => {
    const transport = runtimeWithAudit();
    const store = createCockpitStore();
    const { actions } = connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    actions.loadOlderAudit();
    actions.loadOlderAudit();
    await settle();
    expect(transport.callsTo('audit.list')).toEqual([{ limit: 500 }, { before: 500, limit: 500 }]);
    expect(store.getState().audit.entries).toHaveLength(1000);
    expect(store.getState().audit.hasMore).toBe(false);
    actions.loadOlderAudit();
    expect(transport.callsTo('audit.list')).toHaveLength(2);
  });

  it('prepends valid audit.appended events and ignores malformed ones', async () => {
    const transport = runtimeWithAudit();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.emit('audit.appended', auditEntry(1000));
    transport.emit('audit.appended', { index: 'nope' });
    transport.emit('runtime.stopping', { reason: 'bye' });
    expect(store.getState().audit.entries[0]!.index).toBe(1000);
    expect(store.getState().audit.total).toBe(1001);
  });

  it('reloads and re-verifies after a reconnect', async () => {
    const transport = runtimeWithAudit();
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    transport.setState('reconnecting');
    expect(store.getState().connection.state).toBe('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('audit.list')).toHaveLength(2);
    expect(transport.callsTo('audit.verify')).toHaveLength(2);
    expect(transport.callsTo('runtime.info')).toHaveLength(2);
  });

  it('reports a failed verification without claiming a verdict', async () => {
    const transport = runtimeWithAudit().handle('audit.verify', () => ({
      ok: false,
      error: { code: 'E_DB_FAILURE', message: 'database is locked' },
    }));
    const store = createCockpitStore();
    connectCockpit({ transport, store });
    transport.setState('connected');
    await settle();
    expect(store.getState().chain).toMatchObject({ status: 'unknown', error: 'database is locked (E_DB_FAILURE)' });
  });

  it('navigates by pushing the route hash and follows hash changes', () => {
    const store = createCockpitStore();
    const { actions, dispose } = connectCockpit({ transport: new FakeTransport(), store, window });
    actions.navigate('activity');
    expect(window.location.hash).toBe('#/activity');
    expect(store.getState().navigation.route).toBe('activity');

    window.history.replaceState(null, '', '/#/policies');
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    expect(store.getState().navigation.route).toBe('policies');
    dispose();
  });

  it('closes the transport on dispose', () => {
    const transport = new FakeTransport();
    connectCockpit({ transport, store: createCockpitStore() }).dispose();
    expect(transport.closed).toBe(true);
  });
});
