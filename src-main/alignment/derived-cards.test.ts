import { afterEach, describe, expect, it } from 'vitest';
import type { AlignmentCard } from '../../src-shared/aap/card.js';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { useTempDirs } from '../testing/temp.js';
import { signAapDocument } from './aap-signatures.js';
import { alignmentHarness, loadTestPolicy, type AlignmentHarness } from './testing/alignment.js';
import { cardFromPolicy, silasCard } from './default-cards.js';

// Cards derived from the policy in force tell the truth (docs/alignment.md "Governed agents and
// their cards"): what the policy lets through without asking is bounded, `tool_rules` allows
// included, and Silas's card id is whole. A card derived by an older derivation and kept in force
// (signed and anchored in its day) is replaced through the owner-signed path, not refused.
const tempDir = useTempDirs('silas-derived-cards-');
const open: AlignmentHarness[] = [];
afterEach(() => {
  for (const h of open.splice(0)) h.ledger.close();
});

/** Reads through `allowed_tools`; `search_files` and `get_file_info` only through `allow` rules, as Claude Desktop wrapping often writes them. */
const RULES_POLICY = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: files
spec:
  allowed_tools: [read_file]
  tool_rules:
    - tool: search_files
      action: allow
    - tool: get_file_info
      action: allow
      allow_args:
        path: "^/home/ada/"
    - tool: write_file
      action: ask
    - tool: delete_file
      action: block
