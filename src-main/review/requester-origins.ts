import type { CardOrigin } from '../../src-shared/schemas/review.js';

/*
 * Where each card came from (docs/review.md "Sources"), decided by the runtime from the
 * connection that asked, never from the asker's words: the session id is the connection's own
 * (control-session.ts), and the transport fixes the credential, hence the channel and taint.
 * What the requester claims (the server it proxies) is quoted as its claim. Plans Silas proposes
 * in a Stream conversation carry the origin the Stream gives them (`planCardOrigin`).
 */

/** The caller as the control plane knows it (router CallContext, without importing control/). */
export interface AskingCaller {
  transport: 'ipc' | 'websocket' | 'local-socket' | 'in-process';
  session?: string;
}

export interface RequesterOriginsDeps {
  /** The person's governed servers (wrapped in an agent client's configuration); cached by the caller. */
  governed?: (server: string) => boolean;
}

/** "session-3f2a…" → "3f2a1b9c": enough to tell two sessions apart on a card. */
function shortSession(session: string): string {
  return session.replace(/^session-/, '').slice(0, 8);
}

function sourceOf(caller: AskingCaller): string {
  return caller.session ?? `session-${caller.transport}`;
}

function quoted(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

export class RequesterOrigins {
  constructor(private readonly deps: RequesterOriginsDeps = {}) {}

  /** A proxy's question about one tool call (`approvals.request`). */
  toolCall(caller: AskingCaller, server: string): CardOrigin {
    if (caller.transport === 'in-process') return { channel: 'runtime', sourceId: 'in-process', requester: 'the Silas runtime', taint: 'auth', governed: this.governed(server) };
    return {
      channel: 'local_requester',
      sourceId: sourceOf(caller),
      requester: `a local requester claiming to be the proxy of server ${quoted(server)} (session ${shortSession(sourceOf(caller))})`,
      taint: 'external',
      governed: this.governed(server),
    };
  }

  /** A plan a CLI command asks about (`plans.requestApproval`, `silas run`). */
  plan(caller: AskingCaller): CardOrigin {
    if (caller.transport === 'in-process') return { channel: 'runtime', sourceId: 'in-process', requester: 'the Silas runtime', taint: 'auth', governed: false };
    return { channel: 'local_requester', sourceId: sourceOf(caller), requester: `a local command such as "silas run" (session ${shortSession(sourceOf(caller))})`, taint: 'external', governed: false };
  }

  private governed(server: string): boolean {
    try {
      return this.deps.governed?.(server) ?? false;
    } catch {
      return false;
    }
  }
}
