import type { ConstitutionalHeader } from '../constitution/header.js';

/*
 * Limits across recursion (spec 004 §6.1, §9.1 item 2, §10.4). A composition runs under the
 * header of the request that started it; every hop below gets the same limits with its own depth
 * and the cost spent so far. A header that arrives mid-recursion (a request joining a live
 * composition, docs/ilp.md "Composition") may tighten the limits, never loosen them: a header that
 * lies about where the composition stands is refused naming the field, never believed.
 */

/** Money kept to a micro-dollar, so sums of many hops do not drift into false refusals. */
export function round(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

export type ChildHeaderCheck = { ok: true } | { ok: false; field: string; message: string };

/**
 * Whether `requested`, arriving for a composition whose hop at `parent` has spent `spentUsd`,
 * states where the composition stands and keeps within its limits.
 */
export function checkChildHeader(parent: ConstitutionalHeader, spentUsd: number, requested: ConstitutionalHeader): ChildHeaderCheck {
  const refuse = (field: string, message: string): ChildHeaderCheck => ({ ok: false, field: `Constitutional-Header.${field}`, message });
  if (requested.depth <= parent.depth) return refuse('depth', `depth ${requested.depth} is not below the recorded depth ${parent.depth} of this composition; a hop below it is at depth ${parent.depth + 1}`);
  if (requested.max_depth > parent.max_depth) return refuse('max_depth', `max_depth ${requested.max_depth} raises the composition's ${parent.max_depth}; limits may be lowered mid-recursion, never raised`);
  if (requested.max_invocations > parent.max_invocations) return refuse('max_invocations', `max_invocations ${requested.max_invocations} raises the composition's ${parent.max_invocations}`);
  if (requested.budget_usd < round(spentUsd)) return refuse('budget_usd', `budget_usd ${requested.budget_usd} is below the $${round(spentUsd)} this composition has already spent`);
  if (requested.max_budget_usd > parent.max_budget_usd) {
    return refuse('max_budget_usd', `max_budget_usd ${requested.max_budget_usd} is more than the composition's ${parent.max_budget_usd}; $${round(Math.max(0, parent.max_budget_usd - spentUsd))} remains`);
  }
  if (requested.max_same_agent_consecutive > parent.max_same_agent_consecutive) return refuse('max_same_agent_consecutive', `max_same_agent_consecutive ${requested.max_same_agent_consecutive} raises the composition's ${parent.max_same_agent_consecutive}`);
  if (requested.confidence_threshold < parent.confidence_threshold) return refuse('confidence_threshold', `confidence_threshold ${requested.confidence_threshold} lowers the composition's ${parent.confidence_threshold}`);
  for (const flag of ['enforce_epistemic_honesty', 'require_reasoning_trace', 'detect_loops'] as const) {
    if (parent[flag] && !requested[flag]) return refuse(flag, `${flag} is switched off mid-recursion; the composition runs with it on`);
  }
  return { ok: true };
}
