import { z } from 'zod';

/*
 * What the cockpit's ILP page (the composition inspector, docs/ilp.md "Inspector") sees of a
 * composition: one query answered by the meta-agent through hops to specialists, each hop a real
 * ILP message judged by the constitutional enforcer (spec 004 §4.2). Stored compositions are
 * sealed (docs/architecture.md §2 "Sealed state"); one that fails its seal is shown as not trusted.
 */

/** The status codes of spec 004 §3.3 and §8 with the reason phrases the RFC's examples use: the codec writes them, the cockpit shows them. */
export const ILP_STATUS_REASONS = {
  200: 'OK',
  207: 'Multi-Status',
  400: 'Bad Request',
  403: 'Forbidden',
  409: 'Conflict',
  429: 'Budget Exceeded',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Error',
  503: 'Service Unavailable',
} as const;

const Status = z.number().int().min(100).max(599);
const ConstitutionalStatus = z.enum(['PASSED', 'WARNING', 'VIOLATION']);
const Severity = z.enum(['warning', 'error', 'fatal']);

/** Who answered a hop: the meta-agent, a specialist in this process, or one reached over HTTPS (Appendix B Level 3). */
export const IlpAgentKind = z.enum(['meta', 'specialist', 'remote']);
export type IlpAgentKind = z.infer<typeof IlpAgentKind>;

/** One hop: a request to an agent and its answer, with the enforcer's outcome on the edge into it. */
export const IlpHopView = z.object({
  id: z.string(),
  /** The hop that made this one (the meta-agent's), or null for the query's own hop. */
  parent: z.string().nullable(),
  agent: z.string(),
  kind: IlpAgentKind,
  domain: z.string(),
  method: z.string(),
  path: z.string(),
  depth: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  confidence: z.number().min(0).max(1).nullable(),
  status: Status,
  constitutional_status: ConstitutionalStatus.nullable(),
  /** The gravest principle on the edge, with its severity; null when the hop passed. */
  principle: z.string().nullable(),
  severity: Severity.nullable(),
  /** Slice ids the agent loaded (and cited in `sources`). */
  slices: z.array(z.string()),
  /** The raw ILP messages of the hop, as they crossed the codec. */
  request_text: z.string(),
  response_text: z.string(),
  duration_ms: z.number().nonnegative(),
});
export type IlpHopView = z.infer<typeof IlpHopView>;

export const IlpInfluencer = z.object({ concept: z.string(), slice: z.string(), weight: z.number().min(0).max(1), reasoning: z.string() });
export type IlpInfluencer = z.infer<typeof IlpInfluencer>;

export const IlpCompositionSummary = z.object({
  id: z.string(),
  query: z.string(),
  status: Status,
  constitutional_status: ConstitutionalStatus.nullable(),
  started_at: z.string(),
  cost_usd: z.number().nonnegative(),
  hops: z.number().int().nonnegative(),
  max_depth: z.number().int().nonnegative(),
  /** The composition this one replays with edited headers, or null. */
  replay_of: z.string().nullable(),
  /** False when the stored row fails its seal: shown, never as the runtime's record. */
  trusted: z.boolean(),
});
export type IlpCompositionSummary = z.infer<typeof IlpCompositionSummary>;

export const IlpCompositionView = IlpCompositionSummary.extend({
  answer: z.string().nullable(),
  hop_list: z.array(IlpHopView),
  influencers: z.array(IlpInfluencer),
});
export type IlpCompositionView = z.infer<typeof IlpCompositionView>;

export const IlpListArgs = z
  .object({
    /** Keyset paging: compositions strictly older than this id. */
    before: z.string().max(64).optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();

export const IlpListResult = z.object({ compositions: z.array(IlpCompositionSummary), total: z.number().int().nonnegative() });
export type IlpListResult = z.infer<typeof IlpListResult>;

export const IlpGetArgs = z.object({ id: z.string().min(1).max(64) }).strict();

/** Resend a stored composition's query with an edited Constitutional-Header (the JSON text the person typed). */
export const IlpReplayArgs = z
  .object({
    id: z.string().min(1).max(64),
    constitutional_header: z.string().min(2).max(8192),
  })
  .strict();

// Its own schema object (a description added), not a second name for IlpCompositionView: knip refuses duplicate exports.
export const IlpReplayResult = IlpCompositionView.describe('The replay, stored as a new composition whose replay_of names the one replayed.');

/*
 * Knowledge distillation (spec 004 §4.3, docs/ilp.md "Knowledge distillation"): the cockpit runs
 * it, review asks the owner about each proposal (`ilp_slice` cards), and the ILP page lists the
 * learned slices with their history and a rollback.
 */

export const IlpDistillArgs = z
  .object({
    /** Successful episodes a pattern needs. */
    min_frequency: z.number().int().min(2).max(1000).default(3),
    /** Patterns sent to the model at most. */
    max_candidates: z.number().int().min(1).max(20).default(5),
  })
  .strict();

export const IlpDistillResult = z.object({
  patterns: z.number().int().nonnegative(),
  /** Proposals now waiting in Review. */
  proposed: z.array(z.object({ id: z.string(), slice_id: z.string(), version: z.number().int(), title: z.string() })),
  rejected: z.array(z.object({ concepts: z.array(z.string()), reasons: z.array(z.string()) })),
  skipped: z.number().int().nonnegative(),
  untrusted_episodes: z.number().int().nonnegative(),
});
export type IlpDistillResult = z.infer<typeof IlpDistillResult>;

const IlpSliceVersionView = z.object({
  id: z.string(),
  version: z.number().int(),
  kind: z.enum(['created', 'updated', 'rollback', 'removed']),
  status: z.enum(['proposed', 'deployed', 'declined', 'superseded']),
  title: z.string(),
  sha256: z.string(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
  /** False: changed outside Silas, never deployed or restored. */
  trusted: z.boolean(),
});

const IlpLearnedSlice = z.object({
  slice_id: z.string(),
  /** The version the navigator reads now, or null (proposed only, declined, or removed). */
  deployed_version: z.number().int().nullable(),
  /** Newest first. */
  history: z.array(IlpSliceVersionView),
  /** Why the version in force is not used (changed outside Silas), or null. */
  problem: z.string().nullable(),
});

export const IlpSlicesResult = z.object({ slices: z.array(IlpLearnedSlice), untrusted: z.number().int().nonnegative() });
export type IlpSlicesResult = z.infer<typeof IlpSlicesResult>;

export const IlpRollbackArgs = z
  .object({
    slice_id: z.string().min(1).max(200),
    /** A version deployed before; the one before the version in force when absent. */
    to_version: z.number().int().positive().optional(),
  })
  .strict();

export const IlpRollbackResult = z.object({ slice_id: z.string(), version: z.number().int(), kind: z.enum(['rollback', 'removed']), restored_version: z.number().int().nullable() });
