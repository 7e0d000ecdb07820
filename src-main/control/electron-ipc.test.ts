import { describe, expect, it } from 'vitest';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../src-shared/contract/bridge.js';
import { ok } from '../../src-shared/contract/envelope.js';
import { EventBus } from './event-bus.js';
import { EventTargets, IPC_SESSION, registerIpcTransport, type EventTargetLike, type IpcInvokeEventLike, type IpcMainLike } from './electron-ipc.js';
import type { CallContext } from './router.js';

type Listener = (event: IpcInvokeEventLike, ...args: unknown[]) => unknown;

class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  invoke(frameUrl: string | null, ...args: unknown[]): unknown {
    const handler = this.handlers.get(IPC_CALL_CHANNEL);
    if (!handler) throw new Error('no handler');
    return handler({ senderFrame: frameUrl === null ? null : { url: frameUrl } }, ...args);
  }
}

class FakeContents implements EventTargetLike {
  readonly sent: unknown[][] = [];
  destroyed = false;
  throwOnSend = false;
  constructor(public url = 'app://cockpit/index.html') {}
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getURL(): string {
    return this.url;
  }
  send(channel: string, ...args: unknown[]): void {
    if (this.throwOnSend) throw new Error('Render frame was disposed');
    this.sent.push([channel, ...args]);
  }
}

const isCockpit = (url: string) => url.startsWith('app://cockpit/');

function setup() {
  const ipcMain = new FakeIpcMain();
  const dispatched: Array<{ name: unknown; args: unknown; ctx: CallContext }> = [];
  const router = {
    dispatch: async (name: unknown, args: unknown, ctx: CallContext) => {
      dispatched.push({ name, args, ctx });
      return ok({ echoed: name });
    },
  };
  const events = new EventBus();
  const targets = new EventTargets();
  const dispose = registerIpcTransport({ ipcMain, router, events, isTrustedSender: isCockpit, targets });
  return { ipcMain, dispatched, events, targets, dispose };
}

describe('Electron IPC transport: calls', () => {
  it('hands a call from the cockpit page to the router with transport "ipc" and returns its envelope', async () => {
    const { ipcMain, dispatched } = setup();
    const result = await ipcMain.invoke('app://cockpit/index.html', 'audit.list', { limit: 5 });
    expect(result).toEqual({ ok: true, value: { echoed: 'audit.list' } });
    expect(dispatched).toEqual([{ name: 'audit.list', args: { limit: 5 }, ctx: { transport: 'ipc', session: 'session-ipc' } }]);
  });

  it.each([
    ['a foreign page', 'https://evil.example/'],
    ['a local file', 'file:///tmp/x.html'],
    ['the headless cockpit origin', 'http://127.0.0.1:8420/'],
    ['an unloaded frame', ''],
    ['a destroyed frame', null],
  ])('refuses %s with E_UNAUTHORIZED without reaching the router', async (_label, frameUrl) => {
    const { ipcMain, dispatched } = setup();
    const result = await ipcMain.invoke(frameUrl, 'runtime.info', {});
    expect(result).toEqual({ ok: false, error: { code: 'E_UNAUTHORIZED', message: expect.stringContaining('app://cockpit/') } });
    expect(dispatched).toHaveLength(0);
  });

  it('removes its handler and event subscription when disposed, once', () => {
    const { ipcMain, events, dispose } = setup();
    expect(events.size).toBe(1);
    dispose();
    dispose();
    expect(ipcMain.handlers.size).toBe(0);
    expect(events.size).toBe(0);
    // Registering again works: nothing is left behind.
    registerIpcTransport({ ipcMain, router: { dispatch: async () => ok(null) }, events, isTrustedSender: isCockpit, targets: new EventTargets() })();
  });
});

describe('Electron IPC transport: events', () => {
  it('forwards events to registered cockpit webContents as (name, payload)', () => {
    const { events, targets } = setup();
    const contents = new FakeContents();
    targets.add(contents);
    events.publish('runtime.stopping', { reason: 'quit' });
    expect(contents.sent).toEqual([[IPC_EVENT_CHANNEL, 'runtime.stopping', { reason: 'quit' }]]);
  });

  it("forwards a conversation's events addressed to the desktop session, never those of another session", () => {
    const { events, targets } = setup();
    const contents = new FakeContents();
    targets.add(contents);
    const draft = (scope: string) => ({ type: 'draft' as const, scope, turn_id: 't', delta: 'hi' });
    expect(events.publishTo(IPC_SESSION, 'stream.event', draft('scope-AAAAAAAAAAAAAAAAAAAAAA'))).toBe(true);
    expect(events.publishTo('session-browser-tab', 'stream.event', draft('scope-BBBBBBBBBBBBBBBBBBBBBB'))).toBe(false);
    expect(contents.sent).toEqual([[IPC_EVENT_CHANNEL, 'stream.event', draft('scope-AAAAAAAAAAAAAAAAAAAAAA')]]);
  });

  it('never sends to a webContents showing another page, and never to unregistered ones', () => {
    const { events, targets } = setup();
    const foreign = new FakeContents('https://evil.example/');
    const stranger = new FakeContents();
    targets.add(foreign);
    events.publish('runtime.stopping', { reason: 'quit' });
    expect(foreign.sent).toHaveLength(0);
    expect(stranger.sent).toHaveLength(0);
    // Kept: a page mid-load becomes trusted again once it shows the cockpit.
    expect(targets.size).toBe(1);
  });

  it('drops destroyed webContents and ones that fail to receive', () => {
    const { events, targets } = setup();
    const gone = new FakeContents();
    const crashing = new FakeContents();
    const alive = new FakeContents();
    gone.destroyed = true;
    crashing.throwOnSend = true;
    targets.add(gone);
    targets.add(crashing);
    targets.add(alive);
    events.publish('runtime.stopping', { reason: 'quit' });
    expect(gone.sent).toHaveLength(0);
    expect(alive.sent).toHaveLength(1);
    expect(targets.size).toBe(1);
  });

  it('stops forwarding after dispose', () => {
    const { events, targets, dispose } = setup();
    const contents = new FakeContents();
    targets.add(contents);
    dispose();
    events.publish('runtime.stopping', { reason: 'quit' });
    expect(contents.sent).toHaveLength(0);
  });
});
