import { randomUUID } from 'node:crypto';
import type { AuditAppender } from '../../src-shared/audit/events.js';
import { Emitter } from '../../src-shared/emitter.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { orderBySource } from '../../src-shared/review/sources.js';
import { REVIEW_PAGE_MAX, type CardOf, type CardOrigin, type DecisionAnswer, type DecisionCard, type DecisionKindName, type ReviewQueueDelta, type ReviewQueueView } from '../../src-shared/schemas/review.js';
import { ASK_LIMITS, AskCaps, type AskLimits } from './ask-caps.js';
import type { NotificationRequest, Notifier } from './notifier.js';

/**
 * One kind of decision the person is asked while someone waits (a tool call, a plan; later batch
 * reviews, gate approvals…). The queue owns the lifecycle, requested → shown → decided | expired
 * | withdrawn, and the answers every kind shares (no, paused, timed out); the kind declares what
 * is decided: its subject (bound to the hash the answer is signed over), its §0.5.3 card, its
 * audit entries and its effect on "yes" (docs/architecture.md §4.1).
 */
export interface DecisionKind<Request, Subject, K extends DecisionKindName> {
  readonly name: K;
  /** Names the kind in "no pending …" errors. */
  readonly noun: string;
  /** The choice that says no; every other choice on the card is a "yes" handed to `approve`. */
  readonly decline: string;
  /** Checks the request and hashes what is decided, here, never on the asker's word; throws naming the field. */
  subject(request: Request): { subject: Subject; timeoutMs: number };
  card(id: string, subject: Subject, requestedAt: Date, expiresAt: Date): CardOf<K>;
  notification(card: CardOf<K>, subject: Subject): NotificationRequest;
  /** Audit entries for each step, with the event names and data of the typed catalogue. */
  requested(id: string, subject: Subject): void;
  refusedPaused(subject: Subject): void;
  expired(id: string, subject: Subject): void;
  denied(id: string, subject: Subject, shutdown: boolean): void;
  /** The asker no longer needs the answer (it was answered elsewhere with a signature, e.g. at the terminal). */
  withdrawn?(id: string, subject: Subject, reason: string): void;
  /** The effect of a "yes": a token from the approval engine (and any grant), audited before it returns. */
  approve(id: string, subject: Subject, choice: string): Extract<DecisionAnswer, { outcome: 'approve' }>;
}

/**
 * Decisions nobody waits on, kept in the database until the person acts (a changed tool
 * definition stays hidden until accepted). They appear in the same queue, with the same cards.
 */
export interface StandingDecisions {
  readonly name: DecisionKindName;
  /** Who the cards come from, in words, when not a proxy of one of the person's servers. */
  readonly requester?: string;
  /** The cards Review shows. */
  cards(): DecisionCard[];
  /** Any decision of this source by id, shown in Review or not (null when unknown). */
  card(id: string): DecisionCard | null;
  /** Records the person's `choice` (one the card offers) on a card `card(id)` returned; throws if it was resolved meanwhile. */
  decide(card: DecisionCard, choice: string): 'approved' | 'denied';
}

export interface DecisionQueueDeps {
  audit: AuditAppender;
  notifier: Notifier;
  now?: () => Date;
  /** A pause held elsewhere (a standalone service's host), on top of the queue's own. */
  pausedElsewhere?: () => boolean;
  sources?: readonly StandingDecisions[];
  /** Waiting cards allowed per source and in total (ask-caps.ts); the defaults are `ASK_LIMITS`. */
  limits?: AskLimits;
}

/** Who asks when the asker names no one: the runtime itself (tests, in-process callers). */
const IN_PROCESS_ORIGIN: CardOrigin = { channel: 'runtime', sourceId: 'in-process', requester: 'the Silas runtime', taint: 'auth', governed: false };

/** A standing source's cards: the runtime recorded them, from what a proxy reported (server and tool names). */
function standingOrigin(source: StandingDecisions): CardOrigin {
  return { channel: 'runtime', sourceId: `standing:${source.name}`, requester: source.requester ?? 'a proxy of one of your servers (recorded by the runtime)', taint: 'external', governed: source.requester === undefined };
}

interface Waiting {
  kind: DecisionKindName;
  card: DecisionCard;
  decline: string;
  /** The kind's audit and effect, closed over its subject. */
  approve(choice: string): DecisionAnswer;
  recordDenied(shutdown: boolean): void;
  resolve(answer: DecisionAnswer): void;
  timer: NodeJS.Timeout;
}

const PAUSED_REASON = 'approvals are paused in the Silas control center';
const DENIED_REASON = 'denied by the user in the control center';
const EVICTED_REASON = 'withdrawn: Review is full, and this requester session had the most questions waiting; ask again later';
/** How many withdrawn or expired ids are remembered, so a late decision on one says what happened. */
export const ENDED_MEMORY = 256;

export interface AskOptions {
  signal?: AbortSignal;
  /** The connection that asks (docs/review.md "Sources"): caps and groups its cards; stamped on each. */
  origin?: CardOrigin;
}

export interface DecisionOutcome {
  id: string;
  kind: DecisionKindName;
  choice: string;
  outcome: 'approved' | 'denied';
}

