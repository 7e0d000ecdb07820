import { randomUUID } from 'node:crypto';
import type { AuditAppender } from '../../src-shared/audit/events.js';
import { Emitter } from '../../src-shared/emitter.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { NotificationRequest, Notifier } from '../app/types.js';

/**
 * One kind of decision the person makes (a tool call, a plan; later batch reviews, gate
 * approvals…). The queue owns the lifecycle, requested → shown → decided | expired | withdrawn;
 * the kind declares what is decided and what each step means: its subject (bound to a hash the
 * answer is bound to), its card, its audit entries and its effect on "yes".
 */
/** The answers every kind shares: the queue gives them, so each kind says only how to record them. */
export type DecisionRefusal = { outcome: 'deny'; reason: string } | { outcome: 'timeout' };

export interface DecisionKind<Request, Subject, Card, Answer extends DecisionRefusal | { outcome: 'approve' }, Choice extends string> {
  /** Names the kind in change notifications and in "no pending …" errors. */
  readonly name: string;
  readonly noun: string;
  /** Checks the request and hashes what is decided, here, never on the asker's word; throws naming the field. */
  subject(request: Request): { subject: Subject; timeoutMs: number };
  card(id: string, subject: Subject, requestedAt: Date, expiresAt: Date): Card;
  notification(card: Card, subject: Subject): NotificationRequest;
  /** Audit entries for each step, with the event names and data of the typed catalogue. */
  requested(id: string, subject: Subject): void;
  refusedPaused(subject: Subject): void;
  expired(id: string, subject: Subject): void;
  denied(id: string, subject: Subject, shutdown: boolean): void;
  /** The effect of a "yes" (sign, grant, issue a token), audited before it returns the answer. */
  approve(id: string, subject: Subject, choice: Exclude<Choice, 'deny'>): Answer;
}

/** What changed: a kind's waiting set, or the one pause (`kind: null`). */
export interface DecisionChange {
  kind: string | null;
}

export interface DecisionQueueDeps {
  audit: AuditAppender;
  notifier: Notifier;
  now?: () => Date;
  /** A pause held elsewhere (a standalone service's host), on top of the queue's own. */
  pausedElsewhere?: () => boolean;
}

interface Waiting {
  kind: string;
  subject: unknown;
  card: unknown;
  /** Records the kind's "no" (kept with the card so shutdown can answer every kind). */
  recordDenied(shutdown: boolean): void;
  resolve(answer: unknown): void;
  timer: NodeJS.Timeout;
}

export const PAUSED_REASON = 'approvals are paused in the Silas control center';
export const DENIED_REASON = 'denied by the user in the control center';

/**
 * Every decision waiting for the person, of any kind, in one place: one id space, one pause,
 * one count for the tray, one shutdown. A request resolves when the person decides, when it
 * expires (the card is withdrawn and the answer is "timeout"), or at shutdown ("no").
 */
export class DecisionQueue {
  private readonly waiting = new Map<string, Waiting>();
  private readonly changes = new Emitter<[DecisionChange]>();
  private paused = false;
  private readonly now: () => Date;

  constructor(private readonly deps: DecisionQueueDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  ask<Request, Subject, Card, Answer extends DecisionRefusal | { outcome: 'approve' }, Choice extends string>(kind: DecisionKind<Request, Subject, Card, Answer, Choice>, request: Request): Promise<Answer> {
    const { subject, timeoutMs } = kind.subject(request);
    if (this.isPaused()) {
      kind.refusedPaused(subject);
      return Promise.resolve({ outcome: 'deny', reason: PAUSED_REASON } as Answer);
    }
    const requestedAt = this.now();
    const id = randomUUID();
    const card = kind.card(id, subject, requestedAt, new Date(requestedAt.getTime() + timeoutMs));
    kind.requested(id, subject);
    return new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => this.settle(id, () => {
        kind.expired(id, subject);
        return { outcome: 'timeout' } satisfies DecisionRefusal;
      }), timeoutMs);
      timer.unref();
      this.waiting.set(id, { kind: kind.name, subject, card, recordDenied: (shutdown) => kind.denied(id, subject, shutdown), resolve: resolve as (answer: unknown) => void, timer });
      this.changed(kind.name);
      this.deps.notifier.notify(kind.notification(card, subject));
    });
  }

  decide<Request, Subject, Card, Answer extends DecisionRefusal | { outcome: 'approve' }, Choice extends string>(kind: DecisionKind<Request, Subject, Card, Answer, Choice>, id: string, choice: Choice): { id: string; outcome: 'approved' | 'denied' } {
    const item = this.waiting.get(id);
    if (!item || item.kind !== kind.name) throw new SilasError(ErrorCode.InvalidArgs, `no pending ${kind.noun} ${id}; it was already decided or it expired`);
    const subject = item.subject as Subject;
    if (choice === 'deny') {
      this.settle(id, () => this.refuse(item, DENIED_REASON, false));
      return { id, outcome: 'denied' };
    }
    this.settle(id, () => kind.approve(id, subject, choice as Exclude<Choice, 'deny'>));
    return { id, outcome: 'approved' };
  }

  list<Request, Subject, Card, Answer extends DecisionRefusal | { outcome: 'approve' }, Choice extends string>(kind: DecisionKind<Request, Subject, Card, Answer, Choice>): Card[] {
    return [...this.waiting.values()].filter((w) => w.kind === kind.name).map((w) => w.card as Card);
  }

  /** Shutdown: every open question (of one kind, or of every kind) is answered "no" (spec 002 §18.2 step 2). */
  declineAll(reason: string, kind?: string): void {
    for (const [id, item] of [...this.waiting]) {
      if (kind === undefined || item.kind === kind) this.settle(id, () => this.refuse(item, reason, true));
    }
  }

  /** The tray's count: every decision waiting, whatever its kind. */
  pendingCount(kind?: string): number {
    if (kind === undefined) return this.waiting.size;
    return [...this.waiting.values()].filter((w) => w.kind === kind).length;
  }

  isPaused(): boolean {
    return this.paused || (this.deps.pausedElsewhere?.() ?? false);
  }

  /** One pause for every kind: while paused, each new request is refused at once (fail closed). */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.deps.audit.append(paused ? 'approvals.paused' : 'approvals.resumed', {});
    this.paused = paused;
    this.changed(null);
  }

  subscribe(listener: (change: DecisionChange) => void): () => void {
    return this.changes.subscribe(listener);
  }

  /**
   * Ends a waiting decision. `outcome` audits and computes the answer first: if it throws (the
   * ledger cannot be written), the card stays and nothing is answered, so no effect goes unrecorded.
   */
  private settle(id: string, outcome: () => unknown): void {
    const item = this.waiting.get(id);
    if (!item) return;
    const answer = outcome();
    clearTimeout(item.timer);
    this.waiting.delete(id);
    item.resolve(answer);
    this.changed(item.kind);
  }

  private refuse(item: Waiting, reason: string, shutdown: boolean): DecisionRefusal {
    item.recordDenied(shutdown);
    return { outcome: 'deny', reason };
  }

  private changed(kind: string | null): void {
    this.changes.publish({ kind });
  }
}
