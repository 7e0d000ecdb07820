import { MemoryPromotionCardDetails } from './memory.js';
import { z } from 'zod';
import { ApprovalToken, Sha256Hex } from '../silas/approval.js';
import { Budget, WorkItemType } from '../silas/work.js';
import { TaintLevel } from '../silas/execution.js';
import { JsonValue } from './json.js';
import { AskingRule } from './approval.js';

/*
 * The Review queue's one card shape (spec 002 §0.5.3), whatever is being decided. The runtime
 * builds every card — its intent, risk, rationale and buttons in CTA order — so the cockpit draws
 * any kind the same way and never re-derives risk or recommendations (docs/architecture.md §4.1).
 */

/** The risk ladder of §0.5.2, assigned by the runtime from what is decided, never by an agent. */
export const RiskLevel = z.enum(['low', 'medium', 'high', 'irreversible']);
export type RiskLevel = z.infer<typeof RiskLevel>;

/** A kind's answer name: `allow_once`, `always_allow`, `approve`, `deny`… */
const DecisionChoiceName = z.string().regex(/^[a-z][a-z_]{0,39}$/, 'a choice is a lower-case name such as "approve" or "deny"');

/**
 * One call to action. `role` is its place in the CTA order (recommended first, alternatives in
 * the middle, the decline last); `tone` is how it is drawn — `danger` for an allowing action the
 * runtime does not recommend, so it cannot be mistaken for the safe choice.
 */
export const CardAction = z.object({
  choice: DecisionChoiceName,
  label: z.string().min(1).max(60),
  /** The card contract's consequence label: what happens if the person picks this. */
  consequence: z.string().min(1).max(300),
  role: z.enum(['recommended', 'alternative', 'decline']),
  tone: z.enum(['recommended', 'secondary', 'danger']),
});
export type CardAction = z.infer<typeof CardAction>;

/**
 * Where a card came from, stamped by the decision queue from the connection that asked, never
 * from the asker's words (docs/review.md "Sources"). `channel` is the surface: the person's
 * cockpit (a Stream conversation opened in the cockpit), `silas chat`/any local process over the
 * local socket (a Stream conversation opened there, taint `external` unless owner-signed), a
 * local-socket requester (a proxy of an MCP server, a CLI command such as `silas run`), or the
 * runtime itself (a standing decision such as a changed tool definition).
 */
export const CardChannel = z.enum(['cockpit', 'local_conversation', 'local_requester', 'runtime']);
export type CardChannel = z.infer<typeof CardChannel>;

export const CardOrigin = z.object({
  channel: CardChannel,
  /** Cards are capped and grouped by this: one requester session (one connection), or one standing source. */
  sourceId: z.string().min(1).max(200),
  /** Who asked, in words, e.g. 'proxy of server "github"' — what the requester claims is quoted. */
  requester: z.string().min(1).max(300),
  /** §5.12 trust of the text the requester chose (intent, rationale, reason, arguments) on this card. */
  taint: TaintLevel,
  /** The request names one of the person's governed servers (a wrapped server); such sources come first. */
  governed: z.boolean(),
});
export type CardOrigin = z.infer<typeof CardOrigin>;

const cardFields = {
  id: z.string().min(1).max(100),
  /** One line: what this action does. */
  intent: z.string().min(1).max(300),
  riskLevel: RiskLevel,
  /** Why the risk is what it is, one reason each (shown under the badge). */
  riskReasons: z.array(z.string()),
  /** One or two sentences: why this is being asked. */
  rationale: z.string(),
  /** In CTA order; exactly one `recommended`, and a `decline` last unless the decline is recommended. */
  actions: z.array(CardAction).min(1).max(5),
  affectedItems: z.object({ count: z.number().int().nonnegative(), summary: z.string() }).optional(),
  requestedAt: z.string(),
  /** When the request is withdrawn unanswered; null for a decision that waits until the person acts. */
  expiresAt: z.string().nullable(),
  /** Stamped by the queue on every card it serves; optional only so older fixtures and runtimes still parse. */
  origin: CardOrigin.optional(),
  /**
   * What a notification of this card says, built by its kind, so the desktop shell and the
   * browser say the same words; absent from older runtimes' cards (the cockpit then words its own).
   */
  notification: z.object({ title: z.string().max(300), body: z.string().max(1000) }).optional(),
};

