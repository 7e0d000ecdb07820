import { describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../src-shared/contract/bridge.js';
import { calls } from '../../src-shared/contract/calls.js';
import { buildSilasBridge, type IpcRendererLike } from './bridge.js';

type Listener = (event: unknown, ...args: unknown[]) => void;

class FakeIpcRenderer implements IpcRendererLike {
  readonly invoked: unknown[][] = [];
  readonly listeners = new Map<string, Listener[]>();
  reply: (channel: string, ...args: unknown[]) => Promise<unknown> = async (_channel, name) => ({ ok: true, value: { name } });

  invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    this.invoked.push([channel, ...args]);
    return this.reply(channel, ...args);
  }
  on(channel: string, listener: Listener): this {
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
    return this;
  }
  removeListener(channel: string, listener: Listener): this {
    this.listeners.set(channel, (this.listeners.get(channel) ?? []).filter((l) => l !== listener));
    return this;
  }
  /** What Electron does when main sends on a channel: the IpcRendererEvent comes first. */
  deliver(channel: string, ...args: unknown[]): void {
    const event = { sender: this, senderId: 0, ports: [] };
    for (const listener of this.listeners.get(channel) ?? []) listener(event, ...args);
  }
}

describe('preload bridge', () => {
  it('exposes one function per contract call plus onEvent, and nothing else', () => {
    const ipc = new FakeIpcRenderer();
    const bridge = buildSilasBridge(ipc);
    expect(Object.keys(bridge).sort()).toEqual([...Object.keys(calls), 'onEvent'].sort());
    for (const value of Object.values(bridge)) {
      expect(typeof value).toBe('function');
      expect(value).not.toBe(ipc);
    }
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('invokes the call channel with the call name and the arguments', async () => {
    const ipc = new FakeIpcRenderer();
    const bridge = buildSilasBridge(ipc);
    expect(await bridge['audit.list']({ limit: 10 })).toEqual({ ok: true, value: { name: 'audit.list' } });
    await bridge['runtime.info']({});
    expect(ipc.invoked).toEqual([
      [IPC_CALL_CHANNEL, 'audit.list', { limit: 10 }],
      [IPC_CALL_CHANNEL, 'runtime.info', {}],
    ]);
  });

  it('answers with an E_UNAVAILABLE envelope when the main process has no handler', async () => {
    const ipc = new FakeIpcRenderer();
    ipc.reply = () => Promise.reject(new Error("No handler registered for 'silas:call'"));
    const result = await buildSilasBridge(ipc)['audit.verify']({});
    expect(result).toEqual({ ok: false, error: { code: 'E_UNAVAILABLE', message: expect.stringContaining('audit.verify') } });
  });

  it('delivers events as (name, payload) and never the IpcRendererEvent', () => {
    const ipc = new FakeIpcRenderer();
    const received: unknown[][] = [];
    buildSilasBridge(ipc).onEvent((...args: unknown[]) => received.push(args));
    ipc.deliver(IPC_EVENT_CHANNEL, 'runtime.stopping', { reason: 'quit' });
    expect(received).toEqual([['runtime.stopping', { reason: 'quit' }]]);
    for (const arg of received.flat()) expect(arg).not.toHaveProperty('sender');
  });

  it('ignores names outside the contract', () => {
    const ipc = new FakeIpcRenderer();
    const received: unknown[] = [];
    buildSilasBridge(ipc).onEvent((name) => received.push(name));
    ipc.deliver(IPC_EVENT_CHANNEL, 'not.an.event', {});
    ipc.deliver(IPC_EVENT_CHANNEL, { sneaky: true }, {});
    expect(received).toEqual([]);
  });

  it('unsubscribes exactly the listener it added', () => {
    const ipc = new FakeIpcRenderer();
    const bridge = buildSilasBridge(ipc);
    const first: unknown[] = [];
    const second: unknown[] = [];
    const stopFirst = bridge.onEvent((name) => first.push(name));
    bridge.onEvent((name) => second.push(name));
    stopFirst();
    stopFirst();
    ipc.deliver(IPC_EVENT_CHANNEL, 'runtime.stopping', { reason: 'x' });
    expect(first).toEqual([]);
    expect(second).toEqual(['runtime.stopping']);
    expect(ipc.listeners.get(IPC_EVENT_CHANNEL)).toHaveLength(1);
  });

  it('refuses a listener that is not a function', () => {
    const bridge = buildSilasBridge(new FakeIpcRenderer());
    expect(() => bridge.onEvent('alert(1)' as never)).toThrow(TypeError);
  });
});
