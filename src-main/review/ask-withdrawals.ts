import type { AskWithdrawReason } from '../../src-shared/schemas/approval.js';

/*
 * Questions follow the agent (docs/review.md "Withdrawn"): a proxy's question is withdrawn when
 * the proxy says its agent cancelled the call or went away (`approvals.withdraw`), and when the
 * proxy's own connection to the runtime ends. A question is found only under the connection that
 * asked it: any local process holding the ask credential can open a connection, but it reaches
 * only the questions it asked itself, never another proxy's.
 */

/** The caller as the control plane knows it (router CallContext, without importing control/). */
export interface AskingConnection {
  transport: string;
  session?: string;
  /** Aborts when the connection ends. */
  ended?: AbortSignal;
}

export interface AskKey {
  sessionId: string;
  requestId: string | number;
}

/** The sentence a withdrawn card, its audit entry and a late decision give as the reason. */
export function withdrawReasonText(reason: AskWithdrawReason, detail?: string): string {
  switch (reason) {
    case 'client_cancelled':
      return `the agent cancelled the call${detail ? ` (it said: ${JSON.stringify(detail.slice(0, 200))})` : ''}`;
    case 'client_closed':
      return "the agent's connection to the proxy closed";
    case 'ask_timeout':
      return "the proxy's ask timeout passed before anyone answered";
    case 'proxy_stopped':
      return 'the proxy stopped';
  }
}

const CONNECTION_ENDED_REASON = "the proxy's connection to Silas closed";

/** Only the first 80 control-free characters of an agent's words are kept. */
export function cleanDetail(detail: string | undefined): string | undefined {
  if (detail === undefined) return undefined;
  // eslint-disable-next-line no-control-regex
  const text = detail.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text === '' ? undefined : text.slice(0, 80);
}

/** One connection's questions: ask key → their controllers, and the one listener on its end. */
interface ConnectionAsks {
  asks: Map<string, Set<AbortController>>;
  detach(): void;
}

export class AskWithdrawals {
  private readonly open = new Map<string, ConnectionAsks>();

  /**
   * Runs `ask` with a signal that aborts, with the reason as a sentence, when the asking
   * connection withdraws it or ends. The bookkeeping ends with the question.
   */
  async track<T>(caller: AskingConnection, key: AskKey, ask: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    if (caller.ended?.aborted) controller.abort(CONNECTION_ENDED_REASON);
    const connection = connectionOf(caller);
    const entry = this.open.get(connection) ?? this.attach(connection, caller.ended);
    const askKey = keyOf(key);
    const same = entry.asks.get(askKey) ?? new Set<AbortController>();
    entry.asks.set(askKey, same);
    same.add(controller);
    try {
      return await ask(controller.signal);
    } finally {
      same.delete(controller);
      if (same.size === 0 && entry.asks.get(askKey) === same) entry.asks.delete(askKey);
      if (entry.asks.size === 0 && this.open.get(connection) === entry) {
        entry.detach();
        this.open.delete(connection);
      }
    }
  }

  /** Withdraws what this connection asked under `key`; false when nothing of it is waiting. */
  withdraw(caller: AskingConnection, key: AskKey, reason: string): boolean {
    const waiting = this.open.get(connectionOf(caller))?.asks.get(keyOf(key));
    if (!waiting || waiting.size === 0) return false;
    for (const controller of [...waiting]) controller.abort(reason);
    return true;
  }

  /** Questions waiting, across connections. */
  get size(): number {
    let n = 0;
    for (const entry of this.open.values()) for (const same of entry.asks.values()) n += same.size;
    return n;
  }

  /** One listener per connection, however many questions it has waiting. */
  private attach(connection: string, ended: AbortSignal | undefined): ConnectionAsks {
    const asks = new Map<string, Set<AbortController>>();
    const onEnded = () => {
      for (const same of [...asks.values()]) for (const controller of [...same]) controller.abort(CONNECTION_ENDED_REASON);
    };
    ended?.addEventListener('abort', onEnded, { once: true });
    const entry = { asks, detach: () => ended?.removeEventListener('abort', onEnded) };
    this.open.set(connection, entry);
    return entry;
  }
}

function connectionOf(caller: AskingConnection): string {
  return caller.session ?? `session-${caller.transport}`;
}

function keyOf(key: AskKey): string {
  return JSON.stringify([key.sessionId, typeof key.requestId, String(key.requestId)]);
}
