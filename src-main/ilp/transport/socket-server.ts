import { timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { errorResponse } from '../composition/messages.js';
import { ILP_LIMITS } from '../protocol/limits.js';
import { headerOf, type IlpResponse } from '../protocol/message.js';
import { parseIlpMessage } from '../protocol/parse.js';
import { serializeIlpMessage } from '../protocol/serialize.js';
import type { IlpHandler } from './http-endpoint.js';

/*
 * ILP's own text framing on a local socket (docs/ilp.md "Transports"): messages exactly as §5
 * writes them, one after another on a connection, each request answered before the next is read.
 * A message ends where its Content-Length says, so the framing is the codec's own; the header
 * section is found first (it may not hold a blank line, §5), bounded like every other limit. The
 * socket is the owner's alone (mode 0600) and every request carries the runtime-issued credential
 * as `Authorization: Bearer …`, which is removed before the request is handed on, so no record
 * ever holds it. The agent is named by the request's `ILP-Agent` header (the meta-agent when
 * absent), as an `ilp://` URI names it.
 */

export interface IlpSocketOptions {
  path: string;
  token: string;
  handler: IlpHandler;
  /** A message begun must be complete within this. */
  frameDeadlineMs?: number;
  maxConnections?: number;
}

const AGENT_HEADER = 'ILP-Agent';

export class IlpSocketServer {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: IlpSocketOptions) {}

  async start(): Promise<void> {
    const { path } = this.options;
    if (process.platform !== 'win32') {
      try {
        if (lstatSync(path).isSocket()) rmSync(path, { force: true });
      } catch {
        // No socket left from an earlier run.
      }
    }
    const server = createServer((socket) => this.accept(socket));
    server.maxConnections = this.options.maxConnections ?? 32;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
    if (process.platform !== 'win32') chmodSync(path, 0o600);
    this.server = server;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((done) => server.close(() => done()));
    if (process.platform !== 'win32') rmSync(this.options.path, { force: true });
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffer = Buffer.alloc(0);
    let busy = false;
    let deadline: NodeJS.Timeout | null = null;
    const write = (response: IlpResponse) => socket.write(serializeIlpMessage(response));
    const fail = (response: IlpResponse) => {
      write(response);
      socket.end();
      buffer = Buffer.alloc(0);
    };
    const pump = async (): Promise<void> => {
      if (busy) return;
      busy = true;
      try {
        for (;;) {
          // A line end after a message's body is allowed (§5); it is not the start of the next.
          let skip = 0;
          while (skip < buffer.length && (buffer[skip] === 0x0a || buffer[skip] === 0x0d)) skip += 1;
          buffer = buffer.subarray(skip);
          const frame = nextFrame(buffer);
          if (frame === 'incomplete') break;
          if (typeof frame === 'object' && 'refusal' in frame) return fail(frame.refusal);
          buffer = buffer.subarray(frame.length);
          await this.answer(frame.bytes, write);
        }
        if (deadline) clearTimeout(deadline);
        deadline = buffer.length > 0 ? setTimeout(() => fail(errorResponse(400, 'the message was not completed in time')), this.options.frameDeadlineMs ?? 10_000) : null;
      } finally {
        busy = false;
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      void pump();
    });
    socket.once('close', () => deadline && clearTimeout(deadline));
  }

  private async answer(bytes: Buffer, write: (response: IlpResponse) => void): Promise<void> {
    const parsed = parseIlpMessage(bytes);
    if (!parsed.ok) return write(errorResponse(400, `${parsed.error.field}: ${parsed.error.message}`));
    const message = parsed.message;
    if (message.kind !== 'request') return write(errorResponse(400, 'start-line: the socket takes requests'));
    const auth = headerOf(message, 'Authorization')?.value;
    const token = typeof auth === 'string' ? /^Bearer (\S+)$/.exec(auth)?.[1] : undefined;
    if (token === undefined || !sameCredential(token, this.options.token)) return write(errorResponse(400, 'Authorization: send "Bearer TOKEN" with the token from HOME/control.json'));
    const agentHeader = headerOf(message, AGENT_HEADER)?.value;
    message.headers = message.headers.filter((h) => !['authorization', AGENT_HEADER.toLowerCase()].includes(h.name.toLowerCase()));
    const agent = typeof agentHeader === 'string' ? agentHeader : 'meta-agent';
    try {
      const { response } = await this.options.handler.handle({ agent, request: message, requestText: serializeIlpMessage(message), signal: new AbortController().signal });
      write(response);
    } catch (error) {
      write(errorResponse(500, `the ILP request failed: ${(error as Error).message}`));
    }
  }
}

type Frame = 'incomplete' | { refusal: IlpResponse } | { bytes: Buffer; length: number };

/** The next whole message in `buffer`: its header section up to the blank line, then Content-Length bytes. */
function nextFrame(buffer: Buffer): Frame {
  const lf = buffer.indexOf('\n\n');
  const crlf = buffer.indexOf('\r\n\r\n');
  const end = lf >= 0 && (crlf < 0 || lf < crlf) ? lf + 2 : crlf >= 0 ? crlf + 4 : -1;
  if (end < 0) return buffer.length > ILP_LIMITS.headerSection ? { refusal: errorResponse(400, `headers: larger than ${ILP_LIMITS.headerSection} bytes (§10.4)`) } : 'incomplete';
  if (end > ILP_LIMITS.headerSection) return { refusal: errorResponse(400, `headers: larger than ${ILP_LIMITS.headerSection} bytes (§10.4)`) };
  const head = buffer.subarray(0, end).toString('utf8');
  const declared = /(?:^|\n)content-length:[ \t]*([0-9]{1,10})[ \t]*\r?\n/i.exec(head);
  const length = declared ? Number(declared[1]) : 0;
  if (length > ILP_LIMITS.body) return { refusal: errorResponse(400, `Content-Length: more than ${ILP_LIMITS.body} bytes (§10.4)`) };
  if (buffer.length < end + length) return 'incomplete';
  return { bytes: buffer.subarray(0, end + length), length: end + length };
}

/** Constant-time comparison of a presented credential with the one issued (both ILP transports use it). */
export function sameCredential(candidate: string, expected: string): boolean {
  const a = Buffer.from(candidate);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
