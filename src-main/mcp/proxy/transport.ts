import type { AuditEventData } from '../../../src-shared/audit/events.js';

/*
 * The two sides of a proxy session (session.ts), shaped like the MCP SDK's `Transport`
 * (`@modelcontextprotocol/sdk/shared/transport`): callbacks installed by the session before
 * `start`, then `send` and `close`/`stop`. They carry lines of JSON-RPC text, never parsed
 * messages: the relay parses each message once and forwards the original text when nothing
 * changed, so a transport must neither parse nor re-serialise (docs/mcp-proxy.md "Transports").
 * A new transport (an HTTP client side, a remote server side) implements one of these and is
 * composed in proxy.ts; the session and the gate do not change.
 */

/** Options of one line sent to the client, as the SDK's `TransportSendOptions`. */
export interface ClientSendOptions {
  /**
   * The client request this line answers or belongs to (its response, an error for it, progress
   * while it waits for a person). Undefined for what belongs to no request (tools/list_changed,
   * the server's own requests): a transport that routes by request (streamable HTTP) sends those
   * on its standalone stream.
   */
  relatedRequestId?: string | number;
}

/** Callbacks both sides share: installed by the session, called by the transport. */
interface Inbound {
  /** One message as received: a line of JSON-RPC text. */
  onLine?: (line: string) => void;
  /**
   * Wraps the delivery of messages that arrived together (one chunk of input): their ledger
   * entries commit in one transaction before any of their effects run (proxy-audit.ts). A
   * transport delivers every line inside such a call.
   */
  onBatch?: (deliver: () => void) => void;
}

/** The agent's side: the MCP client the proxy serves. */
export interface ClientSide extends Inbound {
  /** Input that cannot be framed as a message (a line too long): the session answers a parse error. */
  onFramingError?: (reason: string) => void;
  /** The client went away (end of input). Called once, after its last line was delivered. */
  onClose?: () => void;
  /** Starts reading; callbacks are installed before. */
  start(): void;
  send(line: string, options: ClientSendOptions): void;
  /** Stops reading; lines already sent are still delivered. */
  close(): void;
}

/** How the MCP server ended, as the server side tells it. */
export interface ServerExit {
  /** Completes "the MCP server …": "exited with code 0", "was killed by SIGTERM". */
  how: string;
  /** It ended by a failure of its own: the proxy exits 1 unless its client left first. */
  crashed: boolean;
  /** What `mcp.proxy_stopped` records about the end. */
  record: Pick<AuditEventData<'mcp.proxy_stopped'>, 'exit_code' | 'signal' | 'limits'>;
}

/** The MCP server behind the proxy. */
export interface ServerSide extends Inbound {
  /** A diagnostic line from the server (a stdio server's stderr): the session filters it through DLP and logs it. */
  onLog?: (line: string) => void;
  /** The server ended; called once, after its last line was delivered. */
  onClose?: (exit: ServerExit) => void;
  /** Connects to (or starts) the server; rejects with an error whose message says why it could not. */
  start(): Promise<void>;
  send(line: string): void;
  /**
   * Ends the server: asked gently when the client left, or, with `signal`, because the proxy
   * itself was told to stop by that signal. `onClose` follows.
   */
  stop(signal?: string): void;
}
