import { canonicalAuditEvent } from '../../../src-shared/audit/events.js';
import type { AuditEntry } from '../../../src-shared/schemas/audit.js';
import { appendSeries, lastSeq, type SeriesColumns } from '../../store/alignment-series.js';
import { affectsAlignment } from '../../store/alignment-slice.js';
import { cardSaveBlockReason, hasUnsavedCard, VIOLATIONS_SHOWN } from '../../store/alignment-state.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';
import { alignmentNotice, noticeBatch } from '../alignment-notices.js';
import type { NotificationsPort } from '../notifications.js';
import { refreshingLoader } from '../refreshing-loader.js';

/** A burst of alignment entries (a page of recorded traces) refreshes the page once. */
export const ALIGNMENT_REFRESH_DELAY_MS = 300;

/** Quiet time after the last keystroke before the card draft is sent to `alignment.validateCard`. */
export const CARD_VALIDATE_DELAY_MS = 250;

/** Traces per `alignment.series` call; a full page means there may be more. */
export const SERIES_PAGE = 100_000;

/** What the Alignment page may ask for. */
export interface AlignmentActions {
  /** Shows an agent's charts, violations and card (its traces are loaded once, then appended to live); an unsaved card draft is asked about first. */
  showAgent(agentId: string): void;
  /** Answers the question about an unsaved card draft: drop it and show the other agent, or keep editing. */
  settleCardDiscard(drop: boolean): void;
  /** Opens one trace in the inspector: the trace, its card, each check, its signature and chain entries. */
  inspectTrace(traceId: string): void;
  closeTrace(): void;
  /** The person typed in the card editor: the draft is checked after CARD_VALIDATE_DELAY_MS of quiet. */
  editCard(text: string): void;
  /** The draft goes back to the card in force. */
  discardCardDraft(): void;
  /** Puts the draft in force, signed, when nothing blocks it (cardSaveBlockReason). */
  saveCard(): void;
  /** The person's choice to end a refused card: the card derived from the agent's owner-signed policy is put in force. */
  useDerivedCard(): void;
}

export interface AlignmentWiringDeps extends FeatureDeps {
  /** Browser notifications for violations and drift alerts; null in the desktop shell (its main process notifies) and in tests that do not notify. */
  notifications?: NotificationsPort | null;
  /** Opens the Alignment page (a notification was clicked). */
  openPage(): void;
}

/**
 * The Alignment page's side of the wiring (docs/architecture.md §4.7). Each kind of request has
 * its own counter so that only the newest answer lands. The selected agent's traces are fetched
 * once and then only what was recorded after the last one held (`afterSeq`), one request at a
 * time: a burst of entries while a large first load is on its way adds one more request after it,
 * rather than starting the load again.
 */
