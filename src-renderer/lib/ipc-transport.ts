import type { CallName, Envelope, SilasBridge } from '../../src-shared/contract/index.js';
import { ErrorCode } from '../../src-shared/errors.js';
import { unavailable, type ConnectionState, type Transport, type TransportEventListener } from './transport.js';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent in a plain browser. */
    silas?: SilasBridge;
  }
}

/**
 * The desktop transport over the preload bridge. The main process is the runtime itself,
 * so there is no connection to lose: the state is connected for the window's lifetime.
 */
export class IpcTransport implements Transport {
  readonly state: ConnectionState = 'connected';

  constructor(private readonly bridge: SilasBridge) {}

  async call(name: CallName, args: unknown): Promise<Envelope<unknown>> {
    const fn = (this.bridge as unknown as Record<string, unknown>)[name];
    if (typeof fn !== 'function') {
      return { ok: false, error: { code: ErrorCode.UnknownCall, message: `the desktop bridge does not expose ${name}; update the app` } };
    }
    try {
      return (await (fn as (a: unknown) => Promise<Envelope<unknown>>)(args)) ?? unavailable(`${name}: empty answer from the runtime`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return unavailable(`${name}: the desktop bridge failed (${reason})`);
    }
  }

  onEvent(listener: TransportEventListener): () => void {
    return this.bridge.onEvent((name, payload) => listener(name, payload));
  }

  onState(): () => void {
    return () => {};
  }

  close(): void {}
}
