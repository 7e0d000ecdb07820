import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { CallCore } from '../../src-shared/contract/call-core.js';
import type { CallArgs, CallName, CallResult } from '../../src-shared/contract/calls.js';
import { LineSplitter, ndjsonFrame } from '../../src-shared/contract/ndjson.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';

/**
 * A proxy's end of the local control socket: authenticate with the token from control.json,
 * then make contract calls. Every failure becomes a SilasError with E_UNAVAILABLE, so callers
 * can fail closed with a reason ("the control center is not reachable").
 */
export class LocalSocketClient {
  private socket: Socket | null = null;
  private readonly calls = new CallCore();
  private closedReason: string | null = null;
  private readonly eventListeners = new Set<(name: string, payload: unknown) => void>();

  private constructor() {}

  static async connect(path: string, token: string, timeoutMs = 2000): Promise<LocalSocketClient> {
    const client = new LocalSocketClient();
    await client.open(path, token, timeoutMs);
    return client;
  }

  private open(path: string, token: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const unavailable = (why: string) => new SilasError(ErrorCode.Unavailable, `the Silas control center is not reachable at ${path} (${why}); start it with \`silas start\``);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(unavailable('no answer'));
      }, timeoutMs);
      const socket = connect(path);
      this.socket = socket;
      let ready = false;
      const lines = new LineSplitter((line) => {
        const frame = this.calls.receiveText(line);
        if (frame?.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          resolve();
        } else if (frame?.type === 'event') {
          for (const listener of [...this.eventListeners]) listener(frame.name, frame.payload);
        } else if (frame?.type === 'closed') {
          if (!ready) reject(unavailable(frame.reason || 'refused'));
        }
      });
      socket.once('connect', () => socket.write(ndjsonFrame({ type: 'auth', token })));
      socket.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (!ready) reject(unavailable(error.code ?? error.message));
        this.fail(`control socket error: ${error.message}`);
      });
      socket.on('close', () => {
        clearTimeout(timer);
        if (!ready) reject(unavailable('connection closed during authentication'));
        this.fail('the control center closed the connection');
      });
      socket.on('data', (chunk: Buffer) => lines.push(chunk));
    });
  }

  private fail(reason: string): void {
    this.closedReason ??= reason;
    this.calls.failAll(reason);
  }

  async call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> {
    const socket = this.socket;
    if (!socket || this.closedReason) throw new SilasError(ErrorCode.Unavailable, this.closedReason ?? 'not connected');
    const envelope = await this.calls.call(name, args, (frame) => socket.write(ndjsonFrame(frame)));
    if (!envelope.ok) throw new SilasError(envelope.error.code, envelope.error.message);
    return envelope.value as CallResult<N>;
  }

  /**
   * Events addressed to this connection (its conversation scope's `stream.event`s); an ask-only
   * connection receives no broadcast events. Returns the unsubscribe function.
   */
  onEvent(listener: (name: string, payload: unknown) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Why the connection ended, or null while it is open. */
  get closed(): string | null {
    return this.closedReason;
  }

  close(): void {
    this.fail('closed by the client');
    this.socket?.end();
  }
}

/**
 * Connects to the control center running on `controlFile`'s home: its socket path and token are
 * in control.json (mode 0600), written at start. Fails with E_UNAVAILABLE when it is not running.
 */
export async function connectToControlCenter(controlFile: string): Promise<LocalSocketClient> {
  let control: { socket?: unknown; token?: unknown };
  try {
    control = JSON.parse(readFileSync(controlFile, 'utf8')) as typeof control;
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new SilasError(ErrorCode.Unavailable, missing ? `${controlFile} does not exist` : `${controlFile} is unreadable: ${(error as Error).message}`);
  }
  if (typeof control.socket !== 'string' || typeof control.token !== 'string') throw new SilasError(ErrorCode.Unavailable, 'control.json has no socket or token');
  return LocalSocketClient.connect(control.socket, control.token);
}