export function connectAlignment({ call, store, notifications = null, openPage }: AlignmentWiringDeps): FeatureWiring<AlignmentActions> {
  const state = () => store.getState();
  const page = () => state().alignment;

  const agents = refreshingLoader(
    {
      fetch: () => call('alignment.agents', {}).then((r) => r.agents),
      loading: () => state().alignmentAgentsLoading(),
      loaded: (list) => state().alignmentAgentsLoaded(list),
      failed: (error) => state().alignmentAgentsFailed(describeError(error)),
    },
    ALIGNMENT_REFRESH_DELAY_MS,
  );
  const fleet = refreshingLoader(
    {
      fetch: () => call('alignment.fleet', {}),
      loading: () => state().alignmentFleetLoading(),
      loaded: (result) => state().alignmentFleetLoaded(result),
      failed: (error) => state().alignmentFleetFailed(describeError(error)),
    },
    ALIGNMENT_REFRESH_DELAY_MS,
  );
  let seriesRequest = 0;
  let seriesBusy = false;
  let seriesAgain = false;
  let violationsRequest = 0;
  let cardRequest = 0;
  let validateRequest = 0;
  let validateTimer: ReturnType<typeof setTimeout> | null = null;
  let traceRequest = 0;
  const notices = noticeBatch(notifications, ALIGNMENT_REFRESH_DELAY_MS, (notice) => {
    openPage();
    showAgent(notice.agentId);
    if (notice.traceId) inspectTrace(notice.traceId);
  });

  const clear = (timer: ReturnType<typeof setTimeout> | null) => {
    if (timer !== null) clearTimeout(timer);
    return null;
  };

  const agentsSoon = burst(() => agents.load());
  const fleetSoon = burst(() => fleet.load());
  const violationsSoon = burst(loadViolations);
  const seriesSoon = burst(refreshSeries);

  /**
   * An agent shown afresh gets its newest SERIES_PAGE traces (a history of millions is never read
   * whole); later fetches take everything after the last trace held, page by page.
   */
  async function fetchSeries(agentId: string, afterSeq: number): Promise<SeriesColumns> {
    if (afterSeq === 0) return call('alignment.series', { agentId, afterSeq: 0, limit: SERIES_PAGE, newest: SERIES_PAGE });
    let held: SeriesColumns | null = null;
    let after = afterSeq;
    for (;;) {
      const more: SeriesColumns = await call('alignment.series', { agentId, afterSeq: after, limit: SERIES_PAGE });
      held = appendSeries(held, more);
      if (more.seq.length < SERIES_PAGE) return held;
      after = lastSeq(more);
    }
  }

  /** Fetches what was recorded after the last trace held; while one request is on its way, one more follows it. */
  function refreshSeries(): void {
    seriesSoon.cancel();
    const agentId = page().selected;
    if (agentId === null) return;
    if (seriesBusy) {
      seriesAgain = true;
      return;
    }
    const request = ++seriesRequest;
    seriesBusy = true;
    state().alignmentSeriesLoading();
    const settled = () => {
      seriesBusy = false;
      if (!seriesAgain) return;
      seriesAgain = false;
      refreshSeries();
    };
    fetchSeries(agentId, lastSeq(page().series)).then(
      (more) => {
        if (request !== seriesRequest) return;
        state().alignmentSeriesAppended(more);
        settled();
      },
      (error: unknown) => {
        if (request !== seriesRequest) return;
        state().alignmentSeriesFailed(agentId, describeError(error));
        settled();
      },
    );
  }

  function forgetSeries(): void {
    seriesRequest += 1;
    seriesBusy = false;
    seriesAgain = false;
    seriesSoon.cancel();
  }

  function loadViolations(): void {
    const agentId = page().selected;
    if (agentId === null) return;
    const request = ++violationsRequest;
    state().alignmentViolationsLoading();
    call('alignment.violations', { agentId, limit: VIOLATIONS_SHOWN }).then(
      (result) => request === violationsRequest && state().alignmentViolationsLoaded(agentId, result.violations),
      (error: unknown) => request === violationsRequest && state().alignmentViolationsFailed(agentId, describeError(error)),
    );
  }

  function loadCard(agentId: string): void {
    const request = ++cardRequest;
    state().alignmentCardLoading();
    call('alignment.card', { agentId }).then(
      (view) => request === cardRequest && state().alignmentCardLoaded(agentId, view),
      (error: unknown) => request === cardRequest && state().alignmentCardFailed(agentId, describeError(error)),
    );
  }

  function validateNow(): void {
    validateTimer = clear(validateTimer);
    const agentId = page().selected;
    if (agentId === null) return;
    const text = page().card.draft;
    const request = ++validateRequest;
    state().alignmentCardValidating();
    call('alignment.validateCard', { agentId, text }).then(
      (result) => request === validateRequest && state().alignmentCardValidated(agentId, { text, ok: result.ok, problems: result.problems }),
      (error: unknown) => request === validateRequest && state().alignmentCardValidateFailed(agentId, describeError(error)),
    );
  }

  /** The agent waiting to be shown until the person answers about the unsaved card. */
  let pendingAgent: string | null = null;

  /** Shows `agentId`, asking first when the card editor holds an unsaved draft (it would be lost). */
  function showAgent(agentId: string): void {
    if (page().selected === agentId) return;
    if (hasUnsavedCard(page())) {
      pendingAgent = agentId;
      state().alignmentCardDiscardAsked(agentId);
      return;
    }
    switchAgent(agentId);
  }

  function settleCardDiscard(drop: boolean): void {
    const next = pendingAgent;
    pendingAgent = null;
    state().alignmentCardDiscardSettled();
    if (drop && next !== null) switchAgent(next);
  }

  function switchAgent(agentId: string): void {
    forgetSeries();
    validateTimer = clear(validateTimer);
    validateRequest += 1;
    traceRequest += 1;
    state().alignmentAgentSelected(agentId);
    refreshSeries();
    loadViolations();
    loadCard(agentId);
  }

  function inspectTrace(traceId: string): void {
    const request = ++traceRequest;
    state().alignmentTraceOpening(traceId);
    call('alignment.trace', { traceId }).then(
      (view) => request === traceRequest && state().alignmentTraceLoaded(traceId, view),
      (error: unknown) => request === traceRequest && state().alignmentTraceFailed(traceId, describeError(error)),
    );
  }

  function editCard(text: string): void {
    if (page().card.status !== 'ready' || page().card.draft === text) return;
    state().alignmentCardEdited(text);
    validateTimer = clear(validateTimer);
    validateTimer = setTimeout(validateNow, CARD_VALIDATE_DELAY_MS);
  }

  function discardCardDraft(): void {
    validateTimer = clear(validateTimer);
    validateRequest += 1;
    state().alignmentCardDiscarded();
  }

  function saveCard(): void {
    const agentId = page().selected;
    const card = page().card;
    if (agentId === null || cardSaveBlockReason(card) !== null) return;
    const text = card.draft;
    state().alignmentCardSaving();
    call('alignment.saveCard', { agentId, text }).then(
      (saved) => {
        state().alignmentCardSaved(agentId, text, saved.cardId);
        if (page().selected === agentId) loadCard(agentId);
        agents.load();
        fleet.load();
      },
      (error: unknown) => state().alignmentCardSaveFailed(agentId, describeError(error)),
    );
  }

  function useDerivedCard(): void {
    const agentId = page().selected;
    if (agentId === null) return;
    call('alignment.useDerivedCard', { agentId }).then(
      () => {
        if (page().selected === agentId) loadCard(agentId);
        agents.load();
        fleet.load();
      },
      (error: unknown) => state().alignmentCardSaveFailed(agentId, describeError(error)),
    );
  }

  /** Entries of category 'alignment' refresh the page (in bursts) and may notify. */
  function entry(appended: AuditEntry): void {
    if (!affectsAlignment(appended.event)) return;
    agentsSoon.schedule();
    const event = canonicalAuditEvent(appended.event);
    const agentId = typeof appended.data.agent_id === 'string' ? appended.data.agent_id : null;
    const shown = agentId !== null && agentId === page().selected;
    if (event === 'aap.card_activated') {
      fleetSoon.schedule();
      if (shown) loadCard(agentId);
    }
    if (event === 'aap.trace' && shown) seriesSoon.schedule();
    if (event === 'aap.violation' && shown) violationsSoon.schedule();
    const notice = alignmentNotice(appended);
    if (notice) notices.add(notice);
  }

  return {
    /** The agents, the fleet, and what is new for the agent shown. */
    reload() {
      agents.load();
      fleet.load();
      const agentId = page().selected;
      if (agentId === null) return;
      forgetSeries();
      refreshSeries();
      loadViolations();
      loadCard(agentId);
    },
    opened: {
      alignment() {
        agents.load();
        fleet.load();
      },
    },
    entry,
    actions: {
      showAgent,
      settleCardDiscard,
      inspectTrace,
      closeTrace: () => {
        traceRequest += 1;
        state().alignmentTraceClosed();
      },
      editCard,
      discardCardDraft,
      saveCard,
      useDerivedCard,
    },
    dispose() {
      agents.cancel();
      fleet.cancel();
      for (const soon of [agentsSoon, fleetSoon, violationsSoon]) soon.cancel();
      forgetSeries();
      validateTimer = clear(validateTimer);
      notices.cancel();
      violationsRequest += 1;
      cardRequest += 1;
      validateRequest += 1;
      traceRequest += 1;
    },
  };
}

/**
 * Runs `fn` ALIGNMENT_REFRESH_DELAY_MS after the first of a burst of calls, once. Unlike a debounce
 * it does not wait for quiet: a busy agent records traces without pause, and its page must still
 * follow within a fraction of a second.
 */
function burst(fn: () => void): { schedule(): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    schedule() {
      timer ??= setTimeout(() => {
        timer = null;
        fn();
      }, ALIGNMENT_REFRESH_DELAY_MS);
    },
    cancel() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
