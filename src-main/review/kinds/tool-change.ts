import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { orderActions } from '../../../src-shared/review/cta.js';
import type { CardOf, DecisionCard } from '../../../src-shared/schemas/review.js';
import type { AuditAppender } from '../../../src-shared/audit/events.js';
import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import { type PinSealer, ToolPinRepository, type ToolPin } from '../../store/repositories/tool-pins.js';
import { toolChangeDecisionId } from '../../mcp/servers/tool-change-id.js';
import type { StandingDecisions } from '../decision-queue.js';

const TOOL_CHANGE_KIND = 'tool_change' as const;

const APPROVE = { choice: 'approve', label: 'Accept the new definition', consequence: 'The agent sees the tool again and calls to it are judged by your policy' };
const KEEP_BLOCKED = { choice: 'keep_blocked', label: 'Keep it blocked', consequence: 'The tool stays hidden and refused; you can still accept it later on the Servers page' };

/**
 * Changed tool definitions (the tool-poisoning defence): a proxy records the change and hides the
 * tool; nobody waits, so the decision lives in the database until the person accepts it or keeps
 * it blocked, and shows in Review like any other card. Accepting is audited in the transaction
 * that re-pins the tool, so running proxies see it only once it is on the record.
 */
export class ToolChangeDecisions implements StandingDecisions {
  readonly name = TOOL_CHANGE_KIND;
  private readonly pins: ToolPinRepository;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly audit: AuditAppender,
    sealer: PinSealer,
  ) {
    this.pins = new ToolPinRepository(db, sealer);
  }

  /** Pending changes not kept blocked. */
  cards(): CardOf<'tool_change'>[] {
    return this.pins.pending().filter((pin) => pin.declinedHash !== pin.pendingHash).map(toCard);
  }

  /** Any pending change, kept blocked or not (the Servers page can still accept one). */
  card(id: string): CardOf<'tool_change'> | null {
    const pin = this.find(id);
    return pin ? toCard(pin) : null;
  }

  decide(card: DecisionCard, choice: string): 'approved' | 'denied' {
    const { server, tool, approvedHash, pendingHash: hash } = (card as CardOf<'tool_change'>).details;
    // The pins' own UPDATE … WHERE pending_hash = ? decides whether the change is still pending.
    return inImmediateTransaction(this.db, () => {
      if (choice === KEEP_BLOCKED.choice) {
        this.audit.append('mcp.tool_change_declined', { server, tool, approved_hash: approvedHash, declined_hash: hash });
        if (!this.pins.decline(server, tool, hash)) throw resolvedElsewhere(tool, server);
        return 'denied' as const;
      }
      this.audit.append('mcp.tool_change_approved', { server, tool, previous_hash: approvedHash, hash });
      if (!this.pins.approve(server, tool, hash)) throw resolvedElsewhere(tool, server);
      return 'approved' as const;
    });
  }

  private find(id: string): ToolPin | null {
    return this.pins.pending().find((pin) => toolChangeDecisionId(pin.server, pin.tool, pin.pendingHash!) === id) ?? null;
  }
}

function resolvedElsewhere(tool: string, server: string): SilasError {
  return new SilasError(ErrorCode.InvalidArgs, `the pending change of ${tool} on ${server} was already resolved; reload Review`);
}

function toCard(pin: ToolPin): CardOf<'tool_change'> {
  const hash = pin.pendingHash!;
  return {
    kind: TOOL_CHANGE_KIND,
    id: toolChangeDecisionId(pin.server, pin.tool, hash),
    intent: `Accept the changed definition of ${pin.tool} on ${pin.server}`,
    // A definition is what the agent reads as instructions: a silent change is how tools are poisoned.
    riskLevel: 'high',
    riskReasons: ['a changed tool description or schema can carry instructions to the agent (tool poisoning)'],
    rationale: `${pin.server} announced a definition of ${pin.tool} other than the one you approved. Until you accept it, the tool is hidden from the agent and calls to it are refused.`,
    actions: orderActions('high', [APPROVE], KEEP_BLOCKED),
    details: { server: pin.server, tool: pin.tool, approvedHash: pin.approvedHash, pendingHash: hash },
    requestedAt: pin.pendingSince ?? pin.approvedAt,
    expiresAt: null,
  };
}
