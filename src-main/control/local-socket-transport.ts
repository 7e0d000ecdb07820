import { timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { LineSplitter, ndjsonFrame } from '../../src-shared/contract/ndjson.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { ControlSession, sessionSettings, type SessionLink, type SessionSettings } from './control-session.js';
import { tokenDigest } from './websocket-transport.js';

/** The longest frame a client may send, in characters; a longer one closes the connection (1009). */
export const LOCAL_SOCKET_MAX_LINE = 1024 * 1024;

export interface LocalSocketOptions extends SessionSettings {
  /** A UNIX socket path (HOME/control.sock) or a Windows named pipe (\\.\pipe\…). */
  path: string;
  /** The ask credential written to control.json: it opens only ask-capability sessions (capabilities.ts). */
  token: string;
}

/**
 * The proxies' transport of the contract (DESIGN §2): newline-delimited JSON frames, the same
 * session rules as the WebSocket (token first, rate limit, malformed frames answered), on a
 * socket only the owner can open (mode 0600).
 */
export class LocalSocketTransport {
  private server: Server | null = null;
  private readonly sockets = new Map<Socket, ControlSession>();
  private readonly expected: Buffer;

  constructor(private readonly options: LocalSocketOptions) {
    this.expected = tokenDigest(options.token);
  }

  async start(): Promise<void> {
    const { path } = this.options;
    if (process.platform !== 'win32') {
      const existing = lstatSync(path, { throwIfNoEntry: false });
      // A leftover socket from a crashed runtime is ours to replace; anything else is not.
      if (existing && !existing.isSocket()) throw new SilasError(ErrorCode.Config, `${path} exists and is not a socket; move it aside`);
      if (existing) rmSync(path, { force: true });
    }
    const server = createServer((socket) => this.onConnection(socket));
    this.server = server;
    const oldMask = process.platform === 'win32' ? null : process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', (error) => reject(new SilasError(ErrorCode.Config, `cannot listen on the control socket ${path}: ${error.message}`)));
        server.listen(path, () => resolve());
      });
    } finally {
      if (oldMask !== null) process.umask(oldMask);
    }
    if (process.platform !== 'win32') chmodSync(path, 0o600);
  }

  private onConnection(socket: Socket): void {
    let open = true;
    const link: SessionLink = {
      send: (frame) => {
        if (open) socket.write(ndjsonFrame(frame));
      },
      close: (code, reason) => {
        if (!open) return;
        open = false;
        socket.end(ndjsonFrame({ type: 'closed', code, reason }));
      },
      isOpen: () => open && !socket.destroyed,
    };
    const session = new ControlSession(link, {
      transport: 'local-socket',
      peer: 'local',
      tokenMatches: (candidate) => timingSafeEqual(tokenDigest(candidate), this.expected),
      ...sessionSettings(this.options),
    });
    this.sockets.set(socket, session);
    const lines = new LineSplitter(
      (line) => session.receive(line),
      LOCAL_SOCKET_MAX_LINE,
      () => {
        link.close(1009, 'frame too large');
        socket.destroy();
      },
    );
    socket.on('data', (chunk: Buffer) => {
      if (!socket.destroyed) lines.push(chunk);
    });
    const done = () => {
      open = false;
      session.closed();
      this.sockets.delete(socket);
    };
    socket.on('close', done);
    socket.on('error', () => socket.destroy());
  }

  /** Lets calls already received finish (up to `graceMs`), then closes every connection. */
  async close(graceMs = 2000): Promise<void> {
    this.server?.close();
    await Promise.all([...this.sockets.values()].map((session) => session.drain(graceMs)));
    for (const socket of this.sockets.keys()) socket.end(ndjsonFrame({ type: 'closed', code: 1001, reason: 'runtime shutting down' }));
    for (const socket of this.sockets.keys()) socket.destroySoon();
    this.server = null;
    if (process.platform !== 'win32') rmSync(this.options.path, { force: true });
  }
}
