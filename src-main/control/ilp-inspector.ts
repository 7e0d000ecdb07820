import type { z } from 'zod';
import type { EventPayload } from '../../src-shared/contract/events.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { IlpCompositionSummary, IlpCompositionView, IlpDistillArgs, IlpDistillResult, IlpListArgs, IlpListResult, IlpReplayArgs, IlpRollbackArgs, IlpSlicesResult } from '../../src-shared/schemas/ilp.js';
import type { EventBus } from './event-bus.js';

/** `ilp.list`'s arguments after the router parsed them (the page size defaulted). */
export type IlpListQuery = z.output<typeof IlpListArgs>;
export type IlpReplayRequest = z.output<typeof IlpReplayArgs>;

/**
 * What the cockpit's ILP page (docs/ilp.md "Inspector") needs of the ILP service: stored
 * compositions a page at a time, one in full, a replay under an edited Constitutional-Header
 * (spec 004 §6.1), and word of each composition stored or updated. The service lives in
 * `ilp/` and is built in `app/`; the control plane knows it only through this interface
 * (docs/architecture.md §3, `control/` imports services through `HandlerServices`).
 */
export interface IlpInspector {
  /** Newest first, strictly older than `before` when given: read by key, never the whole table. */
  list(args: IlpListQuery): IlpListResult;
  /** Null when no composition has that id. */
  get(id: string): IlpCompositionView | null;
  /** Runs the stored composition's query again under `constitutional_header` (already checked to be a JSON object) and stores the result. */
  replay(args: IlpReplayRequest): Promise<IlpCompositionView>;
  /** Called once per composition stored or updated; returns the unsubscribe. */
  onComposition(listener: (summary: IlpCompositionSummary) => void): () => void;
}

/**
 * Knowledge distillation as the cockpit drives it (docs/ilp.md "Knowledge distillation"): run it
 * (its proposals wait in Review), list the learned slices, roll one back. Built in `app/`.
 */
export interface IlpLearning {
  distill(args: z.output<typeof IlpDistillArgs>): Promise<IlpDistillResult>;
  slices(): IlpSlicesResult;
  rollback(args: z.output<typeof IlpRollbackArgs>): { slice_id: string; version: number; kind: 'rollback' | 'removed'; restored_version: number | null };
}

/**
 * Refuses a replay header that is not a JSON object before any model is called, naming the
 * argument and the fix (docs/architecture.md §8). Which fields it may hold is the enforcer's
 * to judge when the replay is sent (spec 004 §9.1 item 1: a bad field is refused with 400).
 */
export function checkReplayHeader(text: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SilasError(ErrorCode.InvalidArgs, `constitutional_header is not JSON (${why.slice(0, 200)}); give the Constitutional-Header as a JSON object, e.g. {"domain": "meta", "depth": 0, "budget_usd": 0, "max_budget_usd": 0.05}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SilasError(ErrorCode.InvalidArgs, `constitutional_header is JSON but not an object (${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}); give the Constitutional-Header as a JSON object of its fields (spec 004 §6.1)`);
  }
}

/** The inspector's answer for `ilp.get`, or not_found naming the id. */
export function storedComposition(view: IlpCompositionView | null, id: string): IlpCompositionView {
  if (view === null) throw new SilasError(ErrorCode.NotFound, `no ILP composition ${JSON.stringify(id)} is stored; list the stored ones with ilp.list`);
  return view;
}

/**
 * Puts each composition the service stores or updates on the event bus as `ilp.composition`,
 * for every session that may read (docs/control-plane.md), as `review.changed` carries the
 * queue's deltas. Called once by the composition root; returns the unsubscribe for its stop.
 */
export function publishIlpCompositions(inspector: Pick<IlpInspector, 'onComposition'>, events: Pick<EventBus, 'publish'>): () => void {
  return inspector.onComposition((summary: EventPayload<'ilp.composition'>) => events.publish('ilp.composition', summary));
}
