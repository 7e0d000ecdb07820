import type { AlignmentCard } from '../../src-shared/aap/card.js';
import type { ValidationIssue } from '../../src-shared/aap/issues.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { compileAlignmentCard, validateCard, type CompiledCard } from '../aap/card.js';
import type { AgentPolicy } from '../aip/policy/types.js';
import type { AuditAppender } from '../../src-shared/audit/events.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { StateSeals } from '../keys/sealed-state.js';
import type { AlignmentCardRow, AlignmentRepository } from '../store/repositories/alignment.js';
import { aapSigner, signAapDocument } from './aap-signatures.js';
import { cardFromPolicy, cardIdSlug, ILP_AGENT_ID, ilpCard, mcpAgentId, silasCard, type AgentSubject } from './default-cards.js';
import { refusedCard, refusedReasonOf } from './refused-card.js';

/*
 * The Alignment Card in force for each governed agent (docs/alignment.md "Governed agents and their
 * cards"): created from the agent's policy the first time the agent decides something, re-derived
 * when that policy changes (until the person edits the card), and replaced by an edited card only
 * when that card validates (AAP §4, §4.6 conditions included). A refused card changes nothing: the
 * previous card stays in force. Every card put in force is signed with the owner key and audited.
 *
 * A card is derived only from a policy signed by the owner key (DESIGN invariant 13). A stored card
 * that does not hold (its owner signature fails, or it no longer compiles), or an agent whose only
 * policy is unsigned, is failed closed: it gets the built-in refused card (refused-card.ts), under
 * which every action is a violation, never the looser derived card, until the person decides
 * (docs/alignment.md "A refused card").
 */

/** The policy an agent's card may be derived from: only one signed by the owner key counts. */
export type ServerPolicy = { ok: true; policy: AgentPolicy } | { ok: false; path: string; reason: string } | null;

export interface CardKeeperDeps {
  repo: AlignmentRepository;
  audit: AuditAppender;
  signer: Pick<OwnerSigner, 'sign' | 'fingerprint'>;
  /** The keyring's owner key: a stored card counts only with its signature (the database alone can be written by others). */
  trustedKeys(): ReadonlyMap<string, Uint8Array>;
  /**
   * The policy `silas proxy --name SERVER [--client CLIENT]` enforces: the file its newest start
   * recorded (`mcp.proxy_started`), else the one its wrapped client entry names; `ok` only when it
   * carries a valid owner signature and is the text in force; null when none is known.
   */
  policyForServer(server: string, client: string | null): ServerPolicy;
  /**
   * The keyring's anchor of each agent's card in force (docs/architecture.md §2 "Sealed state"):
   * an older card, validly signed in its day but no longer in force, put back in the database
   * does not count.
   */
  anchors: Pick<StateSeals, 'anchor' | 'anchoredDigest' | 'checkAnchored'>;
  now(): Date;
}

export interface CardInForce {
  row: AlignmentCardRow;
  compiled: CompiledCard;
}

export class CardKeeper {
  private readonly compiled = new Map<string, CardInForce>();

  constructor(private readonly deps: CardKeeperDeps) {}

  /**
   * The agent's card in force; derived for `subject` and activated on first use. Without a
   * subject (the cockpit asking about an agent by id) an agent with no card is not found.
   */
  cardFor(agentId: string, subject?: AgentSubject): CardInForce {
    const cached = this.compiled.get(agentId);
    if (cached) return cached;
    const row = this.deps.repo.activeCard(agentId);
    if (row) {
      const kept = this.trusted(row);
      if (kept && this.inForce(row)) return this.remember(this.rederived({ row, compiled: kept }, subject));
      if (kept) return this.failClosed(agentId, subject ?? subjectOf(row.cardJson), `the stored card ${row.cardId} is not the card last put in force (an older card put back in the database?)`);
      // Never the derived card in its place: it may be looser than what the person decided.
      return this.failClosed(agentId, subject ?? subjectOf(row.cardJson), `the stored card ${row.cardId} does not hold its owner signature or no longer compiles`);
    }
    if (!subject) throw new SilasError(ErrorCode.NotFound, `no agent "${agentId.slice(0, 200)}" has decided anything yet; pick one from the list`);
    const derived = this.defaultCard(subject);
    if (!derived.ok) return this.failClosed(agentId, subject, derived.reason);
    return this.activate(derived.card, 'derived');
  }

