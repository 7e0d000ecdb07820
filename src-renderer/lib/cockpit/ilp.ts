import type { CallArgs } from '../../../src-shared/contract/index.js';
import { headerDraftProblem } from '../../store/ilp-header.js';
import { affectsLearnedSlices, rollbackTarget } from '../../store/ilp-learned.js';
import { ILP_PAGE, type IlpSummary } from '../../store/ilp-state.js';
import { describeError } from '../client.js';
import { refreshingLoader } from '../refreshing-loader.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';

/** The learned slices are read again once per burst of the slice registry's audit entries. */
export const LEARNED_REFRESH_DELAY_MS = 300;

/** What the ILP page (the composition inspector) may ask for. */
export interface IlpActions {
  /** Inspects one composition: its hops as a graph, its influencers, its messages, the replay form. */
  selectComposition(id: string): void;
  /** The next page of stored compositions, older than the oldest held (once at a time). */
  loadOlderCompositions(): void;
  /** The person typed in the replay form (checked as a JSON object as they type, in the component). */
  editReplayHeader(text: string): void;
  /** Replays the selected composition under the draft header, when it is a JSON object; the result is shown beside the original. */
  replayComposition(): void;
  /** Runs knowledge distillation (it calls models: tens of seconds), one run at a time; its proposals wait in Review. */
  distillSlices(args?: CallArgs<'ilp.distill'>): void;
  /** Puts a learned slice back to the version before the one in force (or removes it when there is none); one at a time. */
  rollbackSlice(sliceId: string): void;
}

/**
 * The ILP page's side of the wiring (docs/architecture.md §4.7, docs/ilp.md "Inspector"). The list
 * is read a page at a time, newest first, and kept live by `ilp.composition`; nothing ever reads
 * every stored composition. Each kind of request has its own counter so only the newest answer lands.
 * The learned slices (docs/ilp.md "Knowledge distillation") are read whole, again after a
 * distillation or a rollback and when the slice registry's audit entries say they changed.
 */
export function connectIlp({ call, store, generation }: FeatureDeps): FeatureWiring<IlpActions> {
  const state = () => store.getState();
  const page = () => state().ilp;
  let newestRequest = 0;
  let olderRequest = 0;
  let viewRequest = 0;
  let replayRequest = 0;
  let distillRequest = 0;
  const learned = refreshingLoader(
    {
      fetch: () => call('ilp.slices', {}),
      loading: () => state().ilpLearnedLoading(),
      loaded: (result) => state().ilpLearnedLoaded(result),
      failed: (error) => state().ilpLearnedFailed(describeError(error)),
    },
    LEARNED_REFRESH_DELAY_MS,
  );

  function loadNewest(): void {
    const request = ++newestRequest;
    state().ilpListLoading();
    call('ilp.list', { limit: ILP_PAGE }).then(
      (result) => request === newestRequest && state().ilpNewestLoaded(result),
      (error: unknown) => request === newestRequest && state().ilpListFailed(describeError(error)),
    );
  }

  function loadOlderCompositions(): void {
    const { compositions, hasMore, loadingOlder } = page();
    const oldest = compositions.at(-1);
    if (!hasMore || loadingOlder || oldest === undefined) return;
    const request = ++olderRequest;
    state().ilpOlderLoading();
    call('ilp.list', { before: oldest.id, limit: ILP_PAGE }).then(
      (result) => request === olderRequest && state().ilpOlderLoaded(result),
      (error: unknown) => request === olderRequest && state().ilpOlderFailed(describeError(error)),
    );
  }

  function loadView(id: string): void {
    const request = ++viewRequest;
    state().ilpViewLoading();
    call('ilp.get', { id }).then(
      (view) => request === viewRequest && state().ilpViewLoaded(id, view),
      (error: unknown) => request === viewRequest && state().ilpViewFailed(id, describeError(error)),
    );
  }

  function selectComposition(id: string): void {
    if (page().selected === id) return;
    replayRequest += 1;
    state().ilpSelected(id);
    loadView(id);
  }

  function replayComposition(): void {
    const { selected, view, replay } = page();
    if (selected === null || view.status !== 'ready' || replay.of !== selected || replay.phase === 'sending' || headerDraftProblem(replay.draft) !== null) return;
    const request = ++replayRequest;
    state().ilpReplaySending();
    call('ilp.replay', { id: selected, constitutional_header: replay.draft }).then(
      (result) => request === replayRequest && state().ilpReplayDone(selected, result),
      (error: unknown) => request === replayRequest && state().ilpReplayFailed(selected, describeError(error)),
    );
  }

  function distillSlices(args: CallArgs<'ilp.distill'> = {}): void {
    if (page().learned.distill.phase === 'running') return;
    const request = ++distillRequest;
    state().ilpDistilling();
    call('ilp.distill', args).then(
      (result) => {
        if (request !== distillRequest) return;
        state().ilpDistilled(result);
        learned.load();
      },
      (error: unknown) => request === distillRequest && state().ilpDistillFailed(describeError(error)),
    );
  }

  function rollbackSlice(sliceId: string): void {
    const { slices, rollback } = page().learned;
    if (rollback.phase === 'sending' || rollbackTarget(slices, sliceId) === null) return;
    const current = generation();
    state().ilpRollingBack(sliceId);
    call('ilp.rollback', { slice_id: sliceId }).then(
      (result) => {
        state().ilpRolledBack(result);
        if (current === generation()) learned.load();
      },
      (error: unknown) => {
        state().ilpRollbackFailed(sliceId, describeError(error));
        // It may have been rolled back or decided elsewhere meanwhile: show what the runtime holds now.
        if (current === generation()) learned.load();
      },
    );
  }

  /** A composition stored or updated: its row, and the view when it is the one inspected. */
  function arrived(summary: IlpSummary): void {
    state().ilpCompositionArrived(summary);
    if (summary.id === page().selected) loadView(summary.id);
  }

  return {
    reload() {
      loadNewest();
      learned.load();
      olderRequest += 1;
      const selected = page().selected;
      if (selected !== null) loadView(selected);
    },
    // Compositions another process stored while no session listened have no event to bring them.
    opened: {
      ilp: () => {
        loadNewest();
        learned.load();
      },
    },
    // A proposal decided in Review, or a distillation or rollback from another session or the CLI.
    entry(entry) {
      if (affectsLearnedSlices(entry.event)) learned.schedule();
    },
    events: { 'ilp.composition': arrived },
    actions: {
      selectComposition,
      loadOlderCompositions,
      editReplayHeader: (text) => state().ilpReplayEdited(text),
      replayComposition,
      distillSlices,
      rollbackSlice,
    },
    dispose() {
      learned.cancel();
      distillRequest += 1;
      newestRequest += 1;
      olderRequest += 1;
      viewRequest += 1;
      replayRequest += 1;
    },
  };
}
