import { MIN_COHERENCE_FOR_PROCEED } from '../../src-shared/aap/constants.js';
import type { ValueConflict } from '../../src-shared/aap/messages.js';
import type { CoherenceResult } from '../../src-shared/aap/results.js';

/*
 * Value coherence between two agents, spec 003 §6.4:
 *
 *   score = (matched / required) × (1 − 0.5 × conflicts / required), clamped to [0, 1]
 *
 * `required` is the task's values when the caller names some, otherwise every value either card
 * declares (which reproduces the published 0.1327, 1.0 and 0.0). An empty task-value list names no
 * task values, so it falls back to the declared values rather than dividing by zero; two cards
 * with nothing to compare score 0. A conflict is a value one agent declares that the other lists
 * in `conflicts_with` — refusing to coordinate with an agent holding a value does not depend on
 * the task, so every conflict counts. Compatible means no conflict and a score of at least
 * MIN_COHERENCE_FOR_PROCEED (§8.3); only then does the pair proceed without its principals.
 */

/** What coherence needs of a card: only its values (partial cards, as in the playground, do). */
export interface CoherenceParty {
  card_id: string;
  values: { declared: readonly string[]; conflicts_with?: readonly string[] | null };
}

export interface CoherenceOptions {
  /** The values the task requires (§6.4 `total_required_values`). */
  taskValues?: readonly string[];
  /** Below this a conflict-free pair still does not proceed. Default 0.70 (§8.3). */
  minCoherence?: number;
}

const unique = (values: readonly string[]) => [...new Set(values)];

function findConflicts(initiator: CoherenceParty, responder: CoherenceParty): ValueConflict[] {
  const conflicts: ValueConflict[] = [];
  const responderRefuses = new Set(responder.values.conflicts_with ?? []);
  const initiatorRefuses = new Set(initiator.values.conflicts_with ?? []);
  for (const value of unique(initiator.values.declared)) {
    if (!responderRefuses.has(value)) continue;
    conflicts.push({ initiator_value: value, responder_value: `conflicts_with:${value}`, conflict_type: 'incompatible', description: `Initiator's '${value}' is in responder's conflicts_with` });
  }
  for (const value of unique(responder.values.declared)) {
    if (!initiatorRefuses.has(value)) continue;
    conflicts.push({ initiator_value: `conflicts_with:${value}`, responder_value: value, conflict_type: 'incompatible', description: `Responder's '${value}' is in initiator's conflicts_with` });
  }
  return conflicts;
}

export function coherenceScore(matched: number, required: number, conflicts: number): number {
  if (required === 0) return 0;
  const score = (matched / required) * (1 - 0.5 * (conflicts / required));
  return Math.min(1, Math.max(0, score));
}

export function checkCoherence(initiator: CoherenceParty, responder: CoherenceParty, options: CoherenceOptions = {}): CoherenceResult {
  const minimum = options.minCoherence ?? MIN_COHERENCE_FOR_PROCEED;
  const task = unique(options.taskValues ?? []);
  const required = task.length > 0 ? task : unique([...initiator.values.declared, ...responder.values.declared]);
  const mine = new Set(initiator.values.declared);
  const theirs = new Set(responder.values.declared);
  const matched = required.filter((value) => mine.has(value) && theirs.has(value));
  const unmatched = required.filter((value) => !(mine.has(value) && theirs.has(value)));
  const conflicts = findConflicts(initiator, responder);
  const score = coherenceScore(matched.length, required.length, conflicts.length);
  const compatible = conflicts.length === 0 && score >= minimum;
  let resolution: CoherenceResult['proposed_resolution'] = null;
  if (conflicts.length > 0) resolution = { type: 'escalate_to_principals', reason: 'Value conflict requires human decision' };
  else if (!compatible) resolution = { type: 'escalate_to_principals', reason: `Coherence score ${score.toFixed(2)} is below ${minimum.toFixed(2)}` };
  return { compatible, score, value_alignment: { matched, unmatched, conflicts }, proceed: compatible, conditions: [], proposed_resolution: resolution };
}