/**
 * What the detectors found: in a pending tool definition (where: a JSON path into the definition,
 * or `instructions`), or in a server's answer held for the person (a path into the answer); which
 * rule, and the offending text as found. The cockpit shows the excerpt as text with invisible
 * characters made visible; it never decides anything.
 */
const DefinitionFinding = z.object({
  rule: z.string().max(500),
  description: z.string().max(500),
  path: z.string().max(500),
  excerpt: z.string().max(500),
});
type DefinitionFinding = z.infer<typeof DefinitionFinding>;

/** One MCP tool call a policy asked about (spec 001 `action: ask`), or a server's answer to one held for the person (`subject: 'result'`). */
const ToolCallCardDetails = z.object({
  server: z.string(),
  tool: z.string(),
  /** The arguments DLP-redacted, as the proxy showed them; the signature binds the real ones. */
  args: JsonValue,
  rule: z.string(),
  reason: z.string(),
  policyName: z.string(),
  /** The rule that asked, its text stripped of control characters (review/kinds/tool-call-why.ts). */
  askedBy: AskingRule.optional(),
  /** `result`: the question is whether the server's answer reaches the agent; `args` then holds its hash. Absent: the call itself. */
  subject: z.literal('result').optional(),
  /** For a `result` question: what the injection detectors found in the answer. */
  findings: z.array(DefinitionFinding).max(20).optional(),
});

/** One exact plan `silas run` wants to execute (spec 002 §5.11). */
const PlanCardDetails = z.object({
  workItemId: z.string(),
  type: WorkItemType,
  title: z.string(),
  /** Full hash; cards show the first 8 characters, as `silas run --approve-here` asks for them. */
  planHash: Sha256Hex,
  source: z.string(),
  /** The plan's briefing (markdown, shown as text). */
  body: z.string(),
  budget: Budget,
  verify: z.array(z.object({ name: z.string(), run: z.string(), network: z.boolean() })),
  skills: z.array(z.string()),
  gates: z.number().int().nonnegative(),
});

/**
 * A tool whose definition waits for the person (tool poisoning): changed after it was approved,
 * or flagged by the detectors the first time the server announced it (`firstSight`, no approved
 * hash). Hidden and refused until accepted.
 */
const ToolChangeCardDetails = z.object({
  server: z.string(),
  tool: z.string(),
  /** Null when nothing was ever approved: the definition was held at first sight. */
  approvedHash: z.string().nullable(),
  pendingHash: z.string(),
  /** Optional only so cards of older runtimes still parse. */
  firstSight: z.boolean().optional(),
  findings: z.array(DefinitionFinding).max(20).optional(),
});

/**
 * A knowledge slice that distillation proposes from what episodic memory learned (spec 004 §4.3,
 * docs/ilp.md "Knowledge distillation"): it passed the slice checks, the injection screen and the
 * constitutional enforcer, and waits for the owner before any specialist reads it.
 */
const IlpSliceCardDetails = z.object({
  sliceId: z.string().max(200),
  version: z.number().int().positive(),
  change: z.enum(['created', 'updated']),
  title: z.string().max(500),
  domain: z.string().max(100),
  concepts: z.array(z.string().max(200)).max(100),
  /** The slice file as it would be deployed. */
  text: z.string().max(262_144),
  /** The version in force now, for an update; null for a new slice. */
  previousText: z.string().max(262_144).nullable(),
  rationale: z.string().max(5_000),
  confidence: z.number().min(0).max(1),
  constitutionalScore: z.number().min(0).max(1),
  /** The enforcer's warnings at validation. */
  warnings: z.array(z.string().max(1_000)).max(20),
  /** The pattern of episodes it was learned from. */
  pattern: z.object({ frequency: z.number().int().nonnegative(), successRate: z.number().min(0).max(1), queries: z.array(z.string().max(1_000)).max(5) }).nullable(),
});

