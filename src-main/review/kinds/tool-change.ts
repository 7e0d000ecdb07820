import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { orderActions } from '../../../src-shared/review/cta.js';
import type { CardOf, DecisionCard } from '../../../src-shared/schemas/review.js';
import type { AuditAppender } from '../../../src-shared/audit/events.js';
import { inImmediateTransaction, type SqliteDatabase } from '../../store/transaction.js';
import { type PinSealer, ToolPinRepository, type ToolPin } from '../../store/repositories/tool-pins.js';
import { toolChangeDecisionId } from '../../mcp/servers/tool-change-id.js';
import type { StandingDecisions } from '../decision-queue.js';
import { cardText } from './tool-call-why.js';

const TOOL_CHANGE_KIND = 'tool_change' as const;

const APPROVE = { choice: 'approve', label: 'Accept the new definition', consequence: 'The agent sees the tool again and calls to it are judged by your policy' };
const OFFER = { choice: 'approve', label: 'Offer the tool', consequence: 'The definition is pinned as it is: the agent sees the tool and calls to it are judged by your policy' };
const KEEP_BLOCKED = { choice: 'keep_blocked', label: 'Keep it blocked', consequence: 'The tool stays hidden and refused; you can still accept it later on the Servers page' };

/** How many rules a card's risk reasons name before "and N more" (the findings list shows them all). */
const REASON_RULES_MAX = 5;
/** A rule name or a path as the card's sentences show it. */
const SHOWN_NAME_CHARS = 120;

/**
 * Tool definitions waiting for the person (the tool-poisoning defence): a proxy records a changed
 * definition, or one its detectors flagged the first time it was announced, and hides the tool;
 * nobody waits, so the decision lives in the database until the person accepts it or keeps it
 * blocked, and shows in Review like any other card. Accepting is audited in the transaction that
 * pins the tool, so running proxies see it only once it is on the record. The findings on a card
 * come from an unsealed column: they shape what the card says, never what is offered.
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
    const { server, tool, approvedHash, pendingHash: hash, findings } = (card as CardOf<'tool_change'>).details;
    // The pins' own UPDATE … WHERE pending_hash = ? decides whether the change is still pending.
    return inImmediateTransaction(this.db, () => {
      if (approvedHash === null) {
        const rules = ruleNames(findings ?? []);
        if (choice === KEEP_BLOCKED.choice) {
          this.audit.append('mcp.tool_held_declined', { server, tool, declined_hash: hash, rules });
          if (!this.pins.decline(server, tool, hash)) throw resolvedElsewhere(tool, server);
          return 'denied' as const;
        }
        this.audit.append('mcp.tool_held_approved', { server, tool, hash, rules });
        if (!this.pins.approve(server, tool, hash)) throw resolvedElsewhere(tool, server);
        return 'approved' as const;
      }
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
  return pin.approvedHash === null ? firstSightCard(pin) : changeCard(pin, pin.approvedHash);
}

/** Distinct rule names, in the order found. */
function ruleNames(findings: readonly { rule: string }[]): string[] {
  return [...new Set(findings.map((f) => f.rule))];
}

/** "hidden_instructions in description; cross_tool_shadowing in instructions" */
function whereFound(findings: ToolPin['pendingFindings']): string {
  const places = new Map<string, Set<string>>();
  // Rules and paths come from the detectors, but a path names the server's own schema keys: made safe to show.
  for (const f of findings) {
    const rule = cardText(f.rule, SHOWN_NAME_CHARS);
    places.set(rule, (places.get(rule) ?? new Set()).add(cardText(f.path, SHOWN_NAME_CHARS) || 'the text'));
  }
  return [...places].map(([rule, paths]) => `${rule} in ${[...paths].join(', ')}`).join('; ');
}

function findingReasons(findings: ToolPin['pendingFindings']): string[] {
  const rules = ruleNames(findings);
  const named = rules.slice(0, REASON_RULES_MAX).map((rule) => `the definition matches the detector rule ${cardText(rule, SHOWN_NAME_CHARS)}`);
  if (rules.length > REASON_RULES_MAX) named.push(`and ${rules.length - REASON_RULES_MAX} more rules`);
  return named;
}

/** A definition the detectors flagged the first time the server announced it: nothing was ever approved. */
function firstSightCard(pin: ToolPin): CardOf<'tool_change'> {
  const hash = pin.pendingHash!;
  const findings = pin.pendingFindings;
  const found = findings.length > 0 ? ` Found: ${whereFound(findings)}.` : '';
  const rationale = `${pin.server} announced ${pin.tool} for the first time with a definition that looks poisoned: it may carry instructions to the agent.${found} Until you allow it, the tool is hidden from the agent and calls to it are refused.`;
  return {
    kind: TOOL_CHANGE_KIND,
    id: toolChangeDecisionId(pin.server, pin.tool, hash),
    intent: `Allow ${pin.tool} on ${pin.server}, whose definition looks poisoned`,
    riskLevel: 'high',
    riskReasons: ['a tool definition is read by the agent as instructions (tool poisoning)', ...findingReasons(findings)],
    rationale,
    actions: orderActions('high', [OFFER], KEEP_BLOCKED),
    details: { server: pin.server, tool: pin.tool, approvedHash: null, pendingHash: hash, firstSight: true, findings },
    requestedAt: pin.pendingSince ?? pin.firstSeenAt,
    expiresAt: null,
    notification: { title: `Allow ${pin.tool} on ${pin.server}? Its definition looks poisoned`, body: `High risk. ${rationale}`.slice(0, 1000) },
  };
}

function changeCard(pin: ToolPin, approvedHash: string): CardOf<'tool_change'> {
  const hash = pin.pendingHash!;
  const findings = pin.pendingFindings;
  const found = findings.length > 0 ? ` The detectors flag the new definition: ${whereFound(findings)}.` : '';
  return {
    kind: TOOL_CHANGE_KIND,
    id: toolChangeDecisionId(pin.server, pin.tool, hash),
    intent: `Accept the changed definition of ${pin.tool} on ${pin.server}`,
    // A definition is what the agent reads as instructions: a silent change is how tools are poisoned.
    riskLevel: 'high',
    riskReasons: ['a changed tool description or schema can carry instructions to the agent (tool poisoning)', ...findingReasons(findings)],
    rationale: `${pin.server} announced a definition of ${pin.tool} other than the one you approved.${found} Until you accept it, the tool is hidden from the agent and calls to it are refused.`,
    actions: orderActions('high', [APPROVE], KEEP_BLOCKED),
    details: { server: pin.server, tool: pin.tool, approvedHash, pendingHash: hash, ...(findings.length > 0 ? { findings } : {}) },
    requestedAt: pin.pendingSince ?? pin.approvedAt ?? pin.firstSeenAt,
    expiresAt: null,
  };
}
