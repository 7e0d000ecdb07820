import { randomUUID } from 'node:crypto';
import { ClientAuthFrame, ClientCallFrame, WS_AUTH_TIMEOUT_MS, WS_CLOSE_UNAUTHORIZED, type ServerFrame } from '../../src-shared/contract/wire.js';
import { fail } from '../../src-shared/contract/envelope.js';
import { ErrorCode } from '../../src-shared/errors.js';
import type { EventBus } from './event-bus.js';
import { sessionMay } from './capabilities.js';
import { TokenBucket } from './rate-limit.js';
import { describeZodError, type CallContext, type ControlRouter } from './router.js';

export interface SecurityEventSink {
  (
    event: 'control.auth_failed' | 'control.rate_limited' | 'control.upgrade_refused' | 'control.connection_refused' | 'control.decision_refused' | 'control.call_refused' | 'control.cockpit_link_refused',
    data: Record<string, string | number>,
  ): void;
}

/** The transport underneath one session: a WebSocket, or a line on the local socket. */
export interface SessionLink {
  send(frame: ServerFrame): void;
  close(code: number, reason: string): void;
  isOpen(): boolean;
}

/** What every transport hands each of its sessions, unchanged. */
export interface SessionSettings {
  router: ControlRouter;
  events: EventBus;
  messagesPerMinute: number;
  serverVersion: string;
  authTimeoutMs?: number;
  onSecurityEvent?: SecurityEventSink;
  now?: () => number;
}

/** The settings a transport passes through to its sessions, picked from its own options. */
export function sessionSettings(options: SessionSettings): SessionSettings {
  const { router, events, messagesPerMinute, serverVersion, authTimeoutMs, onSecurityEvent, now } = options;
  return { router, events, messagesPerMinute, serverVersion, authTimeoutMs, onSecurityEvent, now };
}

export interface ControlSessionOptions extends SessionSettings {
  transport: CallContext['transport'];
  peer: string;
  tokenMatches(candidate: string): boolean;
}

/**
 * One authenticated conversation on the control plane, whatever carries it: a token in the
 * first frame within the auth timeout (never in a URL), then rate-limited calls through the
 * router (which checks the transport's capabilities), every malformed frame answered without
 * closing, and events pushed once authenticated to sessions that may read them.
 */
export class ControlSession {
  private authenticated = false;
  private unsubscribe: (() => void) | null = null;
  private readonly bucket: TokenBucket;
  private limitedReported = false;
  private readonly authTimer: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  /** Aborted when the connection ends, so a question it still waits for leaves Review (CallContext.ended). */
  private readonly lifetime = new AbortController();
  /** Events published to this id reach this session only (a conversation scope's events). */
  readonly id = `session-${randomUUID()}`;

  constructor(
    private readonly link: SessionLink,
    private readonly options: ControlSessionOptions,
  ) {
    this.bucket = new TokenBucket(options.messagesPerMinute, options.messagesPerMinute, options.now);
    const authTimeoutMs = options.authTimeoutMs ?? WS_AUTH_TIMEOUT_MS;
    this.authTimer = setTimeout(() => {
      options.onSecurityEvent?.('control.auth_failed', { peer: options.peer, reason: `no auth message within ${authTimeoutMs} ms` });
      link.close(WS_CLOSE_UNAUTHORIZED, 'authentication timeout');
    }, authTimeoutMs);
  }

  /** A frame arrived; `null` stands for a binary frame. */
  receive(text: string | null): void {
    // Once closing (failed auth, shutdown), frames already in flight are dropped: a rejected
    // connection must not get further auth attempts or reach the router.
    if (!this.link.isOpen()) return;
    if (!this.authenticated) return this.authenticate(text);
    if (!this.bucket.take()) {
      if (!this.limitedReported) {
        this.limitedReported = true;
        this.options.onSecurityEvent?.('control.rate_limited', { peer: this.options.peer, limit_per_minute: this.options.messagesPerMinute });
      }
      const id = idOf(text === null ? undefined : safeJson(text));
      this.link.send({ type: 'result', id, result: fail(ErrorCode.RateLimited, `more than ${this.options.messagesPerMinute} messages per minute; slow down and retry`) });
      return;
    }
    const running = this.call(text).finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
  }

  /** Resolves when every call already received has been answered (graceful shutdown, spec 002 §18.2). */
  async drain(graceMs: number): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  closed(): void {
    this.lifetime.abort('the connection that asked closed');
    clearTimeout(this.authTimer);
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private authenticate(text: string | null): void {
    clearTimeout(this.authTimer);
    const auth = text === null ? null : ClientAuthFrame.safeParse(safeJson(text));
    if (!auth?.success || !this.options.tokenMatches(auth.data.token)) {
      this.options.onSecurityEvent?.('control.auth_failed', { peer: this.options.peer, reason: auth?.success ? 'wrong token' : 'first message was not an auth frame' });
      this.link.close(WS_CLOSE_UNAUTHORIZED, 'unauthorized');
      return;
    }
    this.authenticated = true;
    // Broadcast events carry what only the person may read (pending cards, audit entries): none for
    // an ask-only session. Events addressed to this session (its own conversation) always reach it.
    const mayRead = sessionMay(this.options.transport, 'read');
    this.unsubscribe = this.options.events.subscribe((name, payload, target) => {
      if (target === undefined ? !mayRead : target !== this.id) return;
      if (this.link.isOpen()) this.link.send({ type: 'event', name, payload });
    }, this.id);
    this.link.send({ type: 'ready', serverVersion: this.options.serverVersion });
  }

  private async call(text: string | null): Promise<void> {
    if (text === null) {
      this.link.send({ type: 'result', id: null, result: fail(ErrorCode.BadRequest, 'binary frames are not supported; send JSON text') });
      return;
    }
    const json = safeJson(text);
    if (json === undefined) {
      this.link.send({ type: 'result', id: null, result: fail(ErrorCode.BadRequest, 'message is not valid JSON') });
      return;
    }
    const frame = ClientCallFrame.safeParse(json);
    if (!frame.success) {
      this.link.send({ type: 'result', id: idOf(json), result: fail(ErrorCode.BadRequest, `malformed call: ${describeZodError(frame.error, 'message')}`) });
      return;
    }
    const result = await this.options.router.dispatch(frame.data.name, frame.data.args, { transport: this.options.transport, peer: this.options.peer, session: this.id, ended: this.lifetime.signal });
    if (this.link.isOpen()) this.link.send({ type: 'result', id: frame.data.id, result });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function idOf(json: unknown): string | number | null {
  if (json && typeof json === 'object' && 'id' in json) {
    const id = (json as { id: unknown }).id;
    if ((typeof id === 'string' && id.length <= 64) || (typeof id === 'number' && Number.isInteger(id))) return id;
  }
  return null;
}
