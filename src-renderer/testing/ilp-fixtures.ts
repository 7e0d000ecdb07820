import type { Envelope } from '../../src-shared/contract/index.js';
import type { CallArgs, CallResult } from '../../src-shared/contract/index.js';
import type { IlpDistillOutcome, IlpLearnedSlice, IlpRollbackOutcome, IlpSliceVersion } from '../store/ilp-learned.js';
import type { IlpComposition, IlpSummary } from '../store/ilp-state.js';
import { compositionSummary, compositionView, summaries } from '../../src-shared/schemas/testing/ilp-compositions.js';
import { FakeTransport } from './fake-transport.js';

export { compositionSummary, compositionView, hop, hopsOf, QUERY_HEADER, summaries } from '../../src-shared/schemas/testing/ilp-compositions.js';

const ok = <T>(value: T): Envelope<T> => ({ ok: true, value });

/** One version of a learned slice as `ilp.slices` lists it; `learned-budgeting` unless `slice` says otherwise. */
export function sliceVersion(version: number, overrides: Partial<IlpSliceVersion> = {}, slice = 'learned-budgeting'): IlpSliceVersion {
  return {
    id: `${slice}@${version}`,
    version,
    kind: version === 1 ? 'created' : 'updated',
    status: 'deployed',
    title: `Budgeting, version ${version}`,
    sha256: String(version).repeat(64).slice(0, 64),
    created_at: `2026-01-0${Math.min(version, 9)}T10:00:00.000Z`,
    decided_at: `2026-01-0${Math.min(version, 9)}T11:00:00.000Z`,
    trusted: true,
    ...overrides,
  };
}

/** A learned slice, its history given oldest first (as written) and listed newest first (as `ilp.slices` does). */
export function learnedSlice(slice: string, deployed: number | null, oldestFirst: IlpSliceVersion[], problem: string | null = null): IlpLearnedSlice {
  return { slice_id: slice, deployed_version: deployed, history: oldestFirst.map((v) => ({ ...v, id: `${slice}@${v.version}` })).reverse(), problem };
}

/** Two learned slices: budgeting at v2 in force (v1 its backup), homeostasis proposed and waiting in Review. */
export function learnedSlices(): CallResult<'ilp.slices'> {
  return {
    slices: [
      learnedSlice('learned-budgeting', 2, [sliceVersion(1, { status: 'superseded' }), sliceVersion(2)]),
      learnedSlice('learned-homeostasis', null, [sliceVersion(1, { status: 'proposed', title: 'Homeostasis', decided_at: null })]),
    ],
    untrusted: 0,
  };
}

export function distillResult(overrides: Partial<IlpDistillOutcome> = {}): IlpDistillOutcome {
  return {
    patterns: 2,
    proposed: [
      { id: 'cand-1', slice_id: 'learned-diversification', version: 1, title: 'Diversification' },
      { id: 'cand-2', slice_id: 'learned-budgeting', version: 3, title: 'Budgeting, version 3' },
    ],
    rejected: [],
    skipped: 0,
    untrusted_episodes: 0,
    ...overrides,
  };
}

/**
 * The ilp.* calls of a runtime, in memory: `stored` newest first, paged by `before` as the runtime
 * does (strictly older than that id), each composition whole from `views` (or built from its
 * summary), and a replay answered with `replayed`. The learned slices are `learned`; a distillation
 * is answered with `distilled`, and a rollback changes `learned` as the registry does.
 */
export class IlpRuntime {
  stored: IlpSummary[] = summaries(3);
  views = new Map<string, IlpComposition>();
  replayed: IlpComposition = compositionView('c-replay', { status: 429, constitutional_status: 'VIOLATION', replay_of: 'c-3', cost_usd: 0.0001 });
  replays: { id: string; constitutional_header: string }[] = [];
  learned: CallResult<'ilp.slices'> = learnedSlices();
  distilled: IlpDistillOutcome = distillResult();
  distills: CallArgs<'ilp.distill'>[] = [];
  rollbacks: CallArgs<'ilp.rollback'>[] = [];

  view(id: string): IlpComposition | null {
    const summary = this.stored.find((c) => c.id === id);
    if (!summary) return this.views.get(id) ?? null;
    return this.views.get(id) ?? compositionView(id, summary);
  }

  serve(transport: FakeTransport = new FakeTransport('connected')): FakeTransport {
    return transport
      .handle('ilp.list', (args) => {
        const { before, limit = 50 } = args as { before?: string; limit?: number };
        const from = before === undefined ? 0 : this.stored.findIndex((c) => c.id === before) + 1;
        return ok({ compositions: this.stored.slice(from, from + limit), total: this.stored.length });
      })
      .handle('ilp.get', (args) => {
        const { id } = args as { id: string };
        const view = this.view(id);
        return view ? ok(view) : { ok: false, error: { code: 'E_NOT_FOUND', message: `no ILP composition "${id}" is stored` } };
      })
      .handle('ilp.replay', (args) => {
        this.replays.push(args as { id: string; constitutional_header: string });
        // Stored as a composition of its own, as the runtime does: it can be inspected next.
        this.views.set(this.replayed.id, this.replayed);
        return ok(this.replayed);
      })
      .handle('ilp.slices', () => ok(this.learned))
      .handle('ilp.distill', (args) => {
        this.distills.push(args as CallArgs<'ilp.distill'>);
        return ok(this.distilled);
      })
      .handle('ilp.rollback', (args) => {
        this.rollbacks.push(args as CallArgs<'ilp.rollback'>);
        const result = this.rollback((args as { slice_id: string }).slice_id);
        return result ? ok(result) : { ok: false, error: { code: 'E_NOT_FOUND', message: 'no deployed version to roll back' } };
      });
  }

  /** As the registry rolls back: the newest trusted backup's text again as a new version, or the slice removed when there is none. */
  private rollback(sliceId: string): IlpRollbackOutcome | null {
    const slice = this.learned.slices.find((s) => s.slice_id === sliceId);
    if (!slice || slice.deployed_version === null) return null;
    const backup = slice.history.find((v) => v.status === 'superseded' && v.trusted && v.version < slice.deployed_version!);
    const version = Math.max(...slice.history.map((v) => v.version)) + 1;
    const kind = backup ? 'rollback' : 'removed';
    const history = slice.history.map((v) => (v.version === slice.deployed_version ? { ...v, status: 'superseded' as const } : v));
    const added = sliceVersion(version, { kind, title: backup?.title ?? slice.history[0]!.title }, sliceId);
    const next = { ...slice, deployed_version: backup ? version : null, history: [added, ...history] };
    this.learned = { ...this.learned, slices: this.learned.slices.map((s) => (s.slice_id === sliceId ? next : s)) };
    return { slice_id: sliceId, version, kind, restored_version: backup?.version ?? null };
  }
}

/** A composition stored or updated, as `ilp.composition` carries it. */
export const arrived = (id: string, overrides: Partial<IlpSummary> = {}): IlpSummary => compositionSummary(id, overrides);
