import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { orderActions } from '../../../src-shared/review/cta.js';
import type { CardOf, DecisionCard } from '../../../src-shared/schemas/review.js';
import type { Candidate } from '../../ilp/evolution/views.js';
import type { StandingDecisions } from '../decision-queue.js';
import { cardText } from './tool-call-why.js';

const ILP_SLICE_KIND = 'ilp_slice' as const;

const DEPLOY = { choice: 'deploy', label: 'Deploy the slice', consequence: 'The specialists of its domain read it from the next request; the version it replaces is kept for rollback on the ILP page' };
const DECLINE = { choice: 'decline', label: 'Decline', consequence: 'Nothing is deployed; the proposal stays in the slice history and is not proposed again until more answers support it' };

/** What a review source needs of knowledge distillation (ilp/evolution/evolution.ts). */
export interface SliceProposals {
  proposed(): Candidate[];
  /** The version in force of a slice, for an update's card; null when none. */
  inForceText(sliceId: string): string | null;
  deploy(candidateId: string): unknown;
  decline(candidateId: string): unknown;
}

/**
 * Slices knowledge distillation proposes (spec 004 §4.3; docs/ilp.md "Knowledge distillation"):
 * each passed the slice checks, the steering screen and the constitutional enforcer, and still
 * waits for the owner, because a deployed slice is what every specialist of its domain reads as
 * knowledge — and it was written by a model from answers to queries any local program could ask.
 * Nobody waits on the card; it lives in the registry until the owner deploys or declines it.
 */
export class IlpSliceDecisions implements StandingDecisions {
  readonly name = ILP_SLICE_KIND;
  readonly requester = 'knowledge distillation (the ILP runtime, from answered queries)';

  constructor(private readonly proposals: () => SliceProposals | null) {}

  cards(): CardOf<'ilp_slice'>[] {
    const source = this.proposals();
    return source ? source.proposed().map((c) => toCard(c, c.kind === 'updated' ? source.inForceText(c.slice_id) : null)) : [];
  }

  card(id: string): CardOf<'ilp_slice'> | null {
    return this.cards().find((card) => card.id === id) ?? null;
  }

  decide(card: DecisionCard, choice: string): 'approved' | 'denied' {
    const source = this.proposals();
    if (source === null) throw new SilasError(ErrorCode.Conflict, 'the ILP service is not running; start the runtime and decide again');
    if (choice === DEPLOY.choice) {
      source.deploy(card.id);
      return 'approved';
    }
    source.decline(card.id);
    return 'denied';
  }
}

function toCard(candidate: Candidate, previousText: string | null): CardOf<'ilp_slice'> {
  const title = cardText(candidate.title, 120);
  const pattern = candidate.pattern;
  const learnedFrom = pattern ? ` Learned from ${pattern.frequency} answered queries about ${candidate.concepts.slice(0, 5).join(', ')}.` : '';
  const rationale = `Knowledge distillation wrote this ${candidate.kind === 'created' ? 'new slice' : 'update'} for the ${candidate.domain} specialists.${learnedFrom} It passed the slice checks, the injection screen and the constitutional enforcer; read the text before deploying it.`;
  return {
    kind: ILP_SLICE_KIND,
    id: candidate.id,
    intent: `Deploy the learned slice "${title}" (${candidate.slice_id} v${candidate.version})`,
    riskLevel: 'medium',
    riskReasons: ['a slice is read by every specialist of its domain as knowledge', 'it was written by a model from answers to past queries'],
    rationale,
    actions: orderActions('medium', [DEPLOY], DECLINE),
    details: {
      sliceId: candidate.slice_id,
      version: candidate.version,
      change: candidate.kind,
      title: candidate.title.slice(0, 500),
      domain: candidate.domain,
      concepts: candidate.concepts.slice(0, 100),
      text: candidate.text,
      previousText,
      rationale: candidate.rationale.slice(0, 5_000),
      confidence: candidate.confidence,
      constitutionalScore: candidate.constitutional_score,
      warnings: candidate.reasons.slice(0, 20).map((r) => r.slice(0, 1_000)),
      pattern: pattern ? { frequency: pattern.frequency, successRate: pattern.success_rate, queries: pattern.representative_queries.slice(0, 5).map((q) => q.slice(0, 1_000)) } : null,
    },
    requestedAt: candidate.created_at,
    expiresAt: null,
    notification: { title: `Deploy the learned slice "${title}"?`, body: `Medium risk. ${rationale}`.slice(0, 1000) },
  };
}
