import type { ReviewQueueDelta, ReviewQueueView } from '../../../src-shared/schemas/review.js';
import { newArrivals } from '../../store/review-queue.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { notificationText, type NotificationsPort } from '../notifications.js';

/** More pages than the runtime's total cap needs; a runtime that keeps growing is not chased forever. */
const REVIEW_MAX_PAGES = 5;

/** What the Review page (and the Servers page's pending tool changes) may ask for. */
export interface ReviewActions {
  /**
   * Answers one waiting decision of any kind with one of its card's choices (`review.decide`);
   * one decision at a time, from the Review page or the Servers page alike.
   */
  decide(id: string, choice: string): void;
  /** Asks the browser for notification permission (only meaningful while it is 'default'). */
  enableNotifications(): void;
}

interface ReviewWiringDeps extends FeatureDeps {
  /** Browser notifications for new decisions; null in the desktop shell and in tests that do not notify. */
  notifications: NotificationsPort | null;
  /** Opens the Review page (a notification was clicked). */
  openPage(): void;
  /** Reads the governed servers again: a decided tool change changes what the Servers page shows. */
  reloadServers(): void;
}

/**
 * The Review queue's side of the wiring (docs/review.md): listed whole on connect, then kept by
 * the runtime's numbered deltas; a card not seen before raises a notification.
 */
export function connectReview({ call, store, generation, notifications, openPage, reloadServers }: ReviewWiringDeps): FeatureWiring<ReviewActions> {
  const state = () => store.getState();
  /** Card ids seen since the cockpit opened; null until the first queue, which never notifies. */
  let seenCards: Set<string> | null = null;

  function reviewReplaced(queue: ReviewQueueView): void {
    state().reviewReplaced(queue);
    notifyArrivals(queue.cards);
  }

  /** Cards not seen before raise a notification (none for what waits when the cockpit opens). */
  function notifyArrivals(cards: ReviewQueueView['cards']): void {
    const arrived = newArrivals(seenCards, cards);
    seenCards ??= new Set();
    for (const card of cards) seenCards.add(card.id);
    if (!notifications || notifications.permission() !== 'granted') return;
    for (const card of arrived) {
      const { title, body } = notificationText(card);
      notifications.show(title, body, `silas-review-${card.id}`, openPage);
    }
  }

  /** The whole queue, a page at a time (the runtime's caps keep it to one or two pages). */
  function loadReview(): void {
    const current = generation();
    state().reviewLoading();
    listReview().then(
      (queue) => current === generation() && reviewReplaced(queue),
      (error: unknown) => current === generation() && state().reviewFailed(describeError(error)),
    );
  }

  /**
   * Every page of the queue as of one `seq`. Pages read while the queue changed are not one queue
   * (a card may have moved between pages), so a moved `seq` starts the listing again; after three
   * tries the listing is kept with no `seq`, so the next delta is a gap and lists again.
   */
  async function listReview(): Promise<ReviewQueueView> {
    for (let attempt = 1; ; attempt += 1) {
      const first = await call('review.list', {});
      const cards = [...first.cards];
      let moved = false;
      for (let page = 1; page < REVIEW_MAX_PAGES && first.total !== undefined && cards.length < first.total; page += 1) {
        const next = await call('review.list', { offset: cards.length });
        moved = next.seq !== first.seq;
        if (moved || next.cards.length === 0) break;
        cards.push(...next.cards);
      }
      if (!moved) return { ...first, cards };
      if (attempt === 3) return { ...first, cards, seq: -1 };
    }
  }

  /** One delta from the runtime; a missed one (a gap in `seq`) lists the queue again. */
  function reviewChanged(delta: ReviewQueueDelta): void {
    if (!state().reviewDelta(delta)) {
      loadReview();
      return;
    }
    if (delta.added.length > 0) notifyArrivals(delta.added);
  }

  function decide(id: string, choice: string): void {
    if (state().review.deciding !== null) return;
    const current = generation();
    state().decisionSending(id);
    call('review.decide', { id, choice }).then(
      (result) => {
        state().decisionSent(id);
        if (result.kind !== 'tool_change') return;
        // The Servers page shows the pin as trusted at once, then reloads what the runtime now shows.
        if (result.outcome === 'approved') state().toolChangeAccepted(id, new Date().toISOString());
        if (current === generation()) reloadServers();
      },
      (error: unknown) => state().decisionFailed(id, describeError(error)),
    );
  }

  function enableNotifications(): void {
    if (!notifications || notifications.permission() !== 'default') return;
    notifications.request().then((permission) => state().setNotificationState(permission));
  }

  state().setNotificationState(notifications ? notifications.permission() : 'unsupported');

  return {
    reload: loadReview,
    events: { 'review.changed': reviewChanged },
    actions: { decide, enableNotifications },
    dispose: () => undefined,
  };
}
