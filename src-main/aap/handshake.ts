import type { AlignmentCard } from '../../src-shared/aap/card.js';
import { issuesFromZod, type ValidationIssue } from '../../src-shared/aap/issues.js';
import {
  ValueCoherenceMessage,
  type AlignmentCardRequest,
  type AlignmentCardResponse,
  type CoherenceResultMessage,
  type MessageSignature,
  type ProposedCollaboration,
  type RequesterInfo,
  type TaskContext,
  type ValueCoherenceCheck,
} from '../../src-shared/aap/messages.js';
import type { CardValidation } from '../../src-shared/aap/validate-card.js';
import { validateCard } from './card.js';
import { checkCoherence } from './coherence.js';
import { MessageReplayGuard, type Clock, type ReplayRefusal, type ReplayWindowOptions } from './replay-guard.js';

/*
 * The Value Coherence Handshake of spec 003 §6.2–§6.3 for one agent, in either role. Every message
 * it sends carries a fresh `request_id` (or the one it answers) and a timestamp; every message it
 * receives must parse, carry both, be fresh and unseen (replay-guard.ts), and — for the two
 * answers — reference a request this endpoint sent and has not had answered (§9.4 "responses MUST
 * reference the request_id"). Signatures over card responses (§6.3.2) are checked by an injected
 * verifier, so the signing scheme stays with the key vault.
 */

export interface HandshakeDependencies {
  clock: Clock;
  /** A fresh, unguessable request id (e.g. `req-` + a random UUID). */
  newRequestId(): string;
  /** Checks a card response's signature; absent, signatures are not required. */
  verifyCardSignature?: (response: AlignmentCardResponse) => boolean;
  replay?: ReplayWindowOptions;
  /** How long a sent request waits for its answer. Default 5 minutes. */
  answerTimeoutMs?: number;
}

export type Received =
  | { ok: true; message: ValueCoherenceMessage; card?: CardValidation }
  | { ok: false; reason: ReplayRefusal | 'malformed' | 'unsolicited' | 'bad_signature'; message: string; errors?: ValidationIssue[] };

type Pending = { expects: 'alignment_card_response' | 'coherence_result'; expires: number };

export class HandshakeEndpoint {
  private readonly guard: MessageReplayGuard;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly deps: HandshakeDependencies) {
    this.guard = new MessageReplayGuard(deps.clock, deps.replay);
  }

  private stamp(): string {
    return this.deps.clock.now().toISOString();
  }

  private expect(requestId: string, expects: Pending['expects']): void {
    this.pending.set(`${expects}\u0000${requestId}`, { expects, expires: this.deps.clock.now().getTime() + (this.deps.answerTimeoutMs ?? 5 * 60_000) });
  }

  /** §6.3.1, as the initiator. */
  requestCard(requester: RequesterInfo, taskContext?: TaskContext): AlignmentCardRequest {
    const request: AlignmentCardRequest = { message_type: 'alignment_card_request', request_id: this.deps.newRequestId(), requester, ...(taskContext ? { task_context: taskContext } : {}), timestamp: this.stamp() };
    this.expect(request.request_id, 'alignment_card_response');
    return request;
  }

  /** §6.3.2, as the responder. */
  respondWithCard(request: AlignmentCardRequest, card: AlignmentCard, signature?: MessageSignature): AlignmentCardResponse {
    return { message_type: 'alignment_card_response', request_id: request.request_id, alignment_card: card, ...(signature ? { signature } : {}), timestamp: this.stamp() };
  }

  /** §6.3.3, as the initiator, once it holds the responder's card. */
  checkCoherenceWith(requestId: string, initiatorCard: AlignmentCard, responderCard: AlignmentCard, collaboration: ProposedCollaboration): ValueCoherenceCheck {
    const check: ValueCoherenceCheck = {
      message_type: 'value_coherence_check',
      request_id: requestId,
      initiator_card_id: initiatorCard.card_id,
      responder_card_id: responderCard.card_id,
      proposed_collaboration: collaboration,
      timestamp: this.stamp(),
    };
    this.expect(requestId, 'coherence_result');
    return check;
  }

  /** §6.3.4, as the responder: the check must name both cards it is computed from. */
  answerCoherenceCheck(check: ValueCoherenceCheck, responderCard: AlignmentCard, initiatorCard: AlignmentCard): CoherenceResultMessage {
    if (check.responder_card_id !== responderCard.card_id) throw new Error(`the check names responder card ${check.responder_card_id}, not ${responderCard.card_id}`);
    if (check.initiator_card_id !== initiatorCard.card_id) throw new Error(`the check names initiator card ${check.initiator_card_id}, not ${initiatorCard.card_id}`);
    const taskValues = check.proposed_collaboration.values_intersection ?? [];
    const result = checkCoherence(initiatorCard, responderCard, { taskValues });
    return {
      message_type: 'coherence_result',
      request_id: check.request_id,
      coherence: { compatible: result.compatible, score: result.score, value_alignment: result.value_alignment },
      proceed: result.proceed,
      conditions: result.conditions,
      proposed_resolution: result.proposed_resolution,
      timestamp: this.stamp(),
    };
  }

  /** Checks a received message; `peer` scopes its request id to the sender (e.g. its agent id). */
  receive(raw: unknown, peer = ''): Received {
    const parsed = ValueCoherenceMessage.safeParse(raw);
    if (!parsed.success) return { ok: false, reason: 'malformed', message: 'not a handshake message', errors: issuesFromZod(parsed.error, raw) };
    const message = parsed.data;
    const fresh = this.guard.accept(message, peer);
    if (!fresh.ok) return fresh;
    if (message.message_type === 'alignment_card_request' || message.message_type === 'value_coherence_check') return { ok: true, message };
    const key = `${message.message_type}\u0000${message.request_id}`;
    const pending = this.pending.get(key);
    this.pending.delete(key);
    if (!pending || pending.expires < this.deps.clock.now().getTime()) {
      return { ok: false, reason: 'unsolicited', message: `${message.message_type} answers request ${message.request_id}, which this endpoint did not send or no longer waits for` };
    }
    if (message.message_type === 'coherence_result') return { ok: true, message };
    if (this.deps.verifyCardSignature && !this.deps.verifyCardSignature(message)) {
      return { ok: false, reason: 'bad_signature', message: `the card in response ${message.request_id} is not signed by a trusted key` };
    }
    return { ok: true, message, card: validateCard(message.alignment_card, { now: this.deps.clock.now() }) };
  }
}
