import { describe, expect, it, vi } from 'vitest';
import type { BridgeEventListener, SilasBridge } from '../../src-shared/contract/index.js';
import { IpcTransport } from './ipc-transport.js';

function fakeBridge(overrides: Partial<Record<string, unknown>> = {}): { bridge: SilasBridge; emit: BridgeEventListener } {
  let listener: BridgeEventListener = () => {};
  const bridge = {
    'runtime.info': vi.fn(async () => ({ ok: true, value: { version: '1' } })),
    'audit.list': vi.fn(async (args: unknown) => ({ ok: true, value: args })),
    'audit.verify': vi.fn(async () => {
      throw new Error('ipc channel closed');
    }),
    onEvent: (l: BridgeEventListener) => {
      listener = l;
      return () => {
        listener = () => {};
      };
    },
    ...overrides,
  } as unknown as SilasBridge;
  return { bridge, emit: (name, payload) => listener(name, payload) };
}

describe('IpcTransport', () => {
  it('is connected and calls the named bridge function with the args', async () => {
    const { bridge } = fakeBridge();
    const transport = new IpcTransport(bridge);
    expect(transport.state).toBe('connected');
    await expect(transport.call('audit.list', { limit: 3 })).resolves.toEqual({ ok: true, value: { limit: 3 } });
    expect(bridge['audit.list']).toHaveBeenCalledWith({ limit: 3 });
  });

  it('turns a thrown bridge error into an E_UNAVAILABLE envelope', async () => {
    const transport = new IpcTransport(fakeBridge().bridge);
    await expect(transport.call('audit.verify', {})).resolves.toEqual({
      ok: false,
      error: { code: 'E_UNAVAILABLE', message: expect.stringContaining('ipc channel closed') },
    });
  });

  it('answers E_UNKNOWN_CALL when the bridge lacks the function', async () => {
    const transport = new IpcTransport(fakeBridge({ 'runtime.info': undefined }).bridge);
    await expect(transport.call('runtime.info', {})).resolves.toMatchObject({ ok: false, error: { code: 'E_UNKNOWN_CALL' } });
  });

  it('forwards bridge events and unsubscribes', () => {
    const { bridge, emit } = fakeBridge();
    const transport = new IpcTransport(bridge);
    const seen: unknown[] = [];
    const off = transport.onEvent((name, payload) => seen.push([name, payload]));
    emit('runtime.stopping', { reason: 'quit' });
    off();
    emit('runtime.stopping', { reason: 'again' });
    expect(seen).toEqual([['runtime.stopping', { reason: 'quit' }]]);
  });
});