  /**
   * The person's explicit choice (cockpit credential only): the card derived from the agent's
   * owner-signed policy put in force, in place of whatever is in force (a refused card included).
   * Refused, audited, when the policy is not signed: the card in force stays.
   */
  useDerived(agentId: string): CardInForce {
    const row = this.deps.repo.activeCard(agentId);
    const subject = row ? subjectOf(row.cardJson) : null;
    if (!subject) throw new SilasError(ErrorCode.NotFound, `no agent "${agentId.slice(0, 200)}" with a card to derive again; pick one from the list`);
    const derived = this.defaultCard(subject);
    if (!derived.ok) throw new SilasError(ErrorCode.InvalidArgs, `no card was derived for ${agentId}: ${derived.reason}. Sign (adopt) the policy on the Policies page, or save an edited card; the card in force stays`);
    this.compiled.delete(agentId);
    return this.activate(derived.card, 'derived');
  }

  /** After a policy change: agents whose card was derived from another version of it get one from the new version. */
  policyChanged(server: string, client: string | null): CardInForce | null {
    const agentId = mcpAgentId(server, client);
    if (!this.deps.repo.activeCard(agentId)) return null;
    // The card in force as cardFor checks it (owner signature and keyring anchor, `source` included):
    // a row whose `source` was rewritten in the database decides nothing here.
    const { row } = this.cardFor(agentId, { kind: 'mcp', server, client });
    // A refused card stays until the person decides; an edited one is the person's.
    if (row.source !== 'derived' || refusedReasonOf(JSON.parse(row.cardJson)) !== null) return null;
    const next = this.defaultCard({ kind: 'mcp', server, client });
    // An unsigned policy derives nothing: the card from its signed version stays in force.
    if (!next.ok) return null;
    if (next.card.card_id === row.cardId) return null;
    return this.activate(next.card, 'derived');
  }

  /** A policy file was saved: agents whose derived card came from it get one from the new text. */
  policyFileChanged(path: string): void {
    for (const row of this.deps.repo.activeCards()) {
      if (row.source !== 'derived') continue;
      const subject = subjectOf(row.cardJson);
      const extension = (JSON.parse(row.cardJson) as { extensions?: { silas?: { policy_path?: unknown } } }).extensions?.silas;
      if (subject?.kind === 'mcp' && extension?.policy_path === path) this.policyChanged(subject.server, subject.client);
    }
  }

  /** An edited card put in force when it validates; otherwise refused with every problem's path, and audited. */
  saveEdited(agentId: string, input: unknown): CardInForce {
    const problems = this.problemsOf(agentId, input);
    if (problems.length > 0) {
      this.deps.audit.append('aap.card_refused', { agent_id: agentId, problems: problems.map((p) => `${p.path || '(card)'}: ${p.message}`).slice(0, 50) });
      throw new SilasError(ErrorCode.InvalidArgs, `the card was not saved; the card in force stays. ${problems.slice(0, 5).map((p) => `${p.path || '(card)'}: ${p.message}${p.expected ? ` (expected ${p.expected})` : ''}`).join('; ')}`);
    }
    return this.activate(input as AlignmentCard, 'edited');
  }

  /** What is wrong with `input` as the card of `agentId` (empty when it can be put in force). */
  problemsOf(agentId: string, input: unknown): ValidationIssue[] {
    const validation = validateCard(input, { now: this.deps.now() });
    const problems = [...validation.errors];
    if (problems.length === 0 && (input as AlignmentCard).agent_id !== agentId) {
      problems.push({ path: 'agent_id', message: `the card is for "${(input as AlignmentCard).agent_id}", not "${agentId}"`, expected: JSON.stringify(agentId) });
    }
    if (problems.length === 0 && this.deps.repo.cardById((input as AlignmentCard).card_id)) {
      problems.push({ path: 'card_id', message: `"${(input as AlignmentCard).card_id}" is the id of a card already kept; give the new card a new id`, expected: 'a card id not used before' });
    }
    return problems;
  }

