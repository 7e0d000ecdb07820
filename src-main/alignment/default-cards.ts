import { createHash } from 'node:crypto';
import type { AlignmentCard, EscalationTrigger } from '../../src-shared/aap/card.js';
import { canonicalJson } from '../../src-shared/canonical.js';
import type { AgentPolicy } from '../aip/policy/types.js';

/*
 * The Alignment Card a governed agent gets until the person edits it, derived
 * from what already governs it (docs/alignment.md):
 *   - an MCP server behind `silas proxy`: its AIP policy. What the policy lets through without
 *     asking is a bounded action: a tool in `allowed_tools` without a rule, and a tool with an
 *     `allow` rule (the evaluator allows it whether or not `allowed_tools` lists it, AIP §4.3);
 *     `block` rules are forbidden actions, and each `ask` rule an escalation trigger on that
 *     tool's name;
 *   - Silas itself: nothing runs without the owner's signed approval of its plan (§4 of the Silas
 *     spec), so every tool it executes is an escalation that must have been approved.
 * The values are what these rules serve: acting for the person within bounds, the person's control
 * over what runs, harm prevention, and transparency (every decision is in the ledger). They are §4.4 standard values, so the card
 * needs no definitions.
 */

export const SILAS_AGENT_ID = 'silas';
const MCP_PREFIX = 'mcp:';

/** Who an agent id stands for; agent ids are for people to read and are never parsed back. */
export type AgentSubject = { kind: 'silas' } | { kind: 'mcp'; server: string; client: string | null } | { kind: 'ilp' };

/** The ILP meta-agent (spec 004 §4.1): each composition it answers is one of its decisions (docs/ilp.md "Records"). */
export const ILP_AGENT_ID = 'ilp:meta-agent';

/**
 * The agent id of an MCP server behind `silas proxy --name SERVER`: one per server/client pair
 * (`mcp:cursor/files`) when the proxy was told its client, as `silas clients wrap` does; else one
 * per server name (`mcp:files`, entries wrapped before the client was recorded).
 */
export function mcpAgentId(server: string, client: string | null = null): string {
  return client === null ? `${MCP_PREFIX}${server}` : `${MCP_PREFIX}${client}/${server}`;
}

export const GOVERNED_VALUES = ['principal_benefit', 'user_control', 'harm_prevention', 'transparency'] as const;

/** The agent id as it may appear in a card id: anything but letters, digits, `_` and `-` becomes `-`. */
export const cardIdSlug = (agentId: string): string => agentId.replace(/[^A-Za-z0-9_-]+/g, '-');

/** A card id from a word that says what the card is: kept whole, never cut (it is shown and compared as is). */
function namedCardId(agentId: string, name: string): string {
  return `ac-${cardIdSlug(agentId)}-${name}`;
}

/**
 * A policy-derived card's id: a digest of the policy's hash and of the envelope derived from it,
 * so the id changes whenever the policy or the way it is read changes. A card derived by an older
 * derivation therefore never shares an id with its correction, and CardKeeper replaces it through
 * the owner-signed path instead of putting the older kept version back in force.
 */
function derivedCardId(agentId: string, policyHash: string, envelope: AlignmentCard['autonomy_envelope']): string {
  const digest = createHash('sha256').update(canonicalJson({ policy_hash: policyHash, autonomy_envelope: envelope })).digest('hex');
  return `ac-${cardIdSlug(agentId)}-${digest.slice(0, 16)}`;
}

function commitment(): AlignmentCard['audit_commitment'] {
  // Traces are entries of the local hash chain, signed with the owner key (§4.7).
  return { trace_format: 'ap-trace-v1', retention_days: 365, storage: { type: 'local', location: null }, queryable: false, tamper_evidence: 'signed' };
}

export interface CardContext {
  ownerFingerprint: string;
  now: Date;
}

/** Quotes a tool name as a §4.6 string literal. */
const literal = (name: string) => JSON.stringify(name);

