import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { orderActions } from '../../../src-shared/review/cta.js';
import type { CardOf, DecisionCard } from '../../../src-shared/schemas/review.js';
import type { MemoryItem } from '../../../src-shared/silas/memory.js';
import type { MemoryPromotions, PromotionRequest } from '../../silas/memory/memory-service.js';
import type { StandingDecisions } from '../decision-queue.js';
import { cardText } from './tool-call-why.js';

const MEMORY_PROMOTION_KIND = 'memory_promotion' as const;

const VERIFY = { choice: 'verify', label: 'Verify the memory', consequence: 'Silas treats it as confirmed by you: only you can change or delete it from now on' };
const DECLINE = { choice: 'decline', label: 'Keep it unverified', consequence: 'It stays working memory: Silas may still recall, change or forget it' };

export type { MemoryPromotions };

/**
 * Promotions of working memory to verified (spec 002 §3.8: "Requires owner action"; §6.4 item 3,
 * §6.6 item 3; docs/silas/chronicle-and-memory.md "Trust"). The memory store refuses to verify a
 * memory without the owner's confirmation, and this card is the only place that confirmation
 * comes from: the decision queue checks the owner's signature before `decide` runs. Nobody waits
 * on the card; it stays until the owner decides or the memory is gone.
 */
export class MemoryPromotionDecisions implements StandingDecisions {
  readonly name = MEMORY_PROMOTION_KIND;
  readonly requester = 'Silas memory (a promotion asked for on the Memory page or by the consolidator)';

  constructor(private readonly promotions: () => MemoryPromotions | null) {}

  cards(): CardOf<'memory_promotion'>[] {
    const source = this.promotions();
    if (!source) return [];
    return source.open().flatMap((request) => {
      const item = source.memory(request.scopeId, request.memoryId);
      // A memory deleted, or verified meanwhile, leaves nothing to decide.
      return item && item.trust_level === 'working' ? [toCard(request, item)] : [];
    });
  }

  card(id: string): CardOf<'memory_promotion'> | null {
    return this.cards().find((card) => card.id === id) ?? null;
  }

  decide(card: DecisionCard, choice: string): 'approved' | 'denied' {
    const source = this.promotions();
    if (source === null) throw new SilasError(ErrorCode.Conflict, 'Silas memory is not running; start the runtime and decide again');
    const request = source.open().find((open) => open.id === card.id);
    if (!request) throw new SilasError(ErrorCode.Conflict, 'this promotion was decided or withdrawn meanwhile');
    if (choice === VERIFY.choice) {
      source.promote(request);
      return 'approved';
    }
    source.decline(request);
    return 'denied';
  }
}

function toCard(request: PromotionRequest, item: MemoryItem): CardOf<'memory_promotion'> {
  const excerpt = cardText(item.content, 120);
  const external = item.taint === 'external';
  const riskLevel = external ? 'medium' : 'low';
  const reason = request.reason ? cardText(request.reason, 300) : '';
  const rationale = `${reason ? `${reason}${/[.!?]$/.test(reason) ? '' : '.'} ` : ''}A verified memory is recalled as confirmed by you, and Silas can no longer change or forget it on its own.${external ? ' It came from outside (a tool, a web page or another person): read it before you confirm it.' : ''}`;
  return {
    kind: MEMORY_PROMOTION_KIND,
    id: request.id,
    intent: `Verify the memory "${excerpt}"`,
    riskLevel,
    riskReasons: external ? ['its content came from outside, not from you'] : ['Silas will treat it as confirmed by you'],
    rationale,
    actions: orderActions(riskLevel, [VERIFY], DECLINE),
    details: {
      memoryId: item.memory_id,
      content: item.content.slice(0, 20_000),
      memoryType: item.memory_type,
      taint: item.taint,
      sourceKind: item.source_kind,
      accessCount: item.access_count,
      createdAt: item.created_at,
      requestedBy: request.requestedBy,
      reason: request.reason,
    },
    requestedAt: request.requestedAt,
    expiresAt: null,
    notification: { title: `Verify a memory: "${excerpt}"?`, body: rationale.slice(0, 1000) },
  };
}