  /**
   * A stored card as it may be used: signed by the owner key and compiling. Otherwise it was
   * written behind the app's back; that is audited, and the caller puts the default in force.
   */
  private trusted(row: AlignmentCardRow): CompiledCard | null {
    const card = JSON.parse(row.cardJson) as unknown;
    const compiled = compileAlignmentCard(card);
    const signed = aapSigner('card', card, row.signature, this.deps.trustedKeys()) !== null;
    if (signed && compiled.ok) return compiled.compiled;
    const problem = signed ? 'the stored card no longer compiles' : 'the stored card is not signed by the owner key (edited in the database?)';
    this.deps.audit.append('aap.card_refused', { agent_id: row.agentId, problems: [`${row.cardId}: ${problem}`] });
    return null;
  }

  /** The agent is put on the refused card (every action a violation) and that is audited. */
  private failClosed(agentId: string, subject: AgentSubject | null, reason: string): CardInForce {
    const card = refusedCard(agentId, subject, reason, { ownerFingerprint: this.deps.signer.fingerprint, now: this.deps.now() });
    this.deps.audit.append('aap.card_failed_closed', { agent_id: agentId, card_id: card.card_id, reason: reason.slice(0, 500) });
    return this.activate(card, 'derived');
  }

  /**
   * A derived card in force, checked against what derivation gives today (once per agent and
   * process: the result is remembered). A card derived by an older derivation (one that left
   * `tool_rules` allows out, or cut Silas's card id), or from no policy before the agent's policy
   * was known (a proxy started by hand), is replaced by the card derived now from the owner-signed
   * policy in force, signed and anchored like any card put in force: it is not tampering, since
   * the kept card's signature and anchor held. An edited or refused card stays (the person
   * decides), and so does the card in force when the policy is not signed or no longer known.
   */
  private rederived(card: CardInForce, subject: AgentSubject | undefined): CardInForce {
    const { row } = card;
    if (row.source !== 'derived' || refusedReasonOf(card.compiled.card) !== null) return card;
    const who = subject ?? subjectOf(row.cardJson);
    if (!who) return card;
    const next = this.defaultCard(who, { quiet: true });
    if (!next.ok || !next.known || next.card.card_id === row.cardId) return card;
    return this.activate(next.card, 'derived');
  }

  /**
   * The card derived for `subject`, or why none may be (its policy is not signed by the owner key;
   * audited unless `quiet`). `known` is false for the card that bounds nothing, given when no
   * policy is known for the agent.
   */
  private defaultCard(subject: AgentSubject, options: { quiet?: boolean } = {}): { ok: true; card: AlignmentCard; known: boolean } | { ok: false; reason: string } {
    const context = { ownerFingerprint: this.deps.signer.fingerprint, now: this.deps.now() };
    if (subject.kind === 'silas') return { ok: true, card: silasCard(context), known: true };
    if (subject.kind === 'ilp') return { ok: true, card: ilpCard(context), known: true };
    const agentId = mcpAgentId(subject.server, subject.client);
    const policy = this.deps.policyForServer(subject.server, subject.client);
    if (policy?.ok) return { ok: true, card: cardFromPolicy(subject.server, subject.client, policy.policy, context), known: true };
    if (policy && !policy.ok) {
      if (!options.quiet) this.deps.audit.append('aap.policy_not_signed', { agent_id: agentId, path: policy.path, reason: policy.reason.slice(0, 500), card_id: this.deps.repo.activeCard(agentId)?.cardId ?? null });
      return { ok: false, reason: `its policy ${policy.path} ${policy.reason}` };
    }
    // No policy known for it: a card that bounds nothing, so every action it takes is reported.
    const empty = silasCard(context);
    return {
      ok: true,
      known: false,
      card: {
        ...empty,
        card_id: `ac-${cardIdSlug(agentId)}-unknown-policy`,
        agent_id: agentId,
        autonomy_envelope: { bounded_actions: [], escalation_triggers: [], max_autonomous_value: null, forbidden_actions: [] },
        extensions: { silas: { derived_from: 'nothing: neither a proxy start nor a wrapped client entry names its policy', server: subject.server, client: subject.client } },
      },
    };
  }

