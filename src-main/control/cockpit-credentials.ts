import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { WS_CLOSE_UNAUTHORIZED } from '../../src-shared/contract/wire.js';

/**
 * Cockpit credentials kept at most; beyond, the oldest is revoked (the start credential too, once
 * 31 links were issued after it) and its sessions are signed out. Each `silas open` adds one, so
 * whatever it is asked, the runtime holds a bounded number.
 */
export const MAX_COCKPIT_CREDENTIALS = 32;

/** The close reason a revoked session gets, with 4001: the cockpit shows "Token rejected" and stops reconnecting. */
export const REVOKED_CLOSE_REASON = 'signed out: cockpit sessions were revoked';

/** Where a credential came from: the link `silas start` printed, or one `silas open` / the tray issued. */
export type CockpitCredentialKind = 'start' | 'link';

/** An authenticated cockpit session, as the transport that carries it can end it. */
export interface CredentialSession {
  /** The control session's id (`CallContext.session`). */
  id: string;
  close(code: number, reason: string): void;
}

export interface RevokedSessions {
  /** Credentials that no longer authenticate. */
  credentials: number;
  /** Open sessions signed out because they had authenticated with one of them. */
  sessions: number;
}

interface Held {
  id: string;
  digest: Buffer;
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * The cockpit credentials of this runtime run (docs/control-plane.md "Getting back into the
 * cockpit"): the start credential and one fresh credential per link issued, each kept only as its
 * SHA-256 digest once handed out, so nothing in memory can be replayed as a credential. Each
 * authenticated WebSocket session is bound to the credential it used; revoking a credential
 * signs its sessions out. The IPC cockpit (the desktop window) needs no credential and is not
 * affected (DESIGN invariant 8).
 */
export class CockpitCredentials {
  private readonly held: Held[] = [];
  private readonly sessions = new Map<string, { credential: string; session: CredentialSession }>();
  private next = 0;

  constructor(private readonly max = MAX_COCKPIT_CREDENTIALS) {}

  /** A fresh random credential; the caller hands the token out once, only its digest is kept. */
  issue(kind: CockpitCredentialKind): string {
    const token = randomBytes(32).toString('base64url');
    this.adopt(token, kind);
    return token;
  }

  /** Keeps a credential made elsewhere (a cockpit server given its token); returns its id. */
  adopt(token: string, kind: CockpitCredentialKind): string {
    const id = `${kind}-${++this.next}`;
    this.held.push({ id, digest: digestOf(token) });
    while (this.held.length > this.max) this.revoke(this.held[0]!.id);
    return id;
  }

  /**
   * The id of the credential `candidate` is, or null. Every held digest is compared in constant
   * time, with no early exit, so timing tells nothing about which one (or whether one) matched.
   */
  match(candidate: string): string | null {
    const given = digestOf(candidate);
    let found: string | null = null;
    for (const held of this.held) {
      if (timingSafeEqual(given, held.digest)) found = held.id;
    }
    return found;
  }

  /** Binds an authenticated session to its credential; revoking that credential closes it. */
  bind(credential: string, session: CredentialSession): void {
    this.sessions.set(session.id, { credential, session });
  }

  /** The session ended: nothing to close any more. */
  unbind(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** The credential the session authenticated with, or null (IPC, in-process, or an unknown session). */
  credentialOf(sessionId: string | undefined): string | null {
    return sessionId === undefined ? null : this.sessions.get(sessionId)?.credential ?? null;
  }

  /**
   * Revokes every credential but the one `sessionId` authenticated with (all of them when it has
   * none: the desktop window) and signs out every session bound to a revoked one.
   */
  revokeAllBut(sessionId: string | undefined): RevokedSessions {
    const keep = this.credentialOf(sessionId);
    const doomed = this.held.filter((held) => held.id !== keep).map((held) => held.id);
    let sessions = 0;
    for (const id of doomed) sessions += this.revoke(id);
    return { credentials: doomed.length, sessions };
  }

  get size(): number {
    return this.held.length;
  }

  /** Drops one credential and closes its sessions; returns how many were closed. */
  private revoke(id: string): number {
    const at = this.held.findIndex((held) => held.id === id);
    if (at >= 0) this.held.splice(at, 1);
    let closed = 0;
    for (const [sessionId, bound] of [...this.sessions]) {
      if (bound.credential !== id) continue;
      this.sessions.delete(sessionId);
      bound.session.close(WS_CLOSE_UNAUTHORIZED, REVOKED_CLOSE_REASON);
      closed += 1;
    }
    return closed;
  }
}

/** What a cockpit surface authenticates against: the runtime's credentials, or one fixed token (a surface built on its own). */
export interface CockpitCredentialSource {
  credentials?: CockpitCredentials;
  /** A single credential, kept as the start credential of a set of its own. */
  token?: string;
}

/** The credentials `source` names; fails closed when it names none. */
export function credentialsFrom(source: CockpitCredentialSource): CockpitCredentials {
  if (source.credentials) return source.credentials;
  if (!source.token) throw new Error('a cockpit surface needs its credentials (or a token); none was given, so nothing could authenticate');
  const credentials = new CockpitCredentials();
  credentials.adopt(source.token, 'start');
  return credentials;
}
