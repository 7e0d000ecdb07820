import type { Socket } from 'node:net';

/*
 * The one request the egress proxy understands: `CONNECT host:port HTTP/1.1`, headers, a blank
 * line. It is read strictly and only up to that blank line, because whatever follows belongs to
 * the tunnel (a TLS ClientHello often arrives in the same packet). The request line is judged as
 * soon as it is complete, so a client speaking something else is answered without waiting for a
 * header it may never finish.
 */

export type ConnectHead =
  | { kind: 'connect'; target: string; rest: Buffer }
  | { kind: 'reject'; status: 400 | 405 | 431; message: string };

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([^ ]+) HTTP\/1\.[01]$/;
const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*$/;
const TERMINATOR = '\r\n\r\n';

const MESSAGES = {
  malformed: 'silas egress proxy: malformed request; expected "CONNECT host:port HTTP/1.1".',
  onlyConnect: 'silas egress proxy: only CONNECT is supported; set HTTPS_PROXY so clients tunnel through it.',
  tooLarge: 'silas egress proxy: request header too large.',
};

const REASONS: Record<number, string> = {
  200: 'Connection established',
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** A complete request line (without CRLF): the CONNECT target, or why it is refused. */
function judgeRequestLine(line: string | null): { target: string } | ConnectHead {
  const match = line === null ? null : REQUEST_LINE.exec(line);
  if (match === null) return { kind: 'reject', status: 400, message: MESSAGES.malformed };
  if (match[1] !== 'CONNECT') return { kind: 'reject', status: 405, message: MESSAGES.onlyConnect };
  return { target: match[2]! };
}

function parseHead(head: Buffer, rest: Buffer): ConnectHead {
  const text = decode(head);
  const lines = text === null ? [null] : text.split('\r\n');
  const judged = judgeRequestLine(lines[0] ?? null);
  if ('kind' in judged) return judged;
  if (!lines.slice(1).every((line) => line !== null && HEADER_LINE.test(line))) return { kind: 'reject', status: 400, message: MESSAGES.malformed };
  return { kind: 'connect', target: judged.target, rest };
}

/**
 * Reads the CONNECT head from `socket` and leaves the socket paused with every byte after the
 * head either in `rest` or still unread. Null when the client goes away first.
 */
export function readConnectHead(socket: Socket, maxHeaderBytes: number): Promise<ConnectHead | null> {
  return new Promise((resolve) => {
    let buffered: Buffer = Buffer.alloc(0);
    let lineJudged = false;
    const finish = (result: ConnectHead | null) => {
      socket.off('data', onData);
      socket.off('end', onGone);
      socket.off('close', onGone);
      socket.pause();
      resolve(result);
    };
    const onGone = () => finish(null);
    const onData = (chunk: Buffer) => {
      const searchFrom = Math.max(0, buffered.length - TERMINATOR.length + 1);
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      if (!lineJudged) {
        const newline = buffered.indexOf('\n');
        if (newline >= 0 && newline < maxHeaderBytes) {
          lineJudged = true;
          const line = buffered[newline - 1] === 0x0d ? decode(buffered.subarray(0, newline - 1)) : null;
          const judged = judgeRequestLine(line);
          if ('kind' in judged) return finish(judged);
        }
      }
      const end = buffered.indexOf(TERMINATOR, searchFrom);
      const tooLarge = { kind: 'reject', status: 431, message: MESSAGES.tooLarge } as const;
      if (end < 0) return buffered.length > maxHeaderBytes ? finish(tooLarge) : undefined;
      if (end + TERMINATOR.length > maxHeaderBytes) return finish(tooLarge);
      finish(parseHead(buffered.subarray(0, end), buffered.subarray(end + TERMINATOR.length)));
    };
    socket.on('data', onData);
    socket.once('end', onGone);
    socket.once('close', onGone);
  });
}

/** A complete response with a one-line plain-text body; the connection closes after it. */
export function httpResponse(status: number, body: string): string {
  const line = `${body}\n`;
  return [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(line)}`,
    'Connection: close',
    '',
    line,
  ].join('\r\n');
}

export const ESTABLISHED = 'HTTP/1.1 200 Connection established\r\n\r\n';