/**
 * Every decision waiting for the person, of any kind, in one place: one id space, one pause,
 * one count for the tray, one `review.decide`, one shutdown. A request resolves when the person
 * decides, when it expires (the card is withdrawn and the answer is "timeout"), or at shutdown ("no").
 */
export class DecisionQueue {
  private readonly waiting = new Map<string, Waiting>();
  private readonly changes = new Emitter<[ReviewQueueDelta]>();
  private paused = false;
  private readonly now: () => Date;
  private readonly sources: readonly StandingDecisions[];
  private readonly caps: AskCaps;
  /** The last delta sent; `review.list` answers with it so a session knows where its deltas resume. */
  private seq = 0;
  /** Standing cards as last sent (id → JSON), to send what changed when a source refreshes. */
  private standingSent: Map<string, string> | null = null;
  /** Recently withdrawn or expired cards (id → why), oldest first, at most ENDED_MEMORY. */
  private readonly ended = new Map<string, string>();

  constructor(private readonly deps: DecisionQueueDeps) {
    this.now = deps.now ?? (() => new Date());
    this.sources = deps.sources ?? [];
    this.caps = new AskCaps(deps.limits ?? ASK_LIMITS, deps.audit);
  }

  ask<Request, Subject, K extends DecisionKindName>(kind: DecisionKind<Request, Subject, K>, request: Request, options: AskOptions = {}): Promise<DecisionAnswer> {
    const { subject, timeoutMs } = kind.subject(request);
    if (this.isPaused()) {
      kind.refusedPaused(subject);
      return Promise.resolve({ outcome: 'deny', reason: PAUSED_REASON });
    }
    // Withdrawn before it was asked (the asker went away meanwhile): no card, nobody to answer.
    if (options.signal?.aborted) return Promise.resolve({ outcome: 'deny', reason: withdrawnReason(options.signal) });
    const origin = options.origin ?? IN_PROCESS_ORIGIN;
    // Beyond a cap the asker is refused at once and the refusal audited (ask-caps.ts): it never waits.
    // With the queue full, a source holding fewer than the largest gets a place: the largest's newest card is withdrawn.
    const evict = this.caps.admit(origin, kind.name);
    if (evict !== null) this.evictNewest(evict, kind.name);
    const requestedAt = this.now();
    const id = randomUUID();
    const card: CardOf<K> = { ...kind.card(id, subject, requestedAt, new Date(requestedAt.getTime() + timeoutMs)), origin };
    kind.requested(id, subject);
    return new Promise<DecisionAnswer>((resolve) => {
      const timer = setTimeout(() => this.settle(id, () => {
        kind.expired(id, subject);
        this.remember(id, `this request expired: nobody answered within ${Math.round(timeoutMs / 1000)} s; nothing ran`);
        return { outcome: 'timeout' };
      }), timeoutMs);
      timer.unref();
      this.caps.added(origin.sourceId);
      this.waiting.set(id, {
        kind: kind.name,
        card,
        decline: kind.decline,
        approve: (choice) => kind.approve(id, subject, choice),
        recordDenied: (shutdown) => kind.denied(id, subject, shutdown),
        resolve,
        timer,
      });
      // The card leaves Review when the asker withdraws it; its answer is then a "no" nobody reads.
      options.signal?.addEventListener(
        'abort',
        () =>
          this.settle(id, () => {
            const reason = withdrawnReason(options.signal!);
            if (kind.withdrawn) kind.withdrawn(id, subject, reason);
            else kind.denied(id, subject, false);
            // A decision arriving now is refused with this reason (`decide`), not a bare "no pending decision".
            this.remember(id, `this request was withdrawn: ${reason}; nothing ran`);
            return { outcome: 'deny', reason };
          }),
        { once: true },
      );
      this.changed({ added: [card] });
      this.deps.notifier.notify(kind.notification(card, subject));
    });
  }

  /** The person's answer to any card: `choice` must be one the card offers. */
  decide(id: string, choice: string): DecisionOutcome {
    const item = this.waiting.get(id);
    if (!item) return this.decideStanding(id, choice);
    assertOffered(item.card, choice);
    if (choice === item.decline) {
      this.settle(id, () => this.refuse(item, DENIED_REASON, false));
      return { id, kind: item.kind, choice, outcome: 'denied' };
    }
    this.settle(id, () => item.approve(choice));
    return { id, kind: item.kind, choice, outcome: 'approved' };
  }

  /**
   * A page of the cards in source order (every source's first card before any source's second,
   * src-shared/review/sources.ts), the pause, the total and the last delta's `seq`.
   */
  view(page: { offset?: number; limit?: number } = {}): ReviewQueueView {
    const offset = page.offset ?? 0;
    const limit = page.limit ?? REVIEW_PAGE_MAX;
    const cards = orderBySource([...[...this.waiting.values()].map((w) => w.card), ...this.standingCards()]);
    return { cards: cards.slice(offset, offset + limit), paused: this.isPaused(), seq: this.seq, total: cards.length };
  }

