import { z } from 'zod';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';

/*
 * What the attention tracker accepts (spec 004 §6.4 Attention-Payload: concept, slice, weight in
 * [0, 1], reasoning). Each refusal names the field and what to give instead (docs/architecture.md
 * §8). Lengths are bounded so a tracker kept in memory stays bounded (§10.4).
 */

const ATTENTION_LIMITS = {
  queryIdChars: 200,
  queryChars: 64 * 1024,
  conceptChars: 200,
  sliceChars: 1000,
  reasoningChars: 10_000,
  stepChars: 2000,
} as const;

const text = (field: string, max: number, what: string) =>
  z
    .string({ error: `${field} must be text: ${what}` })
    .max(max, `${field} is longer than ${max} characters: shorten it`);

export const AttentionTraceInput = z
  .object({
    concept: text('concept', ATTENTION_LIMITS.conceptChars, 'the concept that influenced the decision').min(1, 'concept is empty: name the concept that influenced the decision'),
    slice: text('slice', ATTENTION_LIMITS.sliceChars, 'the knowledge slice the concept came from').min(1, 'slice is empty: name the knowledge slice the concept came from'),
    weight: z
      .number({ error: 'weight must be a number from 0 to 1 (§6.4): the share of the decision this concept carried' })
      .superRefine((w, ctx) => {
        if (w < 0 || w > 1) ctx.addIssue({ code: 'custom', message: `weight ${w} is not between 0 and 1 (§6.4): give the concept's influence as a number from 0 to 1` });
      }),
    reasoning: text('reasoning', ATTENTION_LIMITS.reasoningChars, 'why the concept influenced the decision'),
  })
  .strict();
export type AttentionTraceInput = z.infer<typeof AttentionTraceInput>;

export const QueryStart = z.object({
  queryId: text('queryId', ATTENTION_LIMITS.queryIdChars, 'the Query-ID a TRACE /export names (§13.6)')
    .min(1, 'queryId is empty: give the Query-ID a TRACE /export will name (§13.6)')
    .regex(/^[\x21-\x7e]+$/, 'queryId holds spaces or characters outside printable ASCII: a Query-ID travels as a header value (§13.6); use letters, digits and punctuation'),
  query: text('query', ATTENTION_LIMITS.queryChars, 'the question asked'),
});

export const DecisionStep = text('step', ATTENTION_LIMITS.stepChars, 'one step of the decision path (§6.3)').min(1, 'step is empty: describe the decision taken');

/** The first problem with `value` as a message naming its field, or the parsed value. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') throw invalid(`unknown field ${issue.keys.join(', ')}: remove it; nothing reads it`);
  throw invalid(issue.message);
}

export const invalid = (message: string) => new SilasError(ErrorCode.InvalidArgs, message);