`;

const traceOf = (data: Record<string, unknown>) => data.trace as ApTrace;

/** A card put in force as the keeper does it (owner-signed, anchored in the keyring): what an older version left in a home. */
function putInForce(h: AlignmentHarness, card: AlignmentCard): void {
  const signature = signAapDocument('card', card, h.ledger.signer!);
  h.repo.activate({ agentId: card.agent_id, cardId: card.card_id, cardJson: JSON.stringify(card), source: 'derived', signature, createdAt: new Date().toISOString() });
  h.ledger.seals.anchor('alignment-card', card.agent_id, { card_id: card.card_id, signature, source: 'derived' });
}

describe('cards derived from the policy in force', () => {
  it('bounds the tools a tool_rules allow rule lets through: calling them is not a violation', () => {
    const dir = tempDir();
    const h = alignmentHarness(dir, { files: loadTestPolicy(RULES_POLICY) });
    open.push(h);
    h.decide('search_files', 'ALLOW');
    h.decide('get_file_info', 'ALLOW');
    h.decide('read_file', 'ALLOW');
    h.decide('search_files', 'ALLOW');
    h.decide('get_file_info', 'ALLOW');
    h.drain();
    const traces = h.events('aap.trace');
    expect(traces.map((t) => [traceOf(t).action.name, traceOf(t).action.category, t.verified, t.violations])).toEqual([
      ['search_files', 'bounded', true, []],
      ['get_file_info', 'bounded', true, []],
      ['read_file', 'bounded', true, []],
      ['search_files', 'bounded', true, []],
      ['get_file_info', 'bounded', true, []],
    ]);
    expect(h.events('aap.violation')).toEqual([]);
    expect(h.notices).toEqual([]);
    expect(h.service.card('mcp:files').card).toMatchObject({ autonomy_envelope: { bounded_actions: ['get_file_info', 'read_file', 'search_files'], forbidden_actions: ['delete_file'] } });
  });

  it('replaces a card an older derivation put in force (tool_rules allows left out) through the owner-signed path', () => {
    const dir = tempDir();
    const policy = loadTestPolicy(RULES_POLICY);
    const h = alignmentHarness(dir, { files: policy });
    open.push(h);
    // What the derivation before this fix signed and anchored: only `allowed_tools` bounded, the id from the policy hash.
    const current = cardFromPolicy('files', null, policy, { ownerFingerprint: h.ledger.signer!.fingerprint, now: new Date() });
    const older: AlignmentCard = { ...current, card_id: `ac-mcp-files-${policy.hash.slice(0, 12)}`, autonomy_envelope: { ...current.autonomy_envelope, bounded_actions: ['read_file'] } };
    putInForce(h, older);

    h.decide('search_files', 'ALLOW');
    h.drain();
    const [trace] = h.events('aap.trace');
    expect(trace).toMatchObject({ verified: true, violations: [], card_id: current.card_id });
    expect(h.events('aap.card_activated')).toEqual([expect.objectContaining({ agent_id: 'mcp:files', card_id: current.card_id, source: 'derived', previous_card_id: older.card_id })]);
    // Not tampering: the kept card's signature and anchor held, so nothing was refused or failed closed.
    expect(h.events('aap.card_refused')).toEqual([]);
    expect(h.events('aap.card_failed_closed')).toEqual([]);
    expect(h.service.card('mcp:files')).toMatchObject({ source: 'derived', signature: 'owner', card: { card_id: current.card_id } });

    // A restart keeps the corrected card: the keyring anchors it.
    const again = h.restart();
    again.decide('search_files', 'ALLOW');
    again.drain();
    expect(again.events('aap.trace').at(-1)).toMatchObject({ verified: true, card_id: current.card_id });
    expect(again.events('aap.card_activated')).toHaveLength(1);
  });

  it('keeps a card the person edited: only derived cards follow the derivation', () => {
    const dir = tempDir();
    const policy = loadTestPolicy(RULES_POLICY);
    const h = alignmentHarness(dir, { files: policy });
    open.push(h);
    const current = cardFromPolicy('files', null, policy, { ownerFingerprint: h.ledger.signer!.fingerprint, now: new Date() });
    h.cards.saveEdited('mcp:files', { ...current, card_id: 'ac-files-mine', autonomy_envelope: { ...current.autonomy_envelope, bounded_actions: ['read_file'] } });
    h.decide('search_files', 'ALLOW');
    h.drain();
    expect(h.events('aap.trace').at(-1)).toMatchObject({ card_id: 'ac-files-mine', verified: false, violations: ['unbounded_action'] });
  });
});

describe("Silas's card id", () => {
  const silasStep = (h: AlignmentHarness) =>
    h.ledger.audit.append('silas.executor.tool_call', { work_item_id: 'wi-1', attempt: 1, call_index: 0, tool: 'read_file', args: { path: '/tmp/x' }, gate_decision: 'allow' } as never);

  it('is whole where it is stored, traced and shown', () => {
    const h = alignmentHarness(tempDir());
    open.push(h);
    silasStep(h);
    h.drain();
    expect(h.events('aap.trace')).toEqual([expect.objectContaining({ agent_id: 'silas', card_id: 'ac-silas-plan-approval', verified: true })]);
    expect(h.repo.activeCard('silas')?.cardId).toBe('ac-silas-plan-approval');
    expect(h.service.card('silas')).toMatchObject({ card: { card_id: 'ac-silas-plan-approval' } });
    expect(h.service.agents().agents.find((a) => a.agentId === 'silas')).toMatchObject({ cardId: 'ac-silas-plan-approval' });
  });

  it('replaces the cut id an older version put in force', () => {
    const h = alignmentHarness(tempDir());
    open.push(h);
    const card = silasCard({ ownerFingerprint: h.ledger.signer!.fingerprint, now: new Date() });
    putInForce(h, { ...card, card_id: 'ac-silas-plan-approva' });
    silasStep(h);
    h.drain();
    expect(h.events('aap.trace')).toEqual([expect.objectContaining({ card_id: 'ac-silas-plan-approval', verified: true })]);
    expect(h.events('aap.card_activated')).toEqual([expect.objectContaining({ agent_id: 'silas', card_id: 'ac-silas-plan-approval', previous_card_id: 'ac-silas-plan-approva' })]);
    expect(h.events('aap.card_failed_closed')).toEqual([]);
  });
});
