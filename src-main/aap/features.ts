import type { AlignmentCard } from '../../src-shared/aap/card.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';

/*
 * Structural feature vectors (spec 003 §8.3) and their cosine similarity: the verification score
 * of §7.4 (trace against card) and the drift score of §8.2 (trace against the baseline centroid).
 *
 * Trace features, each 1.0 unless said (§8.3's table):
 *   action:{type}  action_name:{name}  category:{category}  value:{v} per value applied
 *   escalation:evaluated (when evaluated)  escalation:required | escalation:not_required
 *   confidence = decision.confidence (when given)
 * These reproduce every per-trace drift similarity the conformance README publishes.
 *
 * Card features: §8.3 names value:{declared}, action_name:{bounded}, category:{principal type and
 * relationship} and escalation:* for triggers, without weights for the last. The published
 * verification goldens (README "union" column) fix the rest; fitted against all seven of them:
 *   value:{v}, action_name:{a}, category:{type}, category:{relationship}     1.0
 *   audit:queryable (when audit_commitment.queryable)                       1.0
 *   conflict:{v} per conflicts_with, forbidden:{a} per forbidden action     1.0
 *   escalation:{action} per distinct trigger action                          1.0
 *   condition:{condition} per trigger                                        1/√2
 *   escalation:deny implied by a non-empty forbidden list                    0.5
 * No card key collides with a trace key except value:, action_name: and category:, so only
 * declared values, bounded actions and (never, as the enums differ) categories raise the score;
 * the other card keys lower it for cards that declare more than a trace can show.
 */

export type FeatureVector = Map<string, number>;

const CONDITION_WEIGHT = Math.SQRT1_2;
const IMPLIED_DENY_WEIGHT = 0.5;

export function extractTraceFeatures(trace: ApTrace): FeatureVector {
  const features: FeatureVector = new Map();
  const { action, decision } = trace;
  features.set(`action:${action.type}`, 1);
  features.set(`action_name:${action.name}`, 1);
  features.set(`category:${action.category}`, 1);
  for (const value of decision.values_applied) features.set(`value:${value}`, 1);
  const escalation = trace.escalation;
  if (escalation?.evaluated) features.set('escalation:evaluated', 1);
  features.set(escalation?.required ? 'escalation:required' : 'escalation:not_required', 1);
  if (typeof decision.confidence === 'number') features.set('confidence', decision.confidence);
  return features;
}

export function extractCardFeatures(card: AlignmentCard): FeatureVector {
  const features: FeatureVector = new Map();
  for (const value of card.values.declared) features.set(`value:${value}`, 1);
  const envelope = card.autonomy_envelope;
  for (const action of envelope.bounded_actions) features.set(`action_name:${action}`, 1);
  features.set(`category:${card.principal.type}`, 1);
  features.set(`category:${card.principal.relationship}`, 1);
  if (card.audit_commitment.queryable) features.set('audit:queryable', 1);
  for (const value of card.values.conflicts_with ?? []) features.set(`conflict:${value}`, 1);
  const forbidden = envelope.forbidden_actions ?? [];
  for (const action of forbidden) features.set(`forbidden:${action}`, 1);
  for (const trigger of envelope.escalation_triggers) {
    features.set(`escalation:${trigger.action}`, 1);
    features.set(`condition:${trigger.condition}`, CONDITION_WEIGHT);
  }
  if (forbidden.length > 0 && !features.has('escalation:deny')) features.set('escalation:deny', IMPLIED_DENY_WEIGHT);
  return features;
}

export function vectorNorm(vector: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const weight of vector.values()) sum += weight * weight;
  return Math.sqrt(sum);
}

function dotProduct(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [key, weight] of small) {
    const other = large.get(key);
    if (other !== undefined) dot += weight * other;
  }
  return dot;
}

/** Cosine similarity; 0 when either vector is empty or all zero (B.2's `_cosine_similarity`). */
export function cosineSimilarity(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, normA = vectorNorm(a), normB = vectorNorm(b)): number {
  if (normA === 0 || normB === 0) return 0;
  return dotProduct(a, b) / (normA * normB);
}

/** The mean of the vectors, a key missing from one counting as 0 there (§8.2's baseline centroid). */
export function centroid(vectors: readonly ReadonlyMap<string, number>[]): FeatureVector {
  const sums: FeatureVector = new Map();
  for (const vector of vectors) for (const [key, weight] of vector) sums.set(key, (sums.get(key) ?? 0) + weight);
  for (const [key, sum] of sums) sums.set(key, sum / vectors.length);
  return sums;
}

/**
 * A card's features as verification reads them: the sets whose keys a trace can share, and the
 * norm. Only `value:`, `action_name:` and `category:` keys occur in both vectors, so a trace's
 * similarity to the card needs no map of its own — verification runs per recorded decision.
 */
export interface CardFeatureIndex {
  values: ReadonlySet<string>;
  actionNames: ReadonlySet<string>;
  categories: ReadonlySet<string>;
  norm: number;
}

export function indexCardFeatures(card: AlignmentCard): CardFeatureIndex {
  return {
    values: new Set(card.values.declared),
    actionNames: new Set(card.autonomy_envelope.bounded_actions),
    categories: new Set([card.principal.type, card.principal.relationship]),
    norm: vectorNorm(extractCardFeatures(card)),
  };
}

/** cosine(extractTraceFeatures(trace), extractCardFeatures(card)) and the keys they share, without building either vector. */
export function similarityToCard(trace: ApTrace, index: CardFeatureIndex): { score: number; shared: string[] } {
  const { action, decision } = trace;
  const shared: string[] = [];
  let dot = 0;
  let traceNorm2 = 3;
  const values = decision.values_applied;
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i]!;
    if (values.indexOf(value) !== i) continue;
    traceNorm2 += 1;
    if (index.values.has(value)) {
      dot += 1;
      shared.push(`value:${value}`);
    }
  }
  if (index.actionNames.has(action.name)) {
    dot += 1;
    shared.push(`action_name:${action.name}`);
  }
  if (index.categories.has(action.category)) {
    dot += 1;
    shared.push(`category:${action.category}`);
  }
  traceNorm2 += trace.escalation?.evaluated ? 2 : 1;
  if (typeof decision.confidence === 'number') traceNorm2 += decision.confidence * decision.confidence;
  const score = index.norm === 0 ? 0 : dot / (Math.sqrt(traceNorm2) * index.norm);
  return { score, shared: shared.sort() };
}
