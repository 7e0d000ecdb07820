import { z } from 'zod';
import { PendingApproval } from '../schemas/approval.js';
import { AuditEntry } from '../schemas/audit.js';
import { PendingPlanApproval } from '../schemas/plan-approval.js';
import { defineEvent } from './define.js';

/** Server-to-client events, declared once like the calls. */
export const events = {
  'audit.appended': defineEvent({
    summary: 'A new entry joined the audit chain (from this or any other process on the same home).',
    payload: AuditEntry,
  }),
  'approvals.changed': defineEvent({
    summary: 'The approval queue changed: the current pending cards (newest request included).',
    payload: z.object({ pending: z.array(PendingApproval), paused: z.boolean() }),
  }),
  'plans.changed': defineEvent({
    summary: 'The plan approval queue changed: the current pending plan cards.',
    payload: z.object({ pending: z.array(PendingPlanApproval) }),
  }),
  'runtime.stopping': defineEvent({
    summary: 'The runtime is shutting down; clients should stop sending calls.',
    payload: z.object({ reason: z.string() }),
  }),
} as const;

export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]['payload']>;

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}
