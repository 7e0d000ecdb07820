import type { StreamCaller } from './stream-channel.js';

/*
 * What one credential can make the Stream hold (docs/silas/stream.md "Limits"; DESIGN §5: limits
 * everywhere a credential can reach). Every conversation can queue turns on the person's paid
 * model, so opening them is bounded per session and per credential, and waiting turns per scope
 * and per credential. The credentials are the two the runtime hands out: the cockpit's (IPC and
 * the cockpit WebSocket, the person's) and the local socket's ask credential (control.json, any
 * same-user process).
 *
 * Beyond a limit, the local socket's credential is refused. The cockpit's is the person's own, and
 * its desktop window is one session for the runtime's whole life (a new window, or a tab whose
 * storage was cleared, opens a new conversation): there the session's oldest idle conversation is
 * let go instead (it stays resumable with its key), so the person is never locked out.
 */

export interface StreamLimits {
  /** Scopes one session (one connection) may hold. */
  scopesPerSession: number;
  /** Scopes the connected sessions of one credential may hold together. */
  scopesPerCredential: number;
  /** Turns waiting behind the running one in one scope. */
  queuedTurnsPerScope: number;
  /** Turns waiting or running across every scope of one credential. */
  turnsPerCredential: number;
}

export const STREAM_LIMITS: StreamLimits = { scopesPerSession: 8, scopesPerCredential: 32, queuedTurnsPerScope: 4, turnsPerCredential: 16 };

export type StreamCredential = 'cockpit' | 'local-socket';

/**
 * How full the Stream's queues are (spec 002 §18.6 "Queue pressure state is surfaced in /health"):
 * `busy` once a conversation's queue or a credential's turns are at their limit, when the next
 * message there is refused.
 */
export interface QueuePressure {
  state: 'ok' | 'busy';
  /** Turns running now, one per conversation at most. */
  running: number;
  /** Turns waiting behind them, over every conversation. */
  waiting: number;
  /** Conversations whose queue is full. */
  full_scopes: number;
  max_waiting_per_scope: number;
  /** Turns waiting or running per credential, beside their limit. */
  turns: Record<StreamCredential, number>;
  max_turns_per_credential: number;
}

export function credentialOf(transport: StreamCaller['transport']): StreamCredential {
  return transport === 'local-socket' ? 'local-socket' : 'cockpit';
}

export interface OpenRefusal {
  limit: 'session' | 'credential';
  held: number;
  max: number;
}

/** Which session holds each scope, and the counts the limits are checked against. */
export class ScopeHolders {
  private readonly holders = new Map<string, { session: string; credential: StreamCredential }>();
  private readonly refusedSessions = new Set<string>();

  constructor(
    private readonly limits: StreamLimits,
    /** Whether a session is still connected; a disconnected one's scopes stop counting and lose their holder. */
    private readonly live: (session: string) => boolean,
  ) {}

  sessionOf(scope: string): string | undefined {
    return this.holders.get(scope)?.session;
  }

  /** `scope` is now held by `caller`, as its most recently opened. */
  hold(scope: string, caller: StreamCaller): void {
    this.holders.delete(scope);
    this.holders.set(scope, { session: caller.session, credential: credentialOf(caller.transport) });
  }

  /**
   * Null when `caller` may open (or resume `resuming`) one more scope; otherwise which limit it
   * reached. A cockpit session at its limit lets go of its oldest scope that `busy` says is idle.
   */
  admit(resuming: string | null, caller: StreamCaller, busy: (scope: string) => boolean = () => false): OpenRefusal | null {
    if (resuming !== null && this.holders.get(resuming)?.session === caller.session) return null;
    const credential = credentialOf(caller.transport);
    let bySession = 0;
    let byCredential = 0;
    for (const [scope, holder] of this.holders) {
      if (holder.session === caller.session) bySession += 1;
      else if (!this.live(holder.session)) {
        // Nobody receives this scope's events any more; its key resumes it on a new connection.
        this.holders.delete(scope);
        continue;
      }
      if (holder.credential === credential) byCredential += 1;
    }
    if (bySession >= this.limits.scopesPerSession && !(credential === 'cockpit' && this.releaseOldestIdle(caller.session, busy))) {
      return { limit: 'session', held: bySession, max: this.limits.scopesPerSession };
    }
    if (byCredential >= this.limits.scopesPerCredential) return { limit: 'credential', held: byCredential, max: this.limits.scopesPerCredential };
    return null;
  }

  private releaseOldestIdle(session: string, busy: (scope: string) => boolean): boolean {
    for (const [scope, holder] of this.holders) {
      if (holder.session === session && !busy(scope)) {
        this.holders.delete(scope);
        return true;
      }
    }
    return false;
  }

  /** True the first time `session` is refused: its refusals are audited once, not once per call. */
  firstRefusal(session: string): boolean {
    if (this.refusedSessions.has(session)) return false;
    if (this.refusedSessions.size >= 10_000) this.refusedSessions.clear();
    this.refusedSessions.add(session);
    return true;
  }
}
