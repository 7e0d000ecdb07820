import { describe, expect, it } from 'vitest';
import { createCockpitStore } from '../../store/cockpit-store.js';
import { FakeTransport, settle } from '../../testing/fake-transport.js';
import { event, KEY, memoryStorage, message, opened, OTHER_KEY, OTHER_SCOPE, readyModels, SCOPE, unconfiguredModels, usage, withStream } from '../../testing/stream-fixtures.js';
import { connectCockpit } from './connect.js';
import { STREAM_SCOPE_KEY } from '../stream-scope.js';

const kept = (scope: string, key: string) => JSON.stringify({ scope, key });

function connected(transport: FakeTransport, storage = memoryStorage()) {
  const store = createCockpitStore();
  const cockpit = connectCockpit({ transport, store, scopeStorage: storage });
  transport.setState('connected');
  return { store, storage, actions: cockpit.actions };
}

describe('connectCockpit: stream', () => {
  it('opens a fresh scope on connect, keeps it for the tab, and resumes it on every reconnect', async () => {
    const transport = withStream(new FakeTransport(), opened({ history: [message(1, 'person'), message(2)], busy: true, models: unconfiguredModels() }));
    const { store, storage } = connected(transport);
    expect(store.getState().stream.status).toBe('opening');
    await settle();
    expect(transport.callsTo('stream.open')).toEqual([{}]);
    expect(storage.items.get(STREAM_SCOPE_KEY)).toBe(kept(SCOPE, KEY));
    expect(store.getState().stream).toMatchObject({ status: 'open', scope: SCOPE, busy: true, models: { ready: false } });
    expect(store.getState().stream.messages).toHaveLength(2);

    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    expect(transport.callsTo('stream.open')).toEqual([{}, { resume: { scope: SCOPE, key: KEY } }]);
  });

  it('resumes the scope kept by this tab before a reload', async () => {
    const transport = withStream(new FakeTransport(), opened({ resumed: true }));
    connected(transport, memoryStorage({ [STREAM_SCOPE_KEY]: kept(SCOPE, KEY) }));
    await settle();
    expect(transport.callsTo('stream.open')).toEqual([{ resume: { scope: SCOPE, key: KEY } }]);
  });

  it('opens a fresh scope when the runtime refuses the kept one, and keeps the new one', async () => {
    const transport = new FakeTransport().handle('stream.open', (args) =>
      (args as { resume?: unknown }).resume
        ? { ok: false, error: { code: 'E_UNAUTHORIZED', message: 'unknown scope or wrong key' } }
        : { ok: true, value: opened({ scope: OTHER_SCOPE, key: OTHER_KEY }) },
    );
    const { store, storage } = connected(transport, memoryStorage({ [STREAM_SCOPE_KEY]: kept(SCOPE, KEY) }));
    await settle();
    expect(transport.callsTo('stream.open')).toEqual([{ resume: { scope: SCOPE, key: KEY } }, {}]);
    expect(storage.items.get(STREAM_SCOPE_KEY)).toBe(kept(OTHER_SCOPE, OTHER_KEY));
    expect(store.getState().stream).toMatchObject({ status: 'open', scope: OTHER_SCOPE, openError: null });
  });

  it('keeps the scope when only the connection failed, and says why nothing opened', async () => {
    const transport = new FakeTransport().handle('stream.open', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'not connected' } }));
    const { store, storage } = connected(transport, memoryStorage({ [STREAM_SCOPE_KEY]: kept(SCOPE, KEY) }));
    await settle();
    expect(transport.callsTo('stream.open')).toHaveLength(1);
    expect(storage.items.get(STREAM_SCOPE_KEY)).toBe(kept(SCOPE, KEY));
    expect(store.getState().stream).toMatchObject({ status: 'error', openError: 'not connected (E_UNAVAILABLE)' });
  });

  it('drops a stream.open answer that belongs to a replaced connection', async () => {
    let answerFirst: () => void = () => {};
    let calls = 0;
    const transport = new FakeTransport().handle('stream.open', () => {
      calls += 1;
      if (calls === 1) return new Promise((resolve) => (answerFirst = () => resolve({ ok: true, value: opened({ scope: OTHER_SCOPE, key: OTHER_KEY }) })));
      return { ok: true, value: opened() };
    });
    const { store, storage } = connected(transport);
    transport.setState('reconnecting');
    transport.setState('connected');
    await settle();
    answerFirst();
    await settle();
    expect(store.getState().stream.scope).toBe(SCOPE);
    expect(storage.items.get(STREAM_SCOPE_KEY)).toBe(kept(SCOPE, KEY));
  });

  it('feeds stream.event into the slice and ignores invalid payloads and other scopes', async () => {
    const transport = withStream(new FakeTransport());
    const { store } = connected(transport);
    await settle();
    transport.emit('stream.event', event('turn_started', { turn_id: 't1', turn: 1, message: message(1, 'person') }));
    transport.emit('stream.event', event('draft', { turn_id: 't1', delta: 'Hel' }));
    transport.emit('stream.event', { ...event('draft', { turn_id: 't1', delta: 'x' }), type: 'mystery' });
    transport.emit('stream.event', { ...event('draft', { turn_id: 't1', delta: 'x' }), scope: 'not-a-scope' });
    transport.emit('stream.event', event('draft', { scope: OTHER_SCOPE, turn_id: 't1', delta: 'elsewhere' }));
    transport.emit('stream.event', null);
    expect(store.getState().stream).toMatchObject({ busy: true, draft: { turnId: 't1', text: 'Hel' } });
    transport.emit('stream.event', event('turn_finished', { turn_id: 't1', outcome: 'answered', usage: usage(), error: null }));
    expect(store.getState().stream.busy).toBe(false);
  });

  it('sends a message in the scope, one at a time, and keeps the runtime message of a failure', async () => {
    let answer: () => void = () => {};
    const transport = withStream(new FakeTransport()).handle('stream.send', () => new Promise((resolve) => (answer = () => resolve({ ok: true, value: { turn_id: 't1', queued_behind: 0 } }))));
    const { store, actions } = connected(transport);
    await settle();
    const first = actions.sendMessage('Tidy my downloads');
    await expect(actions.sendMessage('again')).resolves.toBe(false);
    expect(transport.callsTo('stream.send')).toEqual([{ scope: SCOPE, text: 'Tidy my downloads' }]);
    expect(store.getState().stream.sending).toBe(true);
    answer();
    await expect(first).resolves.toBe(true);
    expect(store.getState().stream.sending).toBe(false);
    await expect(actions.sendMessage('   ')).resolves.toBe(false);
    expect(transport.callsTo('stream.send')).toHaveLength(1);

    transport.handle('stream.send', () => ({ ok: false, error: { code: 'E_INVALID_ARGS', message: 'stream.send: args.text: a message has at most 20000 characters' } }));
    await expect(actions.sendMessage('long')).resolves.toBe(false);
    expect(store.getState().stream.composerError).toEqual({ action: 'send', message: 'stream.send: args.text: a message has at most 20000 characters (E_INVALID_ARGS)' });
  });

  it('sends nothing before a scope is open', async () => {
    const transport = new FakeTransport();
    const { actions } = connected(transport);
    await expect(actions.sendMessage('hello')).resolves.toBe(false);
    actions.cancelTurn();
    expect(transport.callsTo('stream.send')).toEqual([]);
    expect(transport.callsTo('stream.cancel')).toEqual([]);
  });

  it('stops the running turn with stream.cancel, and reports a failed stop', async () => {
    const transport = withStream(new FakeTransport(), opened({ busy: true })).handle('stream.cancel', () => ({ ok: true, value: { cancelled: false } }));
    const { store, actions } = connected(transport);
    await settle();
    actions.cancelTurn();
    await settle();
    expect(transport.callsTo('stream.cancel')).toEqual([{ scope: SCOPE }]);
    expect(store.getState().stream.busy).toBe(false);

    transport.handle('stream.cancel', () => ({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'runtime gone' } }));
    actions.cancelTurn();
    await settle();
    expect(store.getState().stream.composerError).toEqual({ action: 'cancel', message: 'runtime gone (E_UNAVAILABLE)' });
  });

  it('configures, tests and checks the models, and never keeps the API key', async () => {
    const transport = withStream(new FakeTransport(), opened({ models: unconfiguredModels() }))
      .handle('models.configure', () => ({ ok: true, value: readyModels() }))
      .handle('secrets.store', () => ({ ok: true, value: { stored: true } }))
      .handle('models.test', () => ({ ok: true, value: { ok: true, role: 'proxy', latency_ms: 321, message: 'the model answered' } }))
      .handle('models.status', () => ({ ok: true, value: unconfiguredModels() }));
    const { store, storage, actions } = connected(transport);
    await settle();
    const secret = 'sk-or-v1-0123456789abcdef';
    actions.configureModels({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', api_key_secret: 'openrouter-key' }, secret);
    actions.configureModels({ provider: 'openrouter', model: 'twice' });
    expect(store.getState().stream.setup.busy).toBe('saving');
    await settle();
    // The key goes through secure input first (secrets.store over IPC), never with the configuration.
    expect(transport.callsTo('secrets.store')).toEqual([{ name: 'openrouter-key', value: secret }]);
    expect(transport.callsTo('models.configure')).toEqual([{ provider: 'openrouter', model: 'anthropic/claude-sonnet-4.5', api_key_secret: 'openrouter-key' }]);
    expect(store.getState().stream.models?.ready).toBe(true);
    expect(store.getState().stream.setup).toMatchObject({ open: true, saved: true, busy: null });
    expect(JSON.stringify(store.getState())).not.toContain(secret);
    expect([...storage.items.values()].join()).not.toContain(secret);

    actions.testModels();
    await settle();
    expect(transport.callsTo('models.test')).toEqual([{ role: 'proxy' }]);
    expect(store.getState().stream.setup.test).toEqual({ ok: true, role: 'proxy', latency_ms: 321, message: 'the model answered' });

    actions.checkModels();
    await settle();
    expect(transport.callsTo('models.status')).toEqual([{}]);
    expect(store.getState().stream.models?.ready).toBe(false);
  });

  it('keeps the runtime message of a failed save', async () => {
    const transport = withStream(new FakeTransport(), opened({ models: unconfiguredModels() })).handle('models.configure', () => ({
      ok: false,
      error: { code: 'E_INVALID_ARGS', message: 'models.configure: args.model: write the model name the provider knows it by' },
    }));
    const { store, actions } = connected(transport);
    await settle();
    actions.configureModels({ provider: 'openai-compatible', model: ' ', base_url: 'http://127.0.0.1:11434/v1' });
    await settle();
    expect(store.getState().stream.setup.problem).toEqual({ action: 'save', message: 'models.configure: args.model: write the model name the provider knows it by (E_INVALID_ARGS)' });
    expect(store.getState().stream.models?.ready).toBe(false);
  });
});
