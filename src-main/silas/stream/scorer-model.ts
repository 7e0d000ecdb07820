import { ScorerOutput } from '../../../src-shared/silas/agents.js';
import { createContextScorer } from '../agents/definitions.js';
import { modelStructuredCall } from '../agents/model-call.js';
import type { ScorerSource } from '../context/two-tier.js';
import type { StreamModels } from './stream-models.js';

/**
 * The context scorer of spec 002 §5.7 Tier 2 on the `scorer` role of HOME/models.json, read at
 * each eviction like the other roles (a scorer set up in the cockpit is used from the next turn).
 * The call is structured output through runStructuredAgent (§5.7 "Raw string-to-JSON parsing is
 * forbidden"): the provider is given ScorerOutput as its schema, and the answer is validated,
 * repaired once, or replaced by the scorer's fallback. No scorer role set up (or its key missing)
 * is no scorer: eviction goes straight to the deterministic heuristic.
 */
export function scorerFromModels(models: Pick<StreamModels, 'client'>): ScorerSource {
  return async (hooks) => {
    const model = await models.client('scorer');
    if (!model.ok) return { scorer: null, problem: model.problem };
    const call = modelStructuredCall({
      client: model.client,
      schema: ScorerOutput,
      ...(model.price ? { price: model.price } : {}),
      onCall: (record) => hooks.onCall(record, model.client),
    });
    return { scorer: createContextScorer(call, hooks.audit) };
  };
}
