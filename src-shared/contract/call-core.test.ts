import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallCore, type CallFrame } from './call-core.js';

afterEach(() => vi.useRealTimers());

describe('the client call core', () => {
  it('numbers calls and settles each with its own result, in any order', async () => {
    const core = new CallCore();
    const sent: CallFrame[] = [];
    const first = core.call('a.get', { x: 1 }, (frame) => sent.push(frame));
    const second = core.call('b.get', undefined, (frame) => sent.push(frame));
    expect(sent).toEqual([
      { type: 'call', id: 1, name: 'a.get', args: { x: 1 } },
      { type: 'call', id: 2, name: 'b.get', args: undefined },
    ]);
    expect(core.receive({ type: 'result', id: 2, result: { ok: true, value: 'two' } })).toMatchObject({ type: 'result', id: 2 });
    core.receive({ type: 'result', id: 1, result: { ok: false, error: { code: 'E_DENIED', message: 'no' } } });
    expect(await second).toEqual({ ok: true, value: 'two' });
    expect(await first).toEqual({ ok: false, error: { code: 'E_DENIED', message: 'no' } });
    expect(core.waiting).toBe(0);
  });

  it('passes other frames through and ignores what is not a server frame', () => {
    const core = new CallCore();
    expect(core.receive({ type: 'ready', serverVersion: '1' })).toEqual({ type: 'ready', serverVersion: '1' });
    expect(core.receive({ type: 'event', name: 'x', payload: 1 })).toEqual({ type: 'event', name: 'x', payload: 1 });
    expect(core.receive({ type: 'nonsense' })).toBeNull();
    expect(core.receive('not an object')).toBeNull();
    expect(core.receive({ type: 'result', id: 99, result: { ok: true, value: 1 } })).toMatchObject({ type: 'result' });
  });

  it('reads frames from their text, ignoring text that is not JSON', () => {
    const core = new CallCore();
    expect(core.receiveText('{"type":"ready","serverVersion":"2"}')).toEqual({ type: 'ready', serverVersion: '2' });
    expect(core.receiveText('{"type":"ready",')).toBeNull();
    expect(core.receiveText('')).toBeNull();
  });

  it('fails a call whose answer is malformed instead of leaving it waiting', async () => {
    const core = new CallCore();
    const call = core.call('a.get', {}, () => undefined);
    expect(core.receive({ type: 'result', id: 1, result: { ok: 'yes' } })).toBeNull();
    expect(await call).toEqual({ ok: false, error: { code: 'E_INTERNAL', message: "a.get: the runtime's answer is not a valid result envelope" } });
  });

  it('answers E_UNAVAILABLE when sending throws, when the connection drops, and on timeout', async () => {
    vi.useFakeTimers();
    const core = new CallCore({ timeoutMs: 1000 });
    const refused = core.call('a.get', {}, () => {
      throw new Error('closing');
    });
    expect(await refused).toEqual({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'a.get: the connection to the Silas runtime is closing' } });
    const dropped = core.call('a.get', {}, () => undefined);
    core.failAll('the connection dropped');
    expect(await dropped).toEqual({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'the connection dropped' } });
    const slow = core.call('b.get', {}, () => undefined);
    vi.advanceTimersByTime(1000);
    expect(await slow).toEqual({ ok: false, error: { code: 'E_UNAVAILABLE', message: 'b.get: no answer from the Silas runtime within 1000 ms' } });
    core.receive({ type: 'result', id: 3, result: { ok: true, value: 'late' } });
    expect(core.waiting).toBe(0);
  });
});
