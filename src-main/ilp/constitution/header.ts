import { z } from 'zod';

/*
 * The Constitutional-Header (spec 004 §6.1): the limits one request runs under, taken from the
 * request itself. A field the header omits gets the RFC's value (§6.1's comment for
 * confidence_threshold, §10.4's hard limits for depth, invocations and cost, §6.1's example for
 * the rest); a header that is missing, not an object, holds an unknown field or a value out of
 * range is refused with 400 naming the field, never replaced by defaults (§9.1 item 1).
 */

const usd = z.number().finite().nonnegative();
const count = z.number().int().nonnegative();

export const ConstitutionalHeader = z
  .object({
    domain: z.string().min(1).max(100).regex(/^[a-z0-9][a-z0-9_-]*$/, 'a domain is lower-case letters, digits, "_" and "-"'),
    depth: count.max(1000),
    max_depth: count.min(1).max(1000).default(5),
    budget_usd: usd,
    max_budget_usd: usd.positive().max(1_000_000).default(1.0),
    /** §9.1 item 2 enforces it; §6.1's format omits it, §13.5's context shows 10. */
    max_invocations: count.min(1).max(100_000).default(10),
    enforce_epistemic_honesty: z.boolean().default(true),
    confidence_threshold: z.number().min(0).max(1).default(0.7),
    require_reasoning_trace: z.boolean().default(true),
    detect_loops: z.boolean().default(true),
    max_same_agent_consecutive: count.min(1).max(1000).default(2),
  })
  .strict();
export type ConstitutionalHeader = z.infer<typeof ConstitutionalHeader>;

export type HeaderCheck = { ok: true; header: ConstitutionalHeader } | { ok: false; field: string; message: string };

/** The header's value (already read from JSON by the codec) checked, or the first problem with its field. */
export function checkConstitutionalHeader(value: unknown): HeaderCheck {
  if (value === undefined) return { ok: false, field: 'Constitutional-Header', message: 'the request has no Constitutional-Header; every request states the limits it runs under (§6.1, §9.1 item 1)' };
  const parsed = ConstitutionalHeader.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    const field = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : path;
    return { ok: false, field: `Constitutional-Header${field ? `.${field}` : ''}`, message: issue.message };
  }
  return { ok: true, header: parsed.data };
}
