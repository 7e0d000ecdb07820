import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../../src-shared/contract/bridge.js';
import { fail, type Envelope } from '../../src-shared/contract/envelope.js';
import type { EventName } from '../../src-shared/contract/events.js';
import { ErrorCode } from '../../src-shared/errors.js';
import type { EventBus } from './event-bus.js';
import type { ControlRouter } from './router.js';

/*
 * The Electron IPC transport of the control plane. It speaks to Electron only through the
 * structural interfaces below, so it is plain Node: the desktop shell passes the real ipcMain
 * and webContents, tests pass fakes.
 */

/** The part of an `IpcMainInvokeEvent` this transport reads. */
export interface IpcInvokeEventLike {
  /** Null once the frame navigated away or was destroyed: such a call is refused. */
  readonly senderFrame: { readonly url: string } | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

/** A renderer that may receive events (an Electron `WebContents`). */
export interface EventTargetLike {
  isDestroyed(): boolean;
  getURL(): string;
  send(channel: string, ...args: unknown[]): void;
}

/**
 * The renderers the shell opened for the cockpit. Events go only to these, and only while
 * they still show a trusted page; destroyed ones are forgotten on the next event.
 */
export class EventTargets {
  private readonly members = new Set<EventTargetLike>();

  add(target: EventTargetLike): void {
    this.members.add(target);
  }

  delete(target: EventTargetLike): void {
    this.members.delete(target);
  }

  get size(): number {
    return this.members.size;
  }

  broadcast(isTrusted: (url: string) => boolean, name: EventName, payload: unknown): void {
    for (const target of [...this.members]) {
      if (target.isDestroyed()) {
        this.members.delete(target);
        continue;
      }
      // Still registered but showing something else (mid-load, crashed page): skip, keep it.
      if (!isTrusted(target.getURL())) continue;
      try {
        target.send(IPC_EVENT_CHANNEL, name, payload);
      } catch {
        // Sending to a renderer that died between the check and the send throws; forget it.
        this.members.delete(target);
      }
    }
  }
}

/** The session id of the desktop cockpit's calls. */
export const IPC_SESSION = 'session-ipc';

export interface IpcTransportOptions {
  ipcMain: IpcMainLike;
  router: Pick<ControlRouter, 'dispatch'>;
  events: Pick<EventBus, 'subscribe'>;
  /** Decides on the sender frame's URL; the shell passes `isCockpitUrl` (app://cockpit/ only). */
  isTrustedSender: (frameUrl: string) => boolean;
  targets: EventTargets;
}

/**
 * Registers the call handler and event forwarding; returns the function that removes both.
 * The handler is thin on purpose (DESIGN: one router, three transports): it authenticates the
 * sender and hands everything else — name and argument validation included — to the router.
 */
export function registerIpcTransport(options: IpcTransportOptions): () => void {
  const { ipcMain, router, events, isTrustedSender, targets } = options;

  ipcMain.handle(IPC_CALL_CHANNEL, function handleIpcCall(event: IpcInvokeEventLike, name: unknown, args: unknown): Promise<Envelope<unknown>> {
    const frameUrl = event.senderFrame?.url ?? '';
    if (!isTrustedSender(frameUrl)) {
      return Promise.resolve(fail(ErrorCode.Unauthorized, 'IPC calls are accepted only from the cockpit page (app://cockpit/)'));
    }
    return router.dispatch(name, args, { transport: 'ipc', session: IPC_SESSION });
  });

  // The cockpit windows are one person's one session: what is addressed to it reaches them all.
  const unsubscribe = events.subscribe(function forwardEvent(name, payload, target) {
    if (target !== undefined && target !== IPC_SESSION) return;
    targets.broadcast(isTrustedSender, name, payload);
  }, IPC_SESSION);

  let disposed = false;
  return function disposeIpcTransport() {
    if (disposed) return;
    disposed = true;
    unsubscribe();
    ipcMain.removeHandler(IPC_CALL_CHANNEL);
  };
}
