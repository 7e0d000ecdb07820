import type { PathBases } from '../../aip/evaluate/paths/path-bases.js';
import { withdrawAsk } from './ask.js';
import { handleClientLine } from './client-gate.js';
import { errorLine, noteAnnouncedRoots, type AskInFlight, type Forwarded, type ProxyContext } from './context.js';
import { handleServerLine } from './server-relay.js';
import { ChainSession } from './threat-guard.js';
import type { ClientSide, ServerExit, ServerSide } from './transport.js';

/** What a session is given: the context without the per-session maps and the two sides' writes. */
export type SessionDeps = Omit<ProxyContext, 'announcedHashes' | 'forwarded' | 'chains' | 'asking' | 'stopped' | 'toServer' | 'toClient'> & {
  /** Where relative paths resolve; the client's announced roots are added as they come. */
  readonly pathBases: PathBases;
};

/** How a session ended. */
export interface SessionEnd {
  code: number;
  reason: string;
}

const SERVER_GONE = -32603;

/**
 * One proxy run between a client side and a server side (transport.ts): the gate on what the
 * client sends (client-gate.ts), the relay of what the server sends (server-relay.ts), the ids
 * in flight and waiting for a person, and the answers owed when the run ends. Every line to the
 * client carries the request it relates to, so a transport can route by request. Knows no
 * process, stream or framing (docs/mcp-proxy.md "Transports").
 */
export class ProxySession {
  /** The gate's and relay's view of this run; `toClient` is also how the composition tells the client that tools changed. */
  readonly ctx: ProxyContext;
  private stopping = false;
  private clientClosed = false;
  private readonly serverExit: Promise<ServerExit>;

  constructor(
    deps: SessionDeps,
    private readonly client: ClientSide,
    server: ServerSide,
  ) {
    const { audit, log } = deps;
    this.ctx = {
      ...deps,
      announcedHashes: new Map(),
      forwarded: new Map<string, Forwarded>(),
      chains: new ChainSession(),
      asking: new Map<string, AskInFlight>(),
      stopped: () => this.stopping,
      toServer: (line) => audit.afterCommit(() => server.send(line)),
      toClient: (line, relatedRequestId) => audit.afterCommit(() => client.send(line, { relatedRequestId })),
    };
    const ctx = this.ctx;
    const dropped = (error: unknown) => log(`silas proxy: the audit entry could not be recorded, message dropped: ${(error as Error).stack ?? String(error)}`);
    /** One chunk of input: its messages' entries are committed together, then their effects run (DESIGN invariant 3). */
    const inBatch = (fn: () => void) => audit.batch(fn, dropped);
    client.onBatch = inBatch;
    server.onBatch = inBatch;
    client.onLine = (line) => {
      audit.message();
      safely(ctx, () => {
        noteAnnouncedRoots(deps.pathBases, line, log);
        handleClientLine(ctx, line);
      });
    };
    server.onLine = (line) => {
      audit.message();
      safely(ctx, () => handleServerLine(ctx, line));
    };
    client.onFramingError = (reason) => ctx.toClient(errorLine(null, { code: -32700, message: 'Parse error', data: { reason } }), undefined);
    server.onLog = (line) => safely(ctx, () => relayLog(ctx, line));
    client.onClose = () => {
      if (this.clientClosed) return;
      this.clientClosed = true;
      // Nobody waits for these calls any more: their questions leave Review now, and they never run.
      inBatch(() => {
        for (const key of [...ctx.asking.keys()]) withdrawAsk(ctx, key, { reason: 'client_closed' });
      });
      server.stop();
    };
    this.serverExit = new Promise((resolve) => (server.onClose = resolve));
  }

  /**
   * Relays until the server ends (it is started already), then answers what is still pending,
   * unless the client left, so the client never hangs; records `mcp.proxy_stopped`.
   */
  async run(): Promise<SessionEnd> {
    const { ctx, client } = this;
    client.start();
    const exit = await this.serverExit;
    this.stopping = true;
    client.close();

    const reason = this.clientClosed ? `the client closed its input; the MCP server ${exit.how}` : `the MCP server ${exit.how}`;
    const pending = [...ctx.forwarded.values()].map((f) => f.id);
    for (const key of [...ctx.asking.keys()]) {
      withdrawAsk(ctx, key, { reason: this.clientClosed ? 'client_closed' : 'proxy_stopped' });
      pending.push(key.startsWith('n:') ? Number(key.slice(2)) : key.slice(2));
    }
    ctx.audit.event('mcp.proxy_stopped', { reason, exit_code: exit.record.exit_code, signal: exit.record.signal, failed_pending: pending.length, limits: exit.record.limits });
    if (!this.clientClosed) {
      for (const id of pending) ctx.toClient(errorLine(id, { code: SERVER_GONE, message: 'MCP server unavailable', data: { reason: `${reason} before answering` } }), id);
    }
    ctx.forwarded.clear();
    ctx.asking.clear();
    ctx.approver.close?.();
    ctx.log(`silas proxy: stopped: ${reason}`);
    return { code: this.clientClosed || !exit.crashed ? 0 : 1, reason };
  }
}

/** An exception while handling one message is a bug; it must not kill the relay or pass the message. */
function safely(ctx: ProxyContext, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    ctx.log(`silas proxy: internal error, message dropped: ${(error as Error).stack ?? String(error)}`);
  }
}

/** The server's diagnostics go to the proxy's stderr, line by line, through filter_stderr. */
function relayLog(ctx: ProxyContext, line: string): void {
  const dlp = ctx.state().dlp;
  if (!dlp) return ctx.log(line);
  const filtered = dlp.filterStderr(line);
  if (filtered.redacted) ctx.audit.dlp('downstream', 'stderr', filtered.events);
  ctx.log(filtered.output);
}
