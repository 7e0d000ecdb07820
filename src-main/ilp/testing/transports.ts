import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ilpHttpHandler, type IlpHandler } from '../transport/http-endpoint.js';

/** An HTTP server answering only ILP, with one credential and the cockpit's Origin, on a loopback port. */
export async function ilpHttpServer(handler: IlpHandler, token: string): Promise<{ url: string; close: () => Promise<void> }> {
  const handle = ilpHttpHandler({ accepts: (t) => t === token, originAllowed: (origin) => origin === 'http://127.0.0.1:1', onRefused: () => undefined }, handler);
  const server: Server = createServer((req, res) => void handle(req, res, req.url ?? '/'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `text` to the ILP socket and reads back `count` whole responses (framed by Content-Length). */
export function socketExchange(path: string, text: string | Buffer, count = 1): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let buffer = Buffer.alloc(0);
    const out: string[] = [];
    const done = () => {
      socket.destroy();
      resolve(out);
    };
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end < 0) return;
        const length = Number(/content-length: *([0-9]+)/i.exec(buffer.subarray(0, end).toString())?.[1] ?? 0);
        if (buffer.length < end + 2 + length) return;
        out.push(buffer.subarray(0, end + 2 + length).toString());
        buffer = buffer.subarray(end + 2 + length);
        if (out.length === count) return done();
      }
    });
    socket.write(text);
  });
}
