import { describe, expect, it } from 'vitest';
import { event, message, opened, readyModels, unconfiguredModels, usage } from '../testing/stream-fixtures.js';
import { createCockpitStore } from './cockpit-store.js';

describe('stream slice', () => {
  it('opens, keeps the conversation through a failed reopen, and reports the failure', () => {
    const store = createCockpitStore();
    const s = () => store.getState();
    expect(s().stream).toMatchObject({ status: 'idle', scope: null, messages: [], models: null });
    s().streamOpening();
    expect(s().stream.status).toBe('opening');
    s().streamOpenFailed('runtime gone');
    expect(s().stream).toMatchObject({ status: 'error', openError: 'runtime gone' });
    s().streamOpening();
    s().streamOpened(opened({ history: [message(1)] }));
    expect(s().stream).toMatchObject({ status: 'open', openError: null });
    s().streamOpening();
    s().streamOpenFailed('again');
    expect(s().stream).toMatchObject({ status: 'open', openError: 'again' });
    expect(s().stream.messages).toHaveLength(1);
  });

  it('feeds events through the reducer', () => {
    const store = createCockpitStore();
    store.getState().streamOpened(opened());
    store.getState().streamEvent(event('turn_finished', { turn_id: 't1', outcome: 'failed', usage: usage(), error: 'the model did not answer' }));
    expect(store.getState().stream.lastTurn).toMatchObject({ outcome: 'failed', error: 'the model did not answer' });
  });

  it('tracks a send and its failure, and a stop that found nothing running', () => {
    const store = createCockpitStore();
    const s = () => store.getState();
    s().streamOpened(opened({ busy: true }));
    s().streamSending();
    expect(s().stream.sending).toBe(true);
    s().streamSendFailed('the message is empty');
    expect(s().stream).toMatchObject({ sending: false, composerError: { action: 'send', message: 'the message is empty' } });
    s().streamSending();
    expect(s().stream.composerError).toBeNull();
    s().streamSent();
    expect(s().stream.sending).toBe(false);

    s().streamCancelFailed('gone');
    expect(s().stream.composerError).toEqual({ action: 'cancel', message: 'gone' });
    s().streamCancelled(true);
    expect(s().stream).toMatchObject({ busy: true, composerError: null });
    s().streamCancelled(false);
    expect(s().stream.busy).toBe(false);
  });

  it('walks the model setup: save, test, failure, close', () => {
    const store = createCockpitStore();
    const s = () => store.getState();
    s().streamOpened(opened({ models: unconfiguredModels() }));
    s().modelSetupBusy('saving');
    expect(s().stream.setup.busy).toBe('saving');
    s().modelsConfigured(readyModels());
    expect(s().stream.models?.ready).toBe(true);
    expect(s().stream.setup).toMatchObject({ open: true, busy: null, saved: true });

    s().modelSetupBusy('testing');
    s().modelsTested({ ok: false, role: 'proxy', latency_ms: 12, message: 'connection refused' });
    expect(s().stream.setup.test?.message).toBe('connection refused');
    s().modelSetupBusy('testing');
    expect(s().stream.setup.test).toBeNull();
    s().modelSetupFailed('test', 'runtime gone');
    expect(s().stream.setup).toMatchObject({ busy: null, problem: { action: 'test', message: 'runtime gone' } });

    s().modelSetupBusy('checking');
    s().modelsLoaded(unconfiguredModels());
    expect(s().stream.setup.busy).toBeNull();
    expect(s().stream.models?.ready).toBe(false);

    s().modelSetupClosed();
    expect(s().stream.setup).toEqual({ open: false, busy: null, saved: false, test: null, problem: null });
    s().modelSetupOpened();
    expect(s().stream.setup.open).toBe(true);
  });
});