  /** Shutdown: every open question is answered "no" (spec 002 §18.2 step 2). */
  declineAll(reason: string): void {
    for (const [id, item] of [...this.waiting]) this.settle(id, () => this.refuse(item, reason, true));
  }

  /** The tray's count: every decision waiting, whatever its kind. */
  pendingCount(): number {
    return this.waiting.size + this.sources.reduce((n, source) => n + source.cards().length, 0);
  }

  isPaused(): boolean {
    return this.paused || (this.deps.pausedElsewhere?.() ?? false);
  }

  /** One pause for every kind: while paused, each new request is refused at once (fail closed). */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.deps.audit.append(paused ? 'approvals.paused' : 'approvals.resumed', {});
    this.paused = paused;
    this.changed({});
  }

  /** A standing source changed behind the queue's back (another process wrote the database). */
  refresh(): void {
    this.changed(this.standingChanges());
  }

  /** Each change as a delta (docs/review.md "Deltas"): what arrived, changed or left, never the whole queue. */
  subscribe(listener: (delta: ReviewQueueDelta) => void): () => void {
    return this.changes.subscribe(listener);
  }

  private decideStanding(id: string, choice: string): DecisionOutcome {
    const ended = this.ended.get(id);
    if (ended !== undefined) throw new SilasError(ErrorCode.InvalidArgs, `${ended} — reload Review`);
    for (const source of this.sources) {
      const card = source.card(id);
      if (!card) continue;
      assertOffered(card, choice);
      const outcome = source.decide(card, choice);
      this.changed(this.standingChanges());
      return { id, kind: source.name, choice, outcome };
    }
    throw new SilasError(ErrorCode.InvalidArgs, `no pending decision ${id}; it was already decided or it expired — reload Review`);
  }

  /**
   * Ends a waiting decision. `outcome` audits and computes the answer first: if it throws (the
   * ledger cannot be written), the card stays and nothing is answered, so no effect goes unrecorded.
   */
  private settle(id: string, outcome: () => DecisionAnswer): void {
    const item = this.waiting.get(id);
    if (!item) return;
    const answer = outcome();
    clearTimeout(item.timer);
    this.waiting.delete(id);
    this.caps.removed(item.card.origin?.sourceId ?? IN_PROCESS_ORIGIN.sourceId);
    item.resolve(answer);
    this.changed({ removed: [id] });
  }

  private remember(id: string, why: string): void {
    this.ended.set(id, why);
    if (this.ended.size > ENDED_MEMORY) this.ended.delete(this.ended.keys().next().value!);
  }

  /** Withdraws the newest waiting card of `sourceId`: its asker gets a "no" with the reason, and the eviction is audited. */
  private evictNewest(sourceId: string, asking: DecisionKindName): void {
    const newest = [...this.waiting].reverse().find(([, item]) => item.card.origin?.sourceId === sourceId);
    if (!newest) return;
    const [id, item] = newest;
    const origin = item.card.origin ?? IN_PROCESS_ORIGIN;
    this.caps.evicted(origin, asking);
    this.settle(id, () => this.refuse(item, EVICTED_REASON, false));
  }

  private refuse(item: Waiting, reason: string, shutdown: boolean): DecisionAnswer {
    item.recordDenied(shutdown);
    return { outcome: 'deny', reason };
  }

  /** The standing sources' cards, each stamped with its source's origin; remembers them as sent. */
  private standingCards(): DecisionCard[] {
    const cards = this.sources.flatMap((source) => source.cards().map((card): DecisionCard => ({ ...card, origin: standingOrigin(source) })));
    this.standingSent ??= new Map(cards.map((card) => [card.id, JSON.stringify(card)]));
    return cards;
  }

  /** What the standing sources changed since last sent (a few pins: diffing them is cheap). */
  private standingChanges(): Pick<ReviewQueueDelta, 'added' | 'updated' | 'removed'> {
    const before = this.standingSent ?? new Map<string, string>();
    this.standingSent = null;
    const now = this.standingCards();
    const added: DecisionCard[] = [];
    const updated: DecisionCard[] = [];
    for (const card of now) {
      const was = before.get(card.id);
      if (was === undefined) added.push(card);
      else if (was !== this.standingSent!.get(card.id)) updated.push(card);
    }
    const removed = [...before.keys()].filter((id) => !this.standingSent!.has(id));
    return { added, updated, removed };
  }

  private changed(delta: Partial<Pick<ReviewQueueDelta, 'added' | 'updated' | 'removed'>>): void {
    this.seq += 1;
    if (this.standingSent === null) this.standingCards();
    const total = this.waiting.size + this.standingSent!.size;
    this.changes.publish({ seq: this.seq, added: delta.added ?? [], updated: delta.updated ?? [], removed: delta.removed ?? [], paused: this.isPaused(), total });
  }
}

function withdrawnReason(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'withdrawn by the asker';
}

function assertOffered(card: DecisionCard, choice: string): void {
  const offered = card.actions.map((a) => a.choice);
  if (!offered.includes(choice)) {
    throw new SilasError(ErrorCode.InvalidArgs, `choice: "${choice.slice(0, 40)}" is not offered by this ${card.kind} card; choose one of ${offered.join(', ')}`);
  }
}