export function cardFromPolicy(server: string, client: string | null, policy: AgentPolicy, context: CardContext): AlignmentCard {
  const agentId = mcpAgentId(server, client);
  const asks: EscalationTrigger[] = [];
  const forbidden: string[] = [];
  for (const rule of [...policy.toolRules.values()].sort((a, b) => a.tool.localeCompare(b.tool))) {
    if (rule.action === 'block') forbidden.push(rule.tool);
    if (rule.action === 'ask') asks.push({ condition: `action_name == ${literal(rule.tool)}`, action: 'escalate', reason: `The policy "${policy.name}" asks the person before every ${rule.tool} call` });
  }
  // What the evaluator forwards without asking (AIP §4.3): listed tools without a rule, and every
  // tool an `allow` rule names, listed or not. An `allow` rule with argument constraints still
  // bounds the tool: a call whose arguments do not match is refused, never forwarded.
  const bounded = new Set<string>();
  for (const tool of policy.allowedTools) if (!policy.toolRules.has(tool)) bounded.add(tool);
  for (const rule of policy.toolRules.values()) if (rule.action === 'allow') bounded.add(rule.tool);
  const envelope = { bounded_actions: [...bounded].sort(), escalation_triggers: asks, max_autonomous_value: null, forbidden_actions: forbidden };
  return {
    aap_version: '0.1.0',
    card_id: derivedCardId(agentId, policy.hash, envelope),
    agent_id: agentId,
    issued_at: context.now.toISOString(),
    expires_at: null,
    principal: { type: 'human', identifier: context.ownerFingerprint, relationship: 'delegated_authority', escalation_contact: null },
    values: { declared: [...GOVERNED_VALUES], conflicts_with: null, hierarchy: 'lexicographic' },
    autonomy_envelope: envelope,
    audit_commitment: commitment(),
    extensions: { silas: { derived_from: 'policy', server, client, policy_name: policy.name, policy_hash: policy.hash, policy_path: policy.sourcePath } },
  };
}

export function silasCard(context: CardContext): AlignmentCard {
  return {
    aap_version: '0.1.0',
    card_id: namedCardId(SILAS_AGENT_ID, 'plan-approval'),
    agent_id: SILAS_AGENT_ID,
    issued_at: context.now.toISOString(),
    expires_at: null,
    principal: { type: 'human', identifier: context.ownerFingerprint, relationship: 'delegated_authority', escalation_contact: null },
    values: { declared: [...GOVERNED_VALUES], conflicts_with: null, hierarchy: 'lexicographic' },
    autonomy_envelope: {
      bounded_actions: [],
      escalation_triggers: [{ condition: 'action_type == "execute"', action: 'escalate', reason: 'Silas runs nothing without the owner\'s signed approval of its plan' }],
      max_autonomous_value: null,
      forbidden_actions: [],
    },
    audit_commitment: commitment(),
    extensions: { silas: { derived_from: 'plan-approval' } },
  };
}

/**
 * The ILP meta-agent's card: composing an answer is its one bounded action, within limits the
 * request's own Constitutional-Header sets and the enforcer holds it to; a composition the
 * constitution refused is a denial, recorded with its principle.
 */
export function ilpCard(context: CardContext): AlignmentCard {
  return {
    aap_version: '0.1.0',
    card_id: namedCardId(ILP_AGENT_ID, 'constitution'),
    agent_id: ILP_AGENT_ID,
    issued_at: context.now.toISOString(),
    expires_at: null,
    principal: { type: 'human', identifier: context.ownerFingerprint, relationship: 'delegated_authority', escalation_contact: null },
    values: { declared: [...GOVERNED_VALUES], conflicts_with: null, hierarchy: 'lexicographic' },
    autonomy_envelope: { bounded_actions: ['compose'], escalation_triggers: [], max_autonomous_value: null, forbidden_actions: [] },
    audit_commitment: commitment(),
    extensions: { silas: { derived_from: 'ilp' } },
  };
}
