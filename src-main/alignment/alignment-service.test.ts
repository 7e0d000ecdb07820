import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src-shared/errors.js';
import { generateEd25519, signEd25519 } from '../keys/ed25519.js';
import { useTempDirs } from '../testing/temp.js';
import { aapSigner, signAapDocument } from './aap-signatures.js';
import { alignmentHarness, FILES_POLICY, loadTestPolicy, type AlignmentHarness } from './testing/alignment.js';
import { sqliteConnection } from '../store/transaction.js';

// The Alignment page's calls, from the attacker's side too: a process that can write the database
// but not the keyring edits trace rows, cards and signatures; an edited card that does not validate
// must never be put in force.
const tempDir = useTempDirs('silas-alignment-service-');
const open: AlignmentHarness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) h.ledger.close();
});
function harness(policies = { files: loadTestPolicy() } as Record<string, ReturnType<typeof loadTestPolicy> | null>) {
  const h = alignmentHarness(tempDir(), policies);
  open.push(h);
  return h;
}
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'no error';
};

describe('AlignmentService', () => {
  it('lists the agents with their card and counts, and the traces as chart columns', async () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    h.drain();
    expect(h.service.agents().agents).toEqual([
      expect.objectContaining({ agentId: 'mcp:files', cardSource: 'derived', traces: 2, violations: 1, escalations: 0, alerts: 0 }),
    ]);
    const series = await h.service.series('mcp:files', 0, 100);
    expect(series.actions).toEqual(['read_file', 'delete_file']);
    expect(series.verified).toEqual([1, 0]);
    expect(series.valueUsage).toEqual({ principal_benefit: 2 });
    expect((await h.service.series('mcp:files', series.seq[0]!, 100)).actions).toEqual(['delete_file']);
    // The newest N, oldest of them first; more than there are gives them all.
    expect((await h.service.series('mcp:files', 0, 100, 1)).actions).toEqual(['delete_file']);
    expect((await h.service.series('mcp:files', 0, 100, 5)).actions).toEqual(['read_file', 'delete_file']);
  });

  it('explains a trace: each check, the card, the owner signature, and that it is the one the chain holds', () => {
    const h = harness();
    h.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    h.drain();
    const [row] = h.repo.violations('mcp:files', 1);
    const view = h.service.trace(row!.traceId);
    expect(view).toMatchObject({ signature: 'owner', matchesChain: true, auditIndex: row!.auditIndex, sourceIndex: row!.sourceIndex });
    expect(view.checks.map((c) => [c.check, c.passed])).toEqual([
      ['card_reference', true],
      ['card_expiry', true],
      ['autonomy', false],
      ['forbidden', false],
      ['escalation', true],
      ['values', true],
      // Low similarity is reported only for traces with no violation (§7.4).
      ['behavioral_similarity', true],
    ]);
    expect(view.checks.find((c) => c.check === 'forbidden')!.detail).toBe("Action 'delete_file' is forbidden");
  });

  it('sees through a trace row edited in the database, and refuses an entry that is not the trace', () => {
    const h = harness();
    h.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    h.drain();
    const [row] = h.repo.violations('mcp:files', 1);
    // Marked verified behind the app's back: the chain's trace, checked again, says otherwise.
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_traces SET verified = 1 WHERE trace_id = ?').run(row!.traceId);
    expect(h.service.trace(row!.traceId).matchesChain).toBe(false);
    // Pointed at another chain entry: refused, never shown as that trace.
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_traces SET audit_index = ? WHERE trace_id = ?').run(row!.sourceIndex, row!.traceId);
    expect(codeOf(() => h.service.trace(row!.traceId))).toBe(ErrorCode.Corrupt);
    expect(codeOf(() => h.service.trace('tr-nothing'))).toBe(ErrorCode.NotFound);
    // An agent that never decided anything has no card to show or edit.
    expect(codeOf(() => h.service.card('mcp:nobody'))).toBe(ErrorCode.NotFound);
  });

  it('accepts only the owner key over exactly the signed document', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    const [entry] = h.events('aap.trace');
    const trace = entry!.trace as Record<string, unknown>;
    const keys = h.ledger.trustedKeys();
    expect(aapSigner('trace', trace, entry!.signature as string, keys)).toBe(h.ledger.signer!.fingerprint);
    // The same trace with one field changed, a card signature presented for a trace, another key.
    expect(aapSigner('trace', { ...trace, agent_id: 'mcp:other' }, entry!.signature as string, keys)).toBeNull();
    expect(aapSigner('card', trace, entry!.signature as string, keys)).toBeNull();
    const other = generateEd25519();
    const forged = signAapDocument('trace', trace, { sign: (message) => signEd25519(other.privateKey, message) });
    expect(aapSigner('trace', trace, forged, keys)).toBeNull();
    expect(aapSigner('trace', trace, 'ed25519:AAAA', keys)).toBeNull();
    expect(aapSigner('trace', trace, null, keys)).toBeNull();
  });

  it('puts a valid edited card in force, signed; later traces are verified against it', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    const card = h.service.card('mcp:files').card as Record<string, unknown> & { autonomy_envelope: Record<string, unknown> };
    const edited = { ...card, card_id: 'ac-files-edited-1', autonomy_envelope: { ...card.autonomy_envelope, bounded_actions: ['list_directory'], forbidden_actions: ['delete_file', 'read_file'] } };
    const text = JSON.stringify(edited, null, 2);
    expect(h.service.validateCard('mcp:files', text)).toEqual({ ok: true, problems: [] });
    expect(h.service.saveCard('mcp:files', text)).toEqual({ agentId: 'mcp:files', cardId: 'ac-files-edited-1' });
    expect(h.service.card('mcp:files')).toMatchObject({ source: 'edited', signature: 'owner' });
    h.decide('read_file', 'ALLOW');
    h.drain();
    expect(h.events('aap.violation').at(-1)).toMatchObject({ card_id: 'ac-files-edited-1', violations: [expect.objectContaining({ type: 'unbounded_action' }), expect.objectContaining({ type: 'forbidden_action' })] });
    // A policy change no longer replaces the card the person wrote.
    h.ledger.audit.append('aip.policy_reloaded', { server: 'files', session_id: 's', policy_name: 'files', policy_hash: 'b'.repeat(64), previous_hash: 'a'.repeat(64) });
    h.drain();
    expect(h.service.card('mcp:files').source).toBe('edited');
  });

  it('refuses a card that does not validate, names the path, audits it, and keeps the card in force', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    const inForce = h.service.card('mcp:files');
    const card = inForce.card as Record<string, unknown> & { autonomy_envelope: Record<string, unknown> };
    const halfParsable = { ...card, card_id: 'ac-new', autonomy_envelope: { ...card.autonomy_envelope, escalation_triggers: [{ condition: 'tool == "x" and', action: 'escalate', reason: 'r' }] } };
    const result = h.service.validateCard('mcp:files', JSON.stringify(halfParsable));
    expect(result.ok).toBe(false);
    expect(result.problems[0]!.path).toBe('autonomy_envelope.escalation_triggers[0].condition');
    expect(() => h.service.saveCard('mcp:files', JSON.stringify(halfParsable))).toThrow(/card in force stays.*escalation_triggers\[0\]\.condition/);
    expect(h.events('aap.card_refused')).toEqual([{ agent_id: 'mcp:files', problems: [expect.stringMatching(/^autonomy_envelope\.escalation_triggers\[0\]\.condition: /)] }]);
    // Another agent's card, a card id already kept, a missing block, and text that is not JSON.
    expect(h.service.validateCard('mcp:files', JSON.stringify({ ...card, card_id: 'ac-x', agent_id: 'silas' })).problems[0]).toMatchObject({ path: 'agent_id' });
    expect(h.service.validateCard('mcp:files', JSON.stringify(card)).problems[0]).toMatchObject({ path: 'card_id' });
    expect(h.service.validateCard('mcp:files', JSON.stringify({ ...card, card_id: 'ac-y', principal: undefined })).problems[0]).toMatchObject({ path: 'principal' });
    expect(h.service.validateCard('mcp:files', '{\n  "card_id": "x",\n  oops\n}').problems[0]!.message).toBe('line 3, column 3: not valid JSON (InvalidSymbol)');
    expect(h.service.card('mcp:files')).toEqual(inForce);
  });

  it('re-derives the card when the policy changes, and puts the kept version back when it changes back', () => {
    const policies: Record<string, ReturnType<typeof loadTestPolicy> | null> = { files: loadTestPolicy() };
    const h = harness(policies);
    h.decide('read_file', 'ALLOW');
    h.drain();
    const first = h.service.card('mcp:files').card as { card_id: string };
    policies.files = loadTestPolicy(FILES_POLICY.replace('[read_file, list_directory, write_file]', '[read_file, write_file]'));
    h.ledger.audit.append('aip.policy_reloaded', { server: 'files', session_id: 's', policy_name: 'files', policy_hash: 'b'.repeat(64), previous_hash: 'a'.repeat(64) });
    h.drain();
    const second = h.service.card('mcp:files').card as { card_id: string; autonomy_envelope: { bounded_actions: string[] } };
    expect(second.card_id).not.toBe(first.card_id);
    expect(second.autonomy_envelope.bounded_actions).toEqual(['read_file']);
    policies.files = loadTestPolicy();
    h.ledger.audit.append('aip.policy_reloaded', { server: 'files', session_id: 's', policy_name: 'files', policy_hash: 'a'.repeat(64), previous_hash: 'b'.repeat(64) });
    h.drain();
    expect((h.service.card('mcp:files').card as { card_id: string }).card_id).toBe(first.card_id);
    expect(h.events('aap.card_activated').map((e) => e.previous_card_id)).toEqual([null, first.card_id, second.card_id]);
  });

  it('computes the fleet coherence matrix of the agents in force, and a trivial one for a single agent', () => {
    const h = harness();
    expect(h.service.fleet()).toEqual({ agents: [], matrix: [], fleetScore: 1, conflicts: [], outliers: [], clusters: [] });
    h.decide('read_file', 'ALLOW');
    h.drain();
    expect(h.service.fleet()).toMatchObject({ agents: ['mcp:files'], matrix: [[1]], clusters: [['mcp:files']] });
    h.ledger.audit.append('silas.executor.tool_call', { work_item_id: 'w1', attempt: 1, call_index: 0, tool: 'shell', args: {}, gate_decision: 'allow' });
    h.drain();
    const fleet = h.service.fleet();
    expect(fleet.agents).toEqual(['mcp:files', 'silas']);
    expect(fleet.matrix).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(fleet.conflicts).toEqual([]);
    expect(h.events('aap.trace').map((t) => [t.agent_id, t.verified])).toEqual([
      ['mcp:files', true],
      ['silas', true],
    ]);
  });

  it('reads a long series across turns of the event loop: a call waiting meanwhile is answered', async () => {
    const h = harness();
    h.ledger.audit.appendBatch(
      Array.from({ length: 12_000 }, (_, i) => ({
        event: 'aip.decision' as const,
        data: { direction: 'upstream' as const, decision: 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool: 'read_file', args: { path: `/a/${i}` }, server: 'files', session_id: 's' },
      })),
    );
    h.drain();
    const order: string[] = [];
    const series = h.service.series('mcp:files', 0, 100_000).then((s) => {
      order.push('series');
      return s;
    });
    setImmediate(() => order.push('other call'));
    expect((await series).seq).toHaveLength(12_000);
    expect(order).toEqual(['other call', 'series']);
  });

  it('refuses a card edited in the database: the agent is failed closed, the violation it would hide still reported, the tampering audited', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    // A process that can write the database but not the keyring makes the card permit delete_file.
    const row = h.repo.activeCard('mcp:files')!;
    const card = JSON.parse(row.cardJson) as { autonomy_envelope: { bounded_actions: string[]; forbidden_actions: string[] } };
    card.autonomy_envelope.bounded_actions.push('delete_file');
    card.autonomy_envelope.forbidden_actions = [];
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_cards SET card_json = ? WHERE id = ?').run(JSON.stringify(card), row.id);
    // The inspector does not verify a trace against it either.
    expect(codeOf(() => h.service.trace(h.repo.traces('mcp:files', 0, 1)[0]!.traceId))).toBe(ErrorCode.Corrupt);
    const again = h.restart();
    again.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    again.drain();
    expect(again.events('aap.violation').at(-1)).toMatchObject({ violations: expect.arrayContaining([expect.objectContaining({ type: 'card_refused' }), expect.objectContaining({ type: 'unbounded_action' })]) });
    expect(again.events('aap.card_refused')).toEqual([{ agent_id: 'mcp:files', problems: [expect.stringMatching(/not signed by the owner key/)] }]);
    // The card in force is the refused card (every action a violation), never one derived in its place.
    expect(again.service.card('mcp:files')).toMatchObject({ signature: 'owner', refused: expect.stringMatching(/does not hold its owner signature/), card: { autonomy_envelope: { bounded_actions: [], forbidden_actions: [] } } });
  });
});
