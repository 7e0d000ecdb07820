import type { z } from 'zod';

/**
 * The capability a call needs (DESIGN invariant 8). `ask`: what proxies and CLI commands do
 * with the credential they read from disk; `read`: the cockpit's view of pending work and
 * the record; `decide`: anything that changes what the person decided. A session holds a
 * fixed set of these, given by the credential it presented; the router checks them.
 * `converse`: talk to Silas in a conversation scope of one's own (the cockpit, `silas chat`); a
 * scope's history is readable only by the session holding it or its resume key, and nothing
 * Silas plans runs without an owner-signed approval, so every credential may converse.
 */
export type CallAccess = 'ask' | 'read' | 'decide' | 'converse';

/** A request/response call of the control plane, named `domain.verb`. */
export interface CallSpec<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly args: A;
  readonly result: R;
  readonly summary: string;
  readonly access: CallAccess;
}

/** A server-to-client event, named `domain.noun` or `domain.pastTense`. */
export interface EventSpec<P extends z.ZodType = z.ZodType> {
  readonly payload: P;
  readonly summary: string;
}

export function defineCall<A extends z.ZodType, R extends z.ZodType>(spec: CallSpec<A, R>): CallSpec<A, R> {
  return spec;
}

export function defineEvent<P extends z.ZodType>(spec: EventSpec<P>): EventSpec<P> {
  return spec;
}
