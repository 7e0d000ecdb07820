import { z } from 'zod';
import { JsonValue } from './json.js';

/*
 * The Alignment page's calls (docs/alignment.md "The Alignment page"). Series are columnar (one
 * array per figure) so that 100,000 traces travel and chart as a handful of arrays, not 100,000
 * objects.
 */

const AgentId = z.string({ error: 'expected an agent id such as "mcp:files" or "silas"' }).min(1).max(512);

const AlignmentAgent = z.strictObject({
  agentId: z.string(),
  cardId: z.string().nullable(),
  cardSource: z.enum(['derived', 'edited']).nullable(),
  traces: z.number().int(),
  violations: z.number().int(),
  escalations: z.number().int(),
  alerts: z.number().int(),
  lastTs: z.string().nullable(),
  /** The stored counts failed their seal (edited outside Silas): these were counted again from the chain. */
  countsTampered: z.boolean().optional(),
  /** The agent's card was refused: why (every action counts as a violation until the person decides). */
  cardRefused: z.string().nullable().optional(),
});

export const AlignmentAgentsResult = z.strictObject({ agents: z.array(AlignmentAgent), recorderPosition: z.number().int() });

export const AlignmentSeriesArgs = z.strictObject({
  agentId: AgentId,
  /** Only traces recorded after this seq (a live page asks for what is new). */
  afterSeq: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(200_000).default(100_000),
  /**
   * Only the newest N traces, oldest of them first: how a long history is first shown (afterSeq
   * then fetches what comes later). Without it the series starts after `afterSeq`.
   */
  newest: z.number().int().min(1).max(200_000).optional(),
});

export const AlignmentSeries = z.strictObject({
  agentId: z.string(),
  seq: z.array(z.number().int()),
  /** Epoch milliseconds. */
  time: z.array(z.number()),
  similarity: z.array(z.number()),
  /** Similarity to the drift baseline; null while the baseline forms. */
  driftSimilarity: z.array(z.number().nullable()),
  escalated: z.array(z.number().int()),
  verified: z.array(z.number().int()),
  alert: z.array(z.number().int()),
  traceIds: z.array(z.string()),
  actions: z.array(z.string()),
  /** How often each value was applied over these traces. */
  valueUsage: z.record(z.string(), z.number().int()),
  driftThreshold: z.number(),
  /**
   * Traces whose page row disagrees with the chain (a violation or drift alert edited away, or the
   * row removed): shown as the chain records them, and the tampering audited.
   */
  tampered: z.array(z.string()).optional(),
});
export type AlignmentSeries = z.infer<typeof AlignmentSeries>;

export const AlignmentViolationView = z.strictObject({
  traceId: z.string(),
  ts: z.string(),
  actionName: z.string(),
  violations: z.array(z.string()),
  /** The page's row of this trace was edited or removed outside Silas; this is the chain's record. */
  tampered: z.boolean().optional(),
});
export const AlignmentViolationsArgs = z.strictObject({ agentId: AgentId, limit: z.number().int().min(1).max(500).default(50) });

export const AlignmentTraceArgs = z.strictObject({ traceId: z.string().min(1).max(200) });

const AlignmentCheckView = z.strictObject({
  check: z.string(),
  passed: z.boolean(),
  detail: z.string(),
});

export const AlignmentTraceView = z.strictObject({
  trace: JsonValue,
  card: JsonValue,
  /** The verification, as computed now against the card the trace names (§7.4). */
  verification: JsonValue,
  checks: z.array(AlignmentCheckView),
  signature: z.enum(['owner', 'invalid', 'unsigned']),
  /** The stored trace is the one the chain entry holds. */
  matchesChain: z.boolean(),
  auditIndex: z.number().int(),
  sourceIndex: z.number().int(),
});
export type AlignmentTraceView = z.infer<typeof AlignmentTraceView>;

export const AlignmentCardArgs = z.strictObject({ agentId: AgentId });
export const AlignmentCardView = z.strictObject({
  agentId: z.string(),
  card: JsonValue,
  source: z.enum(['derived', 'edited']),
  signature: z.enum(['owner', 'invalid', 'unsigned']),
  /** Why the agent's card was refused, when it is failed closed (every action a violation until the person decides). */
  refused: z.string().nullable().optional(),
});

const AlignmentCardProblem = z.strictObject({ path: z.string(), message: z.string(), expected: z.string().optional() });
/** A card's text for an agent: what alignment.validateCard checks and alignment.saveCard saves. */
export const AlignmentCardTextArgs = z.strictObject({ agentId: AgentId, text: z.string().max(1_000_000, 'text: a card of at most 1 MB') });
export const AlignmentValidateCardResult = z.strictObject({ ok: z.boolean(), problems: z.array(AlignmentCardProblem) });
export const AlignmentSaveCardResult = z.strictObject({ agentId: z.string(), cardId: z.string() });

export const AlignmentFleetResult = z.strictObject({
  agents: z.array(z.string()),
  matrix: z.array(z.array(z.number())),
  fleetScore: z.number(),
  conflicts: z.array(z.strictObject({ agentA: z.string(), agentB: z.string(), values: z.array(z.string()) })),
  outliers: z.array(z.string()),
  clusters: z.array(z.array(z.string())),
});
export type AlignmentFleetResult = z.infer<typeof AlignmentFleetResult>;
