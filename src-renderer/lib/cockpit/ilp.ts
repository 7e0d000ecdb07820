import { headerDraftProblem } from '../../store/ilp-header.js';
import { ILP_PAGE, type IlpSummary } from '../../store/ilp-state.js';
import { describeError } from '../client.js';
import type { FeatureDeps, FeatureWiring } from './feature.js';

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
}

/**
 * The ILP page's side of the wiring (docs/architecture.md §4.7, docs/ilp.md "Inspector"). The list
 * is read a page at a time, newest first, and kept live by `ilp.composition`; nothing ever reads
 * every stored composition. Each kind of request has its own counter so only the newest answer lands.
 */
export function connectIlp({ call, store }: FeatureDeps): FeatureWiring<IlpActions> {
  const state = () => store.getState();
  const page = () => state().ilp;
  let newestRequest = 0;
  let olderRequest = 0;
  let viewRequest = 0;
  let replayRequest = 0;

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

  /** A composition stored or updated: its row, and the view when it is the one inspected. */
  function arrived(summary: IlpSummary): void {
    state().ilpCompositionArrived(summary);
    if (summary.id === page().selected) loadView(summary.id);
  }

  return {
    reload() {
      loadNewest();
      olderRequest += 1;
      const selected = page().selected;
      if (selected !== null) loadView(selected);
    },
    // Compositions another process stored while no session listened have no event to bring them.
    opened: { ilp: loadNewest },
    events: { 'ilp.composition': arrived },
    actions: {
      selectComposition,
      loadOlderCompositions,
      editReplayHeader: (text) => state().ilpReplayEdited(text),
      replayComposition,
    },
    dispose() {
      newestRequest += 1;
      olderRequest += 1;
      viewRequest += 1;
      replayRequest += 1;
    },
  };
}
