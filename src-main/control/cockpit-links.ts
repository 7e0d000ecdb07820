import { randomBytes } from 'node:crypto';
import { COCKPIT_LINK_TAG, cockpitLinkSignedText, type CockpitLinkArgs, type CockpitLinkChallenge, type CockpitLinkResult, type CockpitRevokeResult } from '../../src-shared/schemas/cockpit-link.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { AuditLog } from '../audit/audit-log.js';
import { ownerSignerOfTagged } from '../keys/sealed-state.js';
import type { CockpitCredentials } from './cockpit-credentials.js';
import type { CallContext } from './router.js';

/** How long a challenge may be answered: `silas open` signs at once, so a minute is plenty. */
export const COCKPIT_CHALLENGE_TTL_MS = 60_000;
/**
 * Challenges waiting for an answer at most; beyond, the oldest is dropped. Any ask-credential
 * holder may ask for one, so what they make the runtime hold stays bounded.
 */
const MAX_OPEN_CHALLENGES = 32;
// Both maps are bounded by count alone: an expired challenge stays until pushed out, so its
// answer is refused as expired rather than as unknown.
/** Answered challenges remembered, so a replay is told apart from a challenge never issued. */
const MAX_USED_CHALLENGES = 256;

/** Where a fresh link leads: the headless cockpit's address (a fresh credential goes in its fragment), or the desktop window. */
type CockpitLinkTarget = { kind: 'link'; url: string } | { kind: 'window'; show(): void };

export interface CockpitLinksOptions {
  /** The data home this runtime serves (absolute): every signature must name it. */
  home: string;
  /** The keyring-held owner key (`trustedKeys()`), never a key from the database (DESIGN invariant 9). */
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  audit: Pick<AuditLog, 'append'>;
  /** The cockpit credentials of this run: each link gets a fresh one; revoking keeps only the caller's. */
  credentials: Pick<CockpitCredentials, 'issue' | 'revokeAllBut'>;
  /** Refusals go to the rate-capped security sink, so a flood of bad answers cannot flood the ledger. */
  onRefused: (data: { peer: string; reason: string; transport: string }) => void;
  /** Null until the runtime serves a cockpit. */
  target: () => CockpitLinkTarget | null;
  now?: () => Date;
}

/**
 * Getting back into the cockpit (docs/control-plane.md "Getting back into the cockpit"). The
 * cockpit credential is never written where an asker can read it, so a lost tab is re-opened by
 * proving possession of the owner key instead: a one-time challenge, signed (domain-separated,
 * bound to this home) by the key the OS keyring holds. Whoever can make that signature can
 * already sign approvals as the owner, so handing them the link adds no capability (DESIGN
 * invariants 8 and 9). Each link carries a fresh credential of its own, valid until the runtime
 * stops or the person revokes cockpit sessions (`revokeSessions`).
 */
export class CockpitLinks {
  private readonly open = new Map<string, number>();
  private readonly used = new Map<string, true>();
  private readonly now: () => Date;

  constructor(private readonly options: CockpitLinksOptions) {
    this.now = options.now ?? (() => new Date());
  }

  challenge(): CockpitLinkChallenge {
    const t = this.now().getTime();
    const challenge = randomBytes(32).toString('base64url');
    this.open.set(challenge, t + COCKPIT_CHALLENGE_TTL_MS);
    while (this.open.size > MAX_OPEN_CHALLENGES) this.open.delete(this.open.keys().next().value!);
    return { challenge, home: this.options.home, expiresAt: new Date(t + COCKPIT_CHALLENGE_TTL_MS).toISOString() };
  }

  issue(args: CockpitLinkArgs, ctx: Pick<CallContext, 'transport' | 'peer'>): CockpitLinkResult {
    const t = this.now().getTime();
    const expiresAt = this.open.get(args.challenge);
    // Single use whatever the outcome: a failed answer burns its challenge.
    this.open.delete(args.challenge);
    if (expiresAt === undefined) {
      if (this.used.has(args.challenge)) this.refuse(ctx, 'reused challenge', 'this challenge was already answered (each is good once, so a recorded answer cannot be replayed); run `silas open` again');
      this.refuse(ctx, 'unknown challenge', 'this challenge was not issued by this runtime (it may have restarted, or too many were asked for at once); run `silas open` again');
    }
    this.remember(args.challenge);
    if (t > expiresAt) this.refuse(ctx, 'expired challenge', `this challenge expired (a challenge lasts ${COCKPIT_CHALLENGE_TTL_MS / 1000} s); run \`silas open\` again`);
    if (args.home !== this.options.home) {
      this.refuse(ctx, 'signed for another home', `the signature is for the data home ${args.home}, but this runtime serves ${this.options.home}; run \`silas open --home ${this.options.home}\``);
    }
    const fingerprint = ownerSignerOfTagged(COCKPIT_LINK_TAG, cockpitLinkSignedText(this.options.home, args.challenge), args.signature, this.options.trustedKeys());
    if (fingerprint === null) {
      this.refuse(
        ctx,
        'signature not by the owner key',
        "the signature is not by this home's owner key as the OS keyring holds it; only a process that can reach the keyring gets a cockpit link: run `silas open` in a session where the keyring is unlocked",
      );
    }
    const target = this.options.target();
    if (target === null) throw new SilasError(ErrorCode.Unavailable, 'the runtime is not serving the cockpit yet; wait until `silas start` printed its address, then run `silas open` again');
    this.options.audit.append('control.cockpit_link_issued', { owner_fingerprint: fingerprint, delivered: target.kind, transport: ctx.transport, peer: ctx.peer ?? 'local' });
    if (target.kind === 'window') {
      target.show();
      return { kind: 'window' };
    }
    return { kind: 'link', url: `${target.url}#token=${this.options.credentials.issue('link')}` };
  }

  /**
   * The person signs out every other cockpit tab and link: every credential but the one the
   * calling session used stops authenticating, and its sessions are closed. Counts are audited,
   * never a credential.
   */
  revokeSessions(ctx: Pick<CallContext, 'transport' | 'peer' | 'session'>): CockpitRevokeResult {
    const revoked = this.options.credentials.revokeAllBut(ctx.session);
    this.options.audit.append('control.cockpit_sessions_revoked', { ...revoked, transport: ctx.transport, peer: ctx.peer ?? 'local' });
    return revoked;
  }

  private refuse(ctx: Pick<CallContext, 'transport' | 'peer'>, reason: string, message: string): never {
    this.options.onRefused({ peer: ctx.peer ?? 'local', reason, transport: ctx.transport });
    throw new SilasError(ErrorCode.Unauthorized, `no cockpit link: ${message}`);
  }

  private remember(challenge: string): void {
    this.used.set(challenge, true);
    while (this.used.size > MAX_USED_CHALLENGES) this.used.delete(this.used.keys().next().value!);
  }
}
