import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * The part of the scripted model servers (scripted-openai-server.ts, scripted-anthropic-server.ts)
 * that is about HTTP, not about a wire format: a queue of replies answered in order whatever the
 * path, and a record of every request exactly as it arrived, so tests can assert on prompts and
 * on where the key travelled. Listens on 127.0.0.1 only, on a port the OS picks.
 */

export interface SseEvent {
  /** The `event:` line (the Anthropic format); absent for OpenAI's data-only stream. */
  event?: string;
  data: string;
}

export type ScriptedReply =
  | { kind: 'json'; status?: number; body: unknown; headers?: Readonly<Record<string, string>> }
  /** `stallAfter`: send the events, then keep the connection open and silent (a provider that stops mid-answer). */
  | { kind: 'sse'; events: readonly SseEvent[]; stallAfter?: boolean }
  | { kind: 'error'; status: number; body?: unknown; headers?: Readonly<Record<string, string>> }
  /** Accept the request and never answer. */
  | { kind: 'hang' };

export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  /** Name, value, name, value… as sent, for searching every byte of the request. */
  rawHeaders: readonly string[];
  body: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** The client went away before the reply was complete (a timeout, a cancellation, a reader that stopped). */
  disconnected: boolean;
}

export class ScriptedHttpServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedReply[] = [];

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<ScriptedHttpServer> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const scripted = new ScriptedHttpServer(server, `http://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void scripted.handle(req, res));
    return scripted;
  }

  /** Replies to the next requests, in order. */
  enqueue(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Replies not yet used: a test that scripted exactly what it expected ends with 0. */
  get pending(): number {
    return this.queue.length;
  }

  /** Every byte a client sent, for a search: request lines, all headers, bodies. */
  transcript(): string {
    return this.requests.map((r) => `${r.method} ${r.path}\n${pairs(r.rawHeaders).join('\n')}\n\n${r.body}`).join('\n\n');
  }

  async close(): Promise<void> {
    // Hanging and stalled replies would otherwise hold close() open forever.
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: flatten(req.headers), rawHeaders: [...req.rawHeaders], body, json: parseJson(body), disconnected: false };
    this.requests.push(recorded);
    res.on('close', () => {
      if (!res.writableFinished) recorded.disconnected = true;
    });
    const reply = this.queue.shift();
    if (reply === undefined) {
      // A 400, not a 5xx: the client must not retry a test's missing script into a timeout.
      send(res, 400, { error: { message: `scripted server: no reply queued for ${req.method} ${req.url}`, type: 'invalid_request_error' } });
      return;
    }
    switch (reply.kind) {
      case 'json':
        send(res, reply.status ?? 200, reply.body, reply.headers);
        return;
      case 'error':
        send(res, reply.status, reply.body ?? { error: { message: `scripted HTTP ${reply.status}` } }, reply.headers);
        return;
      case 'hang':
        return;
      case 'sse':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        for (const event of reply.events) res.write(`${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`);
        if (!reply.stallAfter) res.end();
        return;
    }
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function flatten(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

function pairs(raw: readonly string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`);
  return lines;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
