import { afterEach, describe, expect, it } from 'vitest';
import { ApTrace } from '../../src-shared/aap/trace.js';
import { useTempDirs } from '../testing/temp.js';
import { aapSigner } from './aap-signatures.js';
import { alignmentHarness, loadTestPolicy, type AlignmentHarness } from './testing/alignment.js';
import { RECORD_PAGE } from './alignment-recorder.js';
import { sqliteConnection } from '../store/transaction.js';

// Real decisions into verified AP-Traces, drift included: a real ledger and owner key; the
// decisions are written as `silas proxy` writes them.
const tempDir = useTempDirs('silas-alignment-');
const open: AlignmentHarness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) h.ledger.close();
});
const harness = () => {
  const h = alignmentHarness(tempDir());
  open.push(h);
  return h;
};

describe('AlignmentRecorder', () => {
  it('turns allow, block and answered-ask decisions into traces verified against the card derived from the policy', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.decide('delete_file', 'BLOCK');
    h.decide('write_file', 'ASK'); // waiting for the person: not a decision yet
    h.decide('write_file', 'ALLOW', { approval: 'approve', approval_nonce: 'nonce-1' });
    h.decide('write_file', 'BLOCK', { approval: 'deny' });
    // Approved, but the proxy refused the token (forged, spent): nothing ran.
    h.decide('write_file', 'BLOCK', { approval: 'approve', approval_rejected: 'the token was already used' });
    h.drain();
    const traces = h.events('aap.trace');
    expect((traces.pop()!.trace as ApTrace).escalation).toMatchObject({ required: true, escalation_status: 'denied' });
    expect(traces.map((t) => [(t.trace as ApTrace).action.name, (t.trace as ApTrace).action.type, (t.trace as ApTrace).action.category, t.verified])).toEqual([
      ['read_file', 'execute', 'bounded', true],
      ['delete_file', 'deny', 'forbidden', true],
      ['write_file', 'execute', 'escalation_trigger', true],
      ['write_file', 'deny', 'escalation_trigger', true],
    ]);
    expect((traces[2]!.trace as ApTrace).escalation).toMatchObject({ required: true, escalation_status: 'approved', escalation_id: 'nonce-1' });
    expect((traces[3]!.trace as ApTrace).escalation).toMatchObject({ required: true, escalation_status: 'denied' });
    for (const t of traces) expect(ApTrace.safeParse(t.trace).success).toBe(true);
    // Each trace names the decision it describes, and the card it was verified against.
    const card = h.service.card('mcp:files');
    expect(card).toMatchObject({ source: 'derived', signature: 'owner' });
    expect(card.card).toMatchObject({ autonomy_envelope: { bounded_actions: ['list_directory', 'read_file'], forbidden_actions: ['delete_file'], escalation_triggers: [{ condition: 'action_name == "write_file"', action: 'escalate' }] } });
    const sources = h.ledger.audit.tail(100).filter((e) => e.event === 'aip.decision');
    expect(traces.map((t) => t.source_index)).toEqual([sources[0]!.index, sources[1]!.index, sources[3]!.index, sources[4]!.index]);
    expect(h.events('aap.card_activated')).toEqual([expect.objectContaining({ agent_id: 'mcp:files', source: 'derived', previous_card_id: null })]);
    expect(h.events('aap.violation')).toEqual([]);
    expect(h.notices).toEqual([]);
    // The traces are entries of the hash chain, and signed with the owner key as the card asks.
    expect(h.ledger.audit.verifyChain()).toMatchObject({ valid: true });
    for (const t of traces) expect(aapSigner('trace', t.trace, t.signature as string, h.ledger.trustedKeys())).toBe(h.ledger.signer!.fingerprint);
  });

  it('a call the agent cancelled while the person had not answered is an unanswered escalation, not a violation nor a "no"', () => {
    const h = harness();
    h.decide('write_file', 'ASK');
    h.decide('write_file', 'BLOCK', { approval: 'cancelled', withdrawn: 'client_cancelled', violation: false });
    h.drain();
    const traces = h.events('aap.trace');
    expect(traces).toHaveLength(1);
    expect((traces[0]!.trace as ApTrace).action).toMatchObject({ name: 'write_file', type: 'deny', category: 'escalation_trigger' });
    expect((traces[0]!.trace as ApTrace).escalation).toMatchObject({ required: true, escalation_status: 'timeout' });
    expect((traces[0]!.trace as ApTrace).context?.metadata).toMatchObject({ approval: 'cancelled', violation: false });
    expect(traces[0]!.verified).toBe(true);
    expect(h.events('aap.violation')).toEqual([]);
  });

  it('reports a decision that breaks the card as a violation entry and a notification', () => {
    const h = harness();
    // Monitor mode lets a blocked tool through; an ask rule bypassed is a missed escalation.
    h.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    h.decide('write_file', 'ALLOW');
    h.drain();
    const violations = h.events('aap.violation');
    expect(violations.map((v) => (v.violations as Array<{ type: string }>).map((x) => x.type))).toEqual([['unbounded_action', 'forbidden_action'], ['unbounded_action', 'missed_escalation']]);
    expect(h.notices.map((n) => [n.kind, n.title])).toEqual([
      ['violation', 'mcp:files broke its Alignment Card'],
      ['violation', 'mcp:files broke its Alignment Card'],
    ]);
    expect(h.notices[1]!.body).toMatch(/^write_file: Action 'write_file' not in bounded_actions; Trigger 'action_name == "write_file"' matched but not escalated/);
    expect(h.service.violations('mcp:files', 10).violations.map((v) => v.actionName)).toEqual(['write_file', 'delete_file']);
  });

  it('raises exactly one drift alert when behaviour changes halfway, and records it in the chain', async () => {
    const h = harness();
    for (let i = 0; i < 12; i += 1) h.decide('read_file', 'ALLOW');
    // Then it starts asking to write, and the person keeps refusing.
    for (let i = 0; i < 8; i += 1) h.decide('write_file', 'BLOCK', { approval: 'deny' });
    h.drain();
    const alerts = h.events('aap.drift_alert');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ agent_id: 'mcp:files', sustained: 3 });
    expect(alerts[0]!.similarity as number).toBeLessThan(0.3);
    const series = await h.service.series('mcp:files', 0, 1000);
    expect(series.alert.reduce((a, b) => a + b, 0)).toBe(1);
    expect(series.alert.indexOf(1)).toBe(14); // the third low trace after the change at 12
    expect(series.driftSimilarity.slice(0, 10)).toEqual(Array(10).fill(null));
    expect(h.notices.filter((n) => n.kind === 'drift')).toHaveLength(1);
    expect(h.ledger.audit.verifyChain()).toMatchObject({ valid: true });
  });

  it('continues after a restart where it stopped: no trace twice, none missed, the drift baseline kept', () => {
    const h = harness();
    for (let i = 0; i < 11; i += 1) h.decide('read_file', 'ALLOW');
    h.drain();
    const again = h.restart();
    for (let i = 0; i < 4; i += 1) again.decide('write_file', 'BLOCK', { approval: 'deny' });
    again.drain();
    again.drain();
    const traces = again.events('aap.trace');
    expect(traces).toHaveLength(15);
    expect(new Set(traces.map((t) => t.trace_id)).size).toBe(15);
    // The baseline of 10 survived the restart: the change is scored against it and alerts once.
    expect(again.events('aap.drift_alert')).toHaveLength(1);
    expect(again.events('aap.card_activated')).toHaveLength(1);
  });

  it('reads a long backlog a page at a time, committing each page (shorter when the page runs out of time)', () => {
    const h = harness();
    h.ledger.audit.appendBatch(
      Array.from({ length: RECORD_PAGE + 20 }, (_, i) => ({
        event: 'aip.decision' as const,
        data: { direction: 'upstream' as const, decision: 'ALLOW', policy_mode: 'enforce', violation: false, method: 'tools/call', tool: 'read_file', args: { path: `/a/${i}` }, server: 'files', session_id: 's' },
      })),
    );
    const before = h.recorder.position;
    const taken = h.recorder.recordPage();
    expect(taken).toBeGreaterThan(0);
    expect(taken).toBeLessThanOrEqual(RECORD_PAGE);
    expect(h.repo.cursor()?.index).toBe(before + taken);
    expect(h.events('aap.trace')).toHaveLength(taken);
    h.drain();
    expect(h.events('aap.trace')).toHaveLength(RECORD_PAGE + 20);
  });

  it('gives a server no policy names a card that bounds nothing, so every action it takes is reported', () => {
    const h = alignmentHarness(tempDir(), {});
    open.push(h);
    h.decide('read_file', 'ALLOW');
    h.drain();
    expect(h.events('aap.violation')[0]).toMatchObject({ agent_id: 'mcp:files', violations: [expect.objectContaining({ type: 'unbounded_action' })] });
  });

  it('ignores what is not an agent decision: responses, other methods, its own entries', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW', { direction: 'downstream' });
    h.decide('read_file', 'ALLOW', { method: 'tools/list', tool: undefined });
    h.ledger.audit.append('operator.note', { text: 'hello' });
    h.drain();
    h.drain();
    expect(h.events('aap.trace')).toEqual([]);
  });

  it('records Silas tool calls, refusals and plan steps against its plan-approval card', () => {
    const h = harness();
    h.ledger.audit.append('silas.executor.tool_call', { work_item_id: 'w1', attempt: 1, call_index: 0, tool: 'shell', args: { command: 'ls' }, gate_decision: 'allow' });
    h.ledger.audit.append('silas.executor.tool_call_blocked', { work_item_id: 'w1', attempt: 1, call_index: 1, tool: 'shell', reason: 'a gate blocked rm -rf' });
    h.ledger.audit.append('silas.executor.step_completed', { work_item_id: 'w1', attempt: 1, step: 2, outputs: { ok: true }, gate_decision: 'allow' });
    h.drain();
    const traces = h.events('aap.trace').map((t) => t.trace as ApTrace);
    expect(traces.map((t) => [t.agent_id, t.action.name, t.action.type, t.escalation?.escalation_status])).toEqual([
      ['silas', 'shell', 'execute', 'approved'],
      ['silas', 'shell', 'deny', 'approved'],
      ['silas', 'plan_step', 'execute', 'approved'],
    ]);
    expect(traces[2]!.action.parameters).toEqual({ step: 2 });
    expect(h.events('aap.trace').every((t) => t.verified)).toBe(true);
    expect(h.service.card('silas').card).toMatchObject({ autonomy_envelope: { escalation_triggers: [{ condition: 'action_type == "execute"', action: 'escalate' }] } });
  });

  it('keeps each server/client pair its own agent, with the card of that client\'s entry', () => {
    const h = alignmentHarness(tempDir(), { files: loadTestPolicy() });
    open.push(h);
    h.decide('read_file', 'ALLOW', { client: 'cursor' });
    h.decide('read_file', 'ALLOW', { client: 'claude-desktop' });
    h.decide('read_file', 'ALLOW');
    h.drain();
    expect(h.service.agents().agents.map((a) => a.agentId)).toEqual(['mcp:claude-desktop/files', 'mcp:cursor/files', 'mcp:files']);
    expect(h.service.card('mcp:cursor/files').card).toMatchObject({ agent_id: 'mcp:cursor/files', extensions: { silas: { server: 'files', client: 'cursor' } } });
  });

  it('does not skip decisions when the cursor is moved ahead in the database, nor record one twice when it is moved back', () => {
    const h = harness();
    h.decide('read_file', 'ALLOW');
    h.drain();
    const moved = h.repo.cursor()!.index + 40;
    sqliteConnection(h.ledger.db).prepare('UPDATE aap_cursor SET last_index = ?').run(moved);
    const again = h.restart();
    for (let i = 0; i < 3; i += 1) again.decide('delete_file', 'ALLOW_MONITOR', { policy_mode: 'monitor', violation: true });
    again.drain();
    expect(again.events('aap.trace')).toHaveLength(4);
    expect(again.events('aap.violation')).toHaveLength(3);
    expect(again.events('aap.state_refused')).toEqual([{ state: 'cursor', reason: expect.stringMatching(/not signed by the owner key/) }]);
    // Moved back to the start (an old, validly signed value would do the same): nothing twice.
    sqliteConnection(again.ledger.db).prepare('UPDATE aap_cursor SET last_index = -1').run();
    const third = again.restart();
    third.drain();
    expect(third.events('aap.trace')).toHaveLength(4);
  });

  it('does not trust a drift baseline edited in the database: the alert it would hide still comes', () => {
    const h = harness();
    for (let i = 0; i < 12; i += 1) h.decide('read_file', 'ALLOW');
    h.drain();
    // Marked as alerted already, so the coming streak would stay silent.
    const { snapshot } = sqliteConnection(h.ledger.db).prepare("SELECT snapshot FROM aap_drift_state WHERE agent_id = 'mcp:files'").get() as { snapshot: string };
    sqliteConnection(h.ledger.db).prepare("UPDATE aap_drift_state SET snapshot = ? WHERE agent_id = 'mcp:files'").run(JSON.stringify({ ...JSON.parse(snapshot), alerted: true, count: 0, reference: [] }));
    const again = h.restart();
    for (let i = 0; i < 14; i += 1) again.decide('read_file', 'ALLOW');
    for (let i = 0; i < 6; i += 1) again.decide('write_file', 'BLOCK', { approval: 'deny' });
    again.drain();
    expect(again.events('aap.state_refused')).toEqual([{ state: 'drift:mcp:files', reason: expect.stringMatching(/not signed by the owner key/) }]);
    expect(again.events('aap.drift_alert')).toHaveLength(1);
  });
});
