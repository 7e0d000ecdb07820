import { timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { LineSplitter, ndjsonFrame } from '../../src-shared/contract/ndjson.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { ControlSession, sessionSettings, type SessionLink, type SessionSettings } from './control-session.js';
import { tokenDigest } from './cockpit-socket-server.js';

/** The longest frame a client may send, in bytes; a longer one closes the connection (1009). */
export const LOCAL_SOCKET_MAX_LINE = 1024 * 1024;

/*
 * Limits in size and time (docs/control-plane.md, Limits), as the WebSocket has them (maxPayload,
 * the auth timeout): any same-user process can connect, so no number of connections may make the
 * runtime hold unbounded memory or hold it for ever.
 */
/** The first frame is the `auth` frame (about 100 bytes): a longer one is not a credential. */
const LOCAL_SOCKET_MAX_AUTH_LINE = 4 * 1024;
/** A frame begun must end (its newline arrive) within this, or the connection is closed (1008). */
const LOCAL_SOCKET_FRAME_DEADLINE_MS = 10_000;
/** Bytes of unfinished frames held across every connection of the socket; beyond it the connection adding to them is closed (1013). */
export const LOCAL_SOCKET_MAX_BUFFERED = 16 * 1024 * 1024;
/** Connections open at once; one more is refused at once (1013). */
export const LOCAL_SOCKET_MAX_CONNECTIONS = 128;

export interface LocalSocketOptions extends SessionSettings {
  /** A UNIX socket path (HOME/control.sock) or a Windows named pipe (\\.\pipe\…). */
  path: string;
  /** The ask credential written to control.json: it opens only ask-capability sessions (capabilities.ts). */
  token: string;
  /** Tests lower the limits; the runtime uses the constants above. */
  limits?: Partial<LocalSocketLimits>;
}

export interface LocalSocketLimits {
  maxLineBytes: number;
  maxAuthLineBytes: number;
  frameDeadlineMs: number;
  maxBufferedBytes: number;
  maxConnections: number;
}

/** The transport's own accounting of what it holds. */
export interface LocalSocketStats {
  connections: number;
  /** Bytes of unfinished frames held now, across connections. */
  bufferedBytes: number;
  /** The most ever held at once. */
  peakBufferedBytes: number;
  /** Connections refused or closed by a limit. */
  refused: number;
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
  private readonly limits: LocalSocketLimits;
  private buffered = 0;
  private peakBuffered = 0;
  private refused = 0;

  constructor(private readonly options: LocalSocketOptions) {
    this.expected = tokenDigest(options.token);
    this.limits = {
      maxLineBytes: LOCAL_SOCKET_MAX_LINE,
      maxAuthLineBytes: LOCAL_SOCKET_MAX_AUTH_LINE,
      frameDeadlineMs: LOCAL_SOCKET_FRAME_DEADLINE_MS,
      maxBufferedBytes: LOCAL_SOCKET_MAX_BUFFERED,
      maxConnections: LOCAL_SOCKET_MAX_CONNECTIONS,
      ...options.limits,
    };
  }

  get stats(): LocalSocketStats {
    return { connections: this.sockets.size, bufferedBytes: this.buffered, peakBufferedBytes: this.peakBuffered, refused: this.refused };
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
    socket.on('error', () => socket.destroy());
    if (this.sockets.size >= this.limits.maxConnections) {
      this.refuse(`more than ${this.limits.maxConnections} connections open at once`, this.limits.maxConnections);
      socket.end(ndjsonFrame({ type: 'closed', code: 1013, reason: 'too many connections; try again later' }), () => socket.destroy());
      return;
    }
    let open = true;
    // Bytes received since the last newline: the unfinished frame this connection makes the runtime hold.
    let pending = 0;
    let firstLine = true;
    let deadline: NodeJS.Timeout | null = null;
    const release = () => {
      this.buffered -= pending;
      pending = 0;
      if (deadline) clearTimeout(deadline);
      deadline = null;
    };
    const link: SessionLink = {
      send: (frame) => {
        if (open) socket.write(ndjsonFrame(frame));
      },
      close: (code, reason) => {
        if (!open) return;
        open = false;
        release();
        // Ended and then destroyed: a peer that keeps writing is not read any further.
        socket.end(ndjsonFrame({ type: 'closed', code, reason }), () => socket.destroy());
      },
      isOpen: () => open && !socket.destroyed,
    };
    const cut = (code: number, reason: string, refusal: string, limit: number) => {
      this.refuse(refusal, limit);
      link.close(code, reason);
    };
    const session = new ControlSession(link, {
      transport: 'local-socket',
      peer: 'local',
      tokenMatches: (candidate) => timingSafeEqual(tokenDigest(candidate), this.expected),
      ...sessionSettings(this.options),
    });
    this.sockets.set(socket, session);
    const lines = new LineSplitter(
      (line) => {
        firstLine = false;
        session.receive(line);
      },
      // Sizes are enforced in bytes below; the splitter's own cap (characters) is only a backstop.
      this.limits.maxLineBytes,
      () => cut(1009, 'frame too large', 'a frame longer than the cap', this.limits.maxLineBytes),
    );
    socket.on('data', (chunk: Buffer) => {
      if (!open || socket.destroyed) return;
      const newline = chunk.lastIndexOf(0x0a);
      const unfinished = newline === -1 ? pending + chunk.length : chunk.length - newline - 1;
      const cap = firstLine && newline === -1 ? this.limits.maxAuthLineBytes : this.limits.maxLineBytes;
      if (unfinished > cap) {
        return cut(1009, 'frame too large', firstLine ? 'a first (auth) frame longer than the cap' : 'a frame longer than the cap', cap);
      }
      if (this.buffered - pending + unfinished > this.limits.maxBufferedBytes) {
        return cut(1013, 'the runtime holds too many unfinished frames; send whole frames, and try again later', 'unfinished frames over the byte budget of all connections', this.limits.maxBufferedBytes);
      }
      this.buffered += unfinished - pending;
      this.peakBuffered = Math.max(this.peakBuffered, this.buffered);
      const began = newline !== -1 || pending === 0;
      pending = unfinished;
      if (pending === 0 || began) {
        if (deadline) clearTimeout(deadline);
        deadline = null;
      }
      if (pending > 0 && deadline === null) {
        deadline = setTimeout(() => cut(1008, 'a frame was not finished in time', `a frame not finished within ${this.limits.frameDeadlineMs} ms`, this.limits.frameDeadlineMs), this.limits.frameDeadlineMs);
      }
      lines.push(chunk);
    });
    socket.on('close', () => {
      open = false;
      release();
      session.closed();
      this.sockets.delete(socket);
    });
  }

  private refuse(reason: string, limit: number): void {
    this.refused += 1;
    this.options.onSecurityEvent?.('control.connection_refused', { peer: 'local', reason, limit });
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
