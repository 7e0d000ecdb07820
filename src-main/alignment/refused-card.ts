import type { AlignmentCard } from '../../src-shared/aap/card.js';
import type { Violation } from '../../src-shared/aap/results.js';
import { GOVERNED_VALUES, type AgentSubject, type CardContext } from './default-cards.js';

/*
 * The failed-closed state of an agent whose card was refused (docs/alignment.md "A refused card"):
 * a stored card whose owner signature does not hold, or that no longer compiles, or a policy that
 * is not signed by the owner key. The agent is never put on a looser card instead: it gets this
 * built-in card, under which every action is a violation, until the person decides (saves an
 * edited card, or asks for the card derived from the signed policy).
 *
 * The card bounds nothing, forbids nothing and expired before any trace (so AAP verification, §7,
 * fails every trace as `card_expired`); the recorder also reports each trace as `card_refused`,
 * the type that says why.
 */

const CARD_REFUSED_VIOLATION = 'card_refused';

const slug = (agentId: string) => agentId.replace(/[^A-Za-z0-9_-]+/g, '-');

export function refusedCard(agentId: string, subject: AgentSubject | null, reason: string, context: CardContext): AlignmentCard {
  const where = subject?.kind === 'mcp' ? { server: subject.server, client: subject.client } : {};
  return {
    aap_version: '0.1.0',
    card_id: `ac-${slug(agentId)}-refused-${context.now.getTime().toString(36)}`,
    agent_id: agentId,
    // Issued and expired before any trace: every decision is judged against an expired card.
    issued_at: '1970-01-01T00:00:00.000Z',
    expires_at: '1970-01-01T00:00:00.001Z',
    principal: { type: 'human', identifier: context.ownerFingerprint, relationship: 'delegated_authority', escalation_contact: null },
    values: { declared: [...GOVERNED_VALUES], conflicts_with: null, hierarchy: 'lexicographic' },
    autonomy_envelope: { bounded_actions: [], escalation_triggers: [], max_autonomous_value: null, forbidden_actions: [] },
    audit_commitment: { trace_format: 'ap-trace-v1', retention_days: 365, storage: { type: 'local', location: null }, queryable: false, tamper_evidence: 'signed' },
    extensions: { silas: { derived_from: 'refused', refused: { reason: reason.slice(0, 500), at: context.now.toISOString() }, ...where } },
  };
}

/** Why `card` is the refused card, or null when it is an ordinary card. */
export function refusedReasonOf(card: unknown): string | null {
  const refused = (card as { extensions?: { silas?: { refused?: { reason?: unknown } } } } | null)?.extensions?.silas?.refused;
  return typeof refused?.reason === 'string' ? refused.reason : null;
}

/** The violation every trace of a failed-closed agent carries (a Silas type beside AAP's §7.5 ones). */
export function refusedCardViolation(card: AlignmentCard): Violation | null {
  const reason = refusedReasonOf(card);
  if (reason === null) return null;
  return {
    type: CARD_REFUSED_VIOLATION as Violation['type'],
    severity: 'critical',
    description: `The Alignment Card of ${card.agent_id} was refused (${reason}); every action counts as a violation until you save or re-derive a card`,
    trace_field: 'card_id',
  };
}
