import { describe, expect, it } from 'vitest';
import { AlignmentCard } from '../../src-shared/aap/card.js';
import { HandshakeEndpoint, type HandshakeDependencies } from './handshake.js';
import { MessageReplayGuard, type Clock } from './replay-guard.js';

class TestClock implements Clock {
  constructor(public time = Date.parse('2026-03-01T12:00:00Z')) {}
  now(): Date {
    return new Date(this.time);
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

const cardOf = (card_id: string, declared: string[]) =>
  AlignmentCard.parse({
    card_id,
    agent_id: `agent-${card_id}`,
    issued_at: '2026-01-01T00:00:00Z',
    principal: { type: 'human', relationship: 'delegated_authority' },
    values: { declared },
    autonomy_envelope: { bounded_actions: ['search'], escalation_triggers: [] },
    audit_commitment: { retention_days: 30, queryable: false },
  });

function endpoints(clock: TestClock, extra: Partial<HandshakeDependencies> = {}) {
  let n = 0;
  const deps = (name: string): HandshakeDependencies => ({ clock, newRequestId: () => `req-${name}-${(n += 1)}`, ...extra });
  return { initiator: new HandshakeEndpoint(deps('a')), responder: new HandshakeEndpoint(deps('b')) };
}

const mine = cardOf('ac-initiator', ['principal_benefit', 'transparency']);
const theirs = cardOf('ac-responder', ['principal_benefit', 'transparency', 'honesty']);

describe('value coherence handshake (§6.2–§6.3)', () => {
  it('runs the four messages with ids and timestamps, and answers with the coherence of the two cards', () => {
    const clock = new TestClock();
    const { initiator, responder } = endpoints(clock);
    const request = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id }, { task_type: 'product_comparison', values_required: ['transparency'] });
    expect(request).toMatchObject({ message_type: 'alignment_card_request', request_id: 'req-a-1', timestamp: '2026-03-01T12:00:00.000Z' });
    expect(responder.receive(request, 'agent-a')).toMatchObject({ ok: true });

    clock.advance(1000);
    const response = responder.respondWithCard(request, theirs);
    const received = initiator.receive(response, 'agent-b');
    expect(received).toMatchObject({ ok: true, card: { ok: true } });

    const check = initiator.checkCoherenceWith(request.request_id, mine, theirs, { task_type: 'product_comparison', values_intersection: ['principal_benefit', 'transparency'] });
    expect(responder.receive(check, 'agent-a')).toMatchObject({ ok: true });
    const result = responder.answerCoherenceCheck(check, theirs, mine);
    expect(result).toMatchObject({ message_type: 'coherence_result', request_id: 'req-a-1', proceed: true, coherence: { compatible: true, score: 1, value_alignment: { matched: ['principal_benefit', 'transparency'] } } });
    expect(initiator.receive(result, 'agent-b')).toMatchObject({ ok: true });
  });

  it('refuses a replayed message', () => {
    const clock = new TestClock();
    const { initiator, responder } = endpoints(clock);
    const request = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id });
    expect(responder.receive(request, 'agent-a').ok).toBe(true);
    clock.advance(10);
    expect(responder.receive(request, 'agent-a')).toMatchObject({ ok: false, reason: 'replayed' });
    expect(responder.receive(structuredClone(request), 'agent-a')).toMatchObject({ ok: false, reason: 'replayed' });
  });

  it('refuses stale, future and undated messages', () => {
    const clock = new TestClock();
    const { initiator, responder } = endpoints(clock);
    const request = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id });
    clock.advance(6 * 60_000);
    expect(responder.receive(request)).toMatchObject({ ok: false, reason: 'stale' });
    const future = { ...request, request_id: 'req-future', timestamp: new Date(clock.time + 120_000).toISOString() };
    expect(responder.receive(future)).toMatchObject({ ok: false, reason: 'future' });
    const { timestamp: _dropped, ...undated } = { ...request, request_id: 'req-undated' };
    expect(responder.receive(undated)).toMatchObject({ ok: false, reason: 'missing_timestamp' });
  });

  it('accepts an answer only to a request it sent, once, before the answer timeout', () => {
    const clock = new TestClock();
    const { initiator, responder } = endpoints(clock, { answerTimeoutMs: 60_000 });
    const request = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id });
    const forged = responder.respondWithCard({ ...request, request_id: 'req-never-sent' }, theirs);
    expect(initiator.receive(forged)).toMatchObject({ ok: false, reason: 'unsolicited' });
    const response = responder.respondWithCard(request, theirs);
    expect(initiator.receive(response).ok).toBe(true);
    const again = { ...response, timestamp: new Date(clock.time + 1).toISOString() };
    expect(initiator.receive(again)).toMatchObject({ ok: false, reason: 'replayed' });
    expect(initiator.receive(again, 'another-peer')).toMatchObject({ ok: false, reason: 'unsolicited' });
    const late = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id });
    clock.advance(61_000);
    expect(initiator.receive(responder.respondWithCard(late, theirs))).toMatchObject({ ok: false, reason: 'unsolicited' });
  });

  it('checks the card response with the injected signature verifier and validates the card', () => {
    const clock = new TestClock();
    const { initiator, responder } = endpoints(clock, { verifyCardSignature: (response) => response.signature?.value === 'good' });
    const first = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id });
    expect(initiator.receive(responder.respondWithCard(first, theirs, { algorithm: 'Ed25519', value: 'bad', key_id: 'k' }))).toMatchObject({ ok: false, reason: 'bad_signature' });
    const second = initiator.requestCard({ agent_id: mine.agent_id, card_id: mine.card_id });
    const custom = { ...theirs, values: { declared: ['mystery'] } };
    const received = initiator.receive(responder.respondWithCard(second, custom, { algorithm: 'Ed25519', value: 'good', key_id: 'k' }));
    expect(received).toMatchObject({ ok: true, card: { ok: false, errors: [expect.objectContaining({ path: 'values.declared[0]' })] } });
  });

  it('refuses malformed messages with their paths, and checks that a coherence check names both cards', () => {
    const clock = new TestClock();
    const { initiator, responder } = endpoints(clock);
    expect(responder.receive({ message_type: 'alignment_card_request', request_id: 7 })).toMatchObject({ ok: false, reason: 'malformed', errors: [expect.objectContaining({ path: 'request_id' }), expect.objectContaining({ path: 'requester' })] });
    const check = initiator.checkCoherenceWith('req-x', mine, theirs, { task_type: 't' });
    expect(() => responder.answerCoherenceCheck(check, mine, theirs)).toThrow(/names responder card ac-responder, not ac-initiator/);
  });
});

describe('replay window', () => {
  it('keeps two peers’ ids apart and refuses when full rather than forgetting', () => {
    const clock = new TestClock();
    const guard = new MessageReplayGuard(clock, { capacity: 2 });
    const at = clock.now().toISOString();
    expect(guard.accept({ message_type: 'x', request_id: '1', timestamp: at }, 'a').ok).toBe(true);
    expect(guard.accept({ message_type: 'x', request_id: '1', timestamp: at }, 'b').ok).toBe(true);
    expect(guard.accept({ message_type: 'x', request_id: '2', timestamp: at }, 'a')).toMatchObject({ ok: false, reason: 'window_full' });
    clock.advance(5 * 60_000 + 1);
    expect(guard.accept({ message_type: 'x', request_id: '2', timestamp: clock.now().toISOString() }, 'a').ok).toBe(true);
    expect(guard.size).toBe(1);
  });
});
