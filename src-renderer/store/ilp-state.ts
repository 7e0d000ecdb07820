import type { CallResult } from '../../src-shared/contract/index.js';
import { replayDraftOf } from './ilp-header.js';
import { initialLearned, type IlpLearnedState } from './ilp-learned.js';

/*
 * The ILP page (docs/ilp.md "Inspector"): stored compositions a page at a time, newest first and
 * kept live by `ilp.composition`; the one selected in full; the replay form with its result beside
 * the original. Pure reducers over one state object; ilp-slice.ts puts them in the store and
 * lib/cockpit/ilp.ts does the I/O.
 */

export type IlpSummary = CallResult<'ilp.list'>['compositions'][number];
export type IlpComposition = CallResult<'ilp.get'>;
type LoadStatus = 'idle' | 'loading' | 'ready' | 'error';

/** Compositions per `ilp.list` call: a home may hold tens of thousands, the list never asks for them all. */
export const ILP_PAGE = 50;

interface IlpReplayState {
  /** The composition the draft and the result belong to. */
  of: string | null;
  draft: string;
  phase: 'idle' | 'sending' | 'done' | 'error';
  result: IlpComposition | null;
  error: string | null;
}

export interface IlpState {
  /** Newest stored first, as `ilp.list` pages them: the pages loaded, and those stored since. */
  compositions: readonly IlpSummary[];
  total: number;
  /** The last page was full and fewer than `total` are held: older ones can be loaded. */
  hasMore: boolean;
  listStatus: LoadStatus;
  listError: string | null;
  loadingOlder: boolean;
  selected: string | null;
  view: { status: LoadStatus; composition: IlpComposition | null; error: string | null };
  replay: IlpReplayState;
  /** The slices knowledge distillation learned (ilp-learned.ts). */
  learned: IlpLearnedState;
}

const idleReplay: IlpReplayState = { of: null, draft: '', phase: 'idle', result: null, error: null };
const idleView: IlpState['view'] = { status: 'idle', composition: null, error: null };

export const initialIlp: IlpState = {
  compositions: [],
  total: 0,
  hasMore: false,
  listStatus: 'idle',
  listError: null,
  loadingOlder: false,
  selected: null,
  view: idleView,
  replay: idleReplay,
  learned: initialLearned,
};

type S = IlpState;
export type IlpPage = CallResult<'ilp.list'>;

const hasMore = (held: number, page: number, total: number) => page >= ILP_PAGE && held < total;

export const listLoading = (s: S): S => ({ ...s, listStatus: s.listStatus === 'ready' ? 'ready' : 'loading', listError: null });

/**
 * The newest page, read on (re)connect or when the page is opened. Older pages already loaded stay
 * when the new page reaches them (its oldest composition is among them), so coming back to the page
 * does not drop what the person scrolled to.
 */
export function newestLoaded(s: S, page: IlpPage): S {
  const fresh = page.compositions;
  const oldest = fresh.at(-1);
  const at = oldest === undefined ? -1 : s.compositions.findIndex((c) => c.id === oldest.id);
  const compositions = at < 0 ? fresh : [...fresh, ...s.compositions.slice(at + 1)];
  const keptOlder = at >= 0 && s.hasMore;
  return { ...s, compositions, total: page.total, hasMore: keptOlder || hasMore(compositions.length, fresh.length, page.total), listStatus: 'ready', listError: null, loadingOlder: false };
}

export const listFailed = (s: S, message: string): S => ({ ...s, listStatus: s.listStatus === 'ready' ? 'ready' : 'error', listError: message });

export const olderLoading = (s: S): S => ({ ...s, loadingOlder: true, listError: null });

/** A page strictly older than the oldest held; a composition already held (it arrived live meanwhile) is not listed twice. */
export function olderLoaded(s: S, page: IlpPage): S {
  const held = new Set(s.compositions.map((c) => c.id));
  const compositions = [...s.compositions, ...page.compositions.filter((c) => !held.has(c.id))];
  return { ...s, compositions, total: page.total, hasMore: hasMore(compositions.length, page.compositions.length, page.total), loadingOlder: false };
}

export const olderFailed = (s: S, message: string): S => ({ ...s, loadingOlder: false, listError: message });

/**
 * `ilp.composition`: a composition updated is replaced where it is; one just stored goes first,
 * as `ilp.list` orders them by when they were stored (a long composition started earlier can be
 * stored after a short one started later).
 */
export function compositionArrived(s: S, summary: IlpSummary): S {
  const at = s.compositions.findIndex((c) => c.id === summary.id);
  if (at < 0) return { ...s, compositions: [summary, ...s.compositions], total: s.total + 1 };
  const compositions = s.compositions.slice();
  compositions[at] = summary;
  return { ...s, compositions };
}

/** Another composition is inspected: its view loads, and the replay form starts again for it. */
export function compositionSelected(s: S, id: string): S {
  if (s.selected === id) return s;
  return { ...s, selected: id, view: { status: 'loading', composition: null, error: null }, replay: { ...idleReplay, of: id } };
}

/** Reading the selected composition again (it was updated) keeps it shown meanwhile. */
export const viewLoading = (s: S): S => ({ ...s, view: { ...s.view, status: s.view.status === 'ready' ? 'ready' : 'loading', error: null } });

/** The selected composition, whole; the replay form is prefilled with its query's header the first time. */
export function viewLoaded(s: S, id: string, composition: IlpComposition): S {
  if (s.selected !== id) return s;
  const fresh = s.replay.of !== id || (s.replay.draft === '' && s.replay.phase === 'idle');
  return { ...s, view: { status: 'ready', composition, error: null }, replay: fresh ? { ...idleReplay, of: id, draft: replayDraftOf(composition.hop_list) } : s.replay };
}

export const viewFailed = (s: S, id: string, message: string): S => (s.selected === id ? { ...s, view: { ...s.view, status: s.view.status === 'ready' ? 'ready' : 'error', error: message } } : s);

/** The person typed in the replay form; an earlier outcome stays beside it until the next replay. */
export const replayEdited = (s: S, draft: string): S => (s.replay.of === s.selected && s.replay.draft !== draft ? { ...s, replay: { ...s.replay, draft } } : s);

export const replaySending = (s: S): S => ({ ...s, replay: { ...s.replay, phase: 'sending', error: null } });

export const replayDone = (s: S, of: string, result: IlpComposition): S => (s.replay.of === of ? { ...s, replay: { ...s.replay, phase: 'done', result, error: null } } : s);

export const replayFailed = (s: S, of: string, message: string): S => (s.replay.of === of ? { ...s, replay: { ...s.replay, phase: 'error', error: message } } : s);
