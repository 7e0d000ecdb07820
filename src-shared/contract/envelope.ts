import { z } from 'zod';
import type { ErrorInfo } from '../errors.js';

/** What every call returns on every transport: a value, or an error with a code and a fix. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

const ErrorInfoSchema = z.object({ code: z.string(), message: z.string() });

export const EnvelopeSchema = z.union([
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: ErrorInfoSchema }),
]);

export function ok<T>(value: T): Envelope<T> {
  return { ok: true, value };
}

export function fail(code: string, message: string): Envelope<never> {
  return { ok: false, error: { code, message } };
}