export const DecisionCard = z.discriminatedUnion('kind', [
  z.object({ ...cardFields, kind: z.literal('tool_call'), details: ToolCallCardDetails }),
  z.object({ ...cardFields, kind: z.literal('plan'), details: PlanCardDetails }),
  z.object({ ...cardFields, kind: z.literal('tool_change'), details: ToolChangeCardDetails }),
  z.object({ ...cardFields, kind: z.literal('ilp_slice'), details: IlpSliceCardDetails }),
  z.object({ ...cardFields, kind: z.literal('memory_promotion'), details: MemoryPromotionCardDetails }),
]);
export type DecisionCard = z.infer<typeof DecisionCard>;
export type DecisionKindName = DecisionCard['kind'];
export type CardOf<K extends DecisionKindName> = Extract<DecisionCard, { kind: K }>;

/** One page of `review.list`: at most this many cards (the queue's total cap keeps a full list to a page or two). */
export const REVIEW_PAGE_MAX = 1000;

export const ReviewListArgs = z
  .object({
    offset: z.number().int().nonnegative().default(0),
    limit: z.number().int().min(1).max(REVIEW_PAGE_MAX).default(REVIEW_PAGE_MAX),
  })
  .strict();

/**
 * Decisions waiting for the person, in source order (src-shared/review/sources.ts: every source's
 * first card before any source's second), and whether asking is paused. `seq` is the last delta
 * the page includes; `total` counts every card, on this page or not.
 */
export const ReviewQueueView = z.object({
  cards: z.array(DecisionCard),
  paused: z.boolean(),
  seq: z.number().int().nonnegative().default(0),
  total: z.number().int().nonnegative().optional(),
});
export type ReviewQueueView = z.infer<typeof ReviewQueueView>;

/**
 * What one change of the queue sends each cockpit session (`review.changed`): only the cards that
 * arrived, changed or left, never the whole queue (a flood must not cost every session the whole
 * queue per card, docs/review.md). `seq` grows by one per delta; a session that sees a gap lists
 * again with `review.list`.
 */
export const ReviewQueueDelta = z.object({
  seq: z.number().int().positive(),
  added: z.array(DecisionCard),
  updated: z.array(DecisionCard),
  removed: z.array(z.string()),
  paused: z.boolean(),
  total: z.number().int().nonnegative(),
});
export type ReviewQueueDelta = z.infer<typeof ReviewQueueDelta>;

export const ReviewDecideArgs = z.object({ id: z.string().min(1).max(100), choice: DecisionChoiceName }).strict();
export const ReviewDecideResult = z.object({ id: z.string(), kind: z.enum(['tool_call', 'plan', 'tool_change', 'ilp_slice', 'memory_promotion']), choice: z.string(), outcome: z.enum(['approved', 'denied']) });

/**
 * What an asker gets back, whatever the kind: a "yes" is an owner-signed ApprovalToken from the
 * approval engine, bound to the hash of what was decided (a plan, one exact tool call).
 */
export const DecisionAnswer = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('approve'), token: ApprovalToken }),
  z.object({ outcome: z.literal('deny'), reason: z.string() }),
  z.object({ outcome: z.literal('timeout') }),
]);
export type DecisionAnswer = z.infer<typeof DecisionAnswer>;

/** What an asker (a proxy, `silas run`) ends with: the runtime's answer, or why no one could be asked — never a hang. */
export type AskOutcome = DecisionAnswer | { outcome: 'unreachable'; reason: string };
