import type { z } from 'zod';
import type { AuditCatalogue, AuditCategory, AuditEventSpec } from './define.js';
import { runtimeEvents } from './events-runtime.js';
import { silasEvents } from './events-silas.js';
import { ilpEvents } from './events-ilp.js';

export { AUDIT_CATEGORIES, followsAuditStyle, type AuditCatalogue, type AuditCategory, type AuditEventSpec } from './define.js';

/**
 * Every event the code writes to the ledger, declared once like the calls and the control
 * events (`contract/events.ts`): its data schema, a summary and the category readers switch on.
 * `AuditLog.append` accepts only these names, with data of the declared shape.
 */
export const auditEvents = { ...runtimeEvents, ...silasEvents, ...ilpEvents } as const satisfies AuditCatalogue;

export type AuditEvents = typeof auditEvents;
export type AuditEventName = keyof AuditEvents;

/** The data an event is written with (the schema's input: optional fields may be left undefined). */
export type AuditEventData<E extends keyof C, C extends AuditCatalogue = AuditEvents> = z.input<C[E]['data']>;

/** One entry of a batch; a union over the names, so each item's data is checked against its own name. */
export type AuditItem<C extends AuditCatalogue = AuditEvents> = { [E in keyof C & string]: { event: E; data: AuditEventData<E, C> } }[keyof C & string];

/** What a service needs of the ledger to record its decisions. */
export interface AuditAppender<C extends AuditCatalogue = AuditEvents> {
  append<E extends keyof C & string>(event: E, data: AuditEventData<E, C>): unknown;
}

/**
 * Names written by earlier versions, mapped to their name now. Entries are never rewritten
 * (names are hashed into the chain), so readers of an old ledger look names up through this.
 */
export const legacyNames: Readonly<Record<string, AuditEventName>> = {
  'silas.plan_approval_requested': 'silas.plan_approval.requested',
  'silas.plan_approval_refused_paused': 'silas.plan_approval.refused_paused',
  'silas.plan_approval_timed_out': 'silas.plan_approval.timed_out',
  'silas.plan_approved': 'silas.plan_approval.approved',
  'silas.plan_denied': 'silas.plan_approval.denied',
};

export function isAuditEventName(name: string): name is AuditEventName {
  return Object.prototype.hasOwnProperty.call(auditEvents, name);
}

/** The catalogue name of a stored entry's event, old names included; null for names it does not know. */
export function canonicalAuditEvent(name: string): AuditEventName | null {
  if (isAuditEventName(name)) return name;
  return Object.prototype.hasOwnProperty.call(legacyNames, name) ? legacyNames[name]! : null;
}

/** Every name an event may carry in a ledger: its name now and the names it had before. */
export function auditEventAliases(name: AuditEventName): string[] {
  return [name, ...Object.keys(legacyNames).filter((old) => legacyNames[old] === name)];
}

/** What a stored entry is about; `other` for an event this version does not know (a newer writer's). */
export function auditCategory(name: string): AuditCategory | 'other' {
  const known = canonicalAuditEvent(name);
  return known === null ? 'other' : auditEvents[known].category;
}

/**
 * Why `data` is not what `event` declares, naming the field (`data.tool`, `data.extra`), or
 * null when it is. The writer is the one to fix: the message says where the shape is declared.
 */
export function auditDataProblem(event: string, spec: AuditEventSpec, data: unknown): string | null {
  const parsed = spec.data.safeParse(data);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const keys = issue?.code === 'unrecognized_keys' ? issue.keys : [];
  const field = ['data', ...(issue?.path ?? []).map(String), ...(keys.length === 1 ? keys : [])].join('.');
  const what = keys.length === 1 ? 'not a field of this event' : keys.length > 1 ? `unexpected fields ${keys.join(', ')}` : (issue?.message ?? 'invalid');
  return `audit event "${event}": ${field}: ${what}; write it in the shape src-shared/audit/events.ts declares`;
}
