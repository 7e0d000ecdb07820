import { z } from 'zod';
import { AuditEntry, ChainVerifyStatus, VerifyRun } from '../schemas/audit.js';
import { IlpCompositionSummary } from '../schemas/ilp.js';
import { ReviewQueueDelta } from '../schemas/review.js';
import { StreamEvent } from '../schemas/stream.js';
import { defineEvent } from './define.js';

/** Server-to-client events, declared once like the calls. */
export const events = {
  'audit.appended': defineEvent({
    summary: 'A new entry joined the audit chain (from this or any other process on the same home).',
    payload: AuditEntry,
  }),
  'audit.verifyProgress': defineEvent({
    summary: 'A chain verification in the runtime made progress (every few thousand entries).',
    payload: VerifyRun,
  }),
  'audit.verified': defineEvent({
    summary: 'A chain verification finished, failed or was cancelled; the payload is the status after it.',
    payload: ChainVerifyStatus,
  }),
  'review.changed': defineEvent({
    summary:
      'The Review queue changed (a decision of any kind arrived, was decided, expired or was withdrawn; or asking was paused): only the cards added, updated or removed, numbered by `seq`; a session that misses a number lists again with `review.list`.',
    payload: ReviewQueueDelta,
  }),
  'stream.event': defineEvent({
    summary: 'Something happened in a conversation scope (a turn started, streamed tokens, the answer, plan progress, the turn finished). Sent only to the session that holds the scope.',
    payload: StreamEvent,
  }),
  'ilp.composition': defineEvent({
    summary: 'An ILP composition was stored or updated (a query answered, a replay finished): its summary, for the inspector\'s list (docs/ilp.md "Inspector").',
    payload: IlpCompositionSummary,
  }),
  'runtime.stopping': defineEvent({
    summary: 'The runtime is shutting down; clients should stop sending calls.',
    payload: z.object({ reason: z.string() }),
  }),
} as const;

type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]['payload']>;

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}