  private activate(card: AlignmentCard, source: 'derived' | 'edited'): CardInForce {
    const compiled = compileAlignmentCard(card);
    if (!compiled.ok) throw new SilasError(ErrorCode.Internal, `the ${source} card of ${card.agent_id} does not compile: ${compiled.errors[0]?.message ?? ''}`);
    const previous = this.deps.repo.activeCard(card.agent_id);
    const existing = this.deps.repo.cardById(card.card_id);
    if (existing && existing.agentId === card.agent_id && aapSigner('card', JSON.parse(existing.cardJson), existing.signature, this.deps.trustedKeys()) === null) {
      // The kept version was written behind the app's back: it gets the derived text back, signed.
      const signature = signAapDocument('card', card, this.deps.signer);
      const row = this.anchorInForce(this.deps.repo.rewrite(existing, JSON.stringify(card), signature));
      this.deps.audit.append('aap.card_activated', { agent_id: card.agent_id, card_id: card.card_id, source, signature, previous_card_id: previous?.cardId ?? null });
      return this.remember({ row, compiled: compiled.compiled });
    }
    if (existing && existing.agentId === card.agent_id) {
      // The same derived card again (a policy changed back): that kept version is put back in force.
      const row = this.anchorInForce(this.deps.repo.reactivate(existing));
      this.deps.audit.append('aap.card_activated', { agent_id: card.agent_id, card_id: card.card_id, source: existing.source, signature: existing.signature, previous_card_id: previous?.cardId ?? null });
      const kept = compileAlignmentCard(JSON.parse(existing.cardJson));
      return this.remember({ row, compiled: kept.ok ? kept.compiled : compiled.compiled });
    }
    const signature = signAapDocument('card', card, this.deps.signer);
    const row = this.anchorInForce(this.deps.repo.activate({ agentId: card.agent_id, cardId: card.card_id, cardJson: JSON.stringify(card), source, signature, createdAt: this.deps.now().toISOString() }));
    this.deps.audit.append('aap.card_activated', { agent_id: card.agent_id, card_id: card.card_id, source, signature, previous_card_id: previous?.cardId ?? null });
    return this.remember({ row, compiled: compiled.compiled });
  }

  private remember(card: CardInForce): CardInForce {
    this.compiled.set(card.row.agentId, card);
    return card;
  }

  /**
   * Whether `row` is the card the keyring names as in force for its agent. A card put in force
   * before cards were anchored is anchored on first sight (its signature already held).
   */
  private inForce(row: AlignmentCardRow): boolean {
    const value = anchoredCard(row);
    if (this.deps.anchors.anchoredDigest('alignment-card', row.agentId) === null) {
      this.deps.anchors.anchor('alignment-card', row.agentId, value);
      return true;
    }
    return this.deps.anchors.checkAnchored('alignment-card', row.agentId, value).ok;
  }

  /** Every card put in force is anchored, so only it counts when it is read back. */
  private anchorInForce(row: AlignmentCardRow): AlignmentCardRow {
    this.deps.anchors.anchor('alignment-card', row.agentId, anchoredCard(row));
    return row;
  }
}

/** Who a kept card was derived for, from its `extensions.silas` (null for a card that does not say). */
function subjectOf(cardJson: string): AgentSubject | null {
  const card = JSON.parse(cardJson) as { agent_id?: unknown; extensions?: { silas?: { server?: unknown; client?: unknown } } };
  const silas = card.extensions?.silas;
  if (typeof silas?.server === 'string') return { kind: 'mcp', server: silas.server, client: typeof silas.client === 'string' ? silas.client : null };
  if (card.agent_id === ILP_AGENT_ID) return { kind: 'ilp' };
  return card.agent_id === 'silas' ? { kind: 'silas' } : null;
}

/**
 * What the keyring anchors of a card in force: its id, the owner's signature over it, and whether
 * the person edited it (`source` decides whether a policy change may replace it).
 */
function anchoredCard(row: AlignmentCardRow): { card_id: string; signature: string | null; source: string } {
  return { card_id: row.cardId, signature: row.signature, source: row.source };
}
