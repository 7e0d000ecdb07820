import type { z } from 'zod';

/** A request/response call of the control plane, named `domain.verb`. */
export interface CallSpec<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly args: A;
  readonly result: R;
  readonly summary: string;
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
