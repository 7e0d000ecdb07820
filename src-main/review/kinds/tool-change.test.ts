import { describe, expect, it } from 'vitest';
import { createTestLedger } from '../../testing/ledger.js';
import { memorySeals } from '../../testing/seals.js';
import { useTempDirs } from '../../testing/temp.js';
import { toolPinSealer } from '../../mcp/tool-pin-seals.js';
import { ToolPinRepository } from '../../store/repositories/tool-pins.js';
import { sqliteConnection } from '../../store/transaction.js';
import { DecisionCard } from '../../../src-shared/schemas/review.js';
import { ToolChangeDecisions } from './tool-change.js';

/*
 * Tool definitions waiting in Review: a definition held at first sight (the detectors flagged it)
 * and a changed one, each a high-risk card naming what was found; the person's decision pins
 * the definition or keeps it blocked, audited in the same transaction.
 */

const tempDir = useTempDirs('silas-tool-change-');
const FINDING = { rule: 'hidden_instructions', description: 'tells the agent to read a key file', path: 'description', excerpt: 'read ~/.ssh/id_rsa\u200b' };

function setup() {
  const ledger = createTestLedger(tempDir());
  const sealer = toolPinSealer(memorySeals().seals);
  const pins = new ToolPinRepository(ledger.db, sealer);
  const decisions = new ToolChangeDecisions(ledger.db, ledger.audit, sealer);
  const entries = (event: string) => [...ledger.audit.since()].filter((e) => e.event === event).map((e) => e.data);
  return { ledger, pins, decisions, entries };
}

describe('ToolChangeDecisions', () => {
  it('a first-sight hold is a high-risk card that names the rule and where it was found, with the findings in its details', () => {
    const { pins, decisions } = setup();
    pins.observe('web', 'fetch', 'sha256:p', { hold: true, findings: [FINDING] });
    const [card] = decisions.cards();
    expect(DecisionCard.parse(card)).toEqual(card);
    expect(card).toMatchObject({
      kind: 'tool_change',
      intent: 'Allow fetch on web, whose definition looks poisoned',
      riskLevel: 'high',
      details: { server: 'web', tool: 'fetch', approvedHash: null, pendingHash: 'sha256:p', firstSight: true, findings: [FINDING] },
    });
    expect(card!.riskReasons).toContain('the definition matches the detector rule hidden_instructions');
    expect(card!.rationale).toContain('hidden_instructions in description');
    // High risk: keeping it blocked is recommended and comes first.
    expect(card!.actions.map((a) => [a.choice, a.role])).toEqual([
      ['keep_blocked', 'recommended'],
      ['approve', 'alternative'],
    ]);
    expect(card!.actions[1]!.label).toBe('Offer the tool');
    expect(card!.notification?.title).toBe('Allow fetch on web? Its definition looks poisoned');
  });

  it('approving pins the held definition, sealed, audited in the same transaction; the card leaves Review', () => {
    const { pins, decisions, entries } = setup();
    pins.observe('web', 'fetch', 'sha256:p', { hold: true, findings: [FINDING] });
    const card = decisions.card(decisions.cards()[0]!.id)!;
    expect(decisions.decide(card, 'approve')).toBe('approved');
    expect(pins.get('web', 'fetch')).toMatchObject({ approvedHash: 'sha256:p', sealed: true, pendingHash: null });
    expect(pins.observe('web', 'fetch', 'sha256:p')).toEqual({ kind: 'unchanged' });
    expect(entries('mcp.tool_held_approved')).toEqual([{ server: 'web', tool: 'fetch', hash: 'sha256:p', rules: ['hidden_instructions'] }]);
    expect(decisions.cards()).toEqual([]);
  });

  it('keeping it blocked leaves the tool held (nothing approved) and takes the card out of Review', () => {
    const { pins, decisions, entries } = setup();
    pins.observe('web', 'fetch', 'sha256:p', { hold: true, findings: [FINDING] });
    const card = decisions.cards()[0]!;
    expect(decisions.decide(card, 'keep_blocked')).toBe('denied');
    expect(pins.get('web', 'fetch')).toMatchObject({ approvedHash: null, declinedHash: 'sha256:p' });
    expect(pins.observe('web', 'fetch', 'sha256:p', { hold: true })).toMatchObject({ kind: 'held', fresh: false });
    expect(entries('mcp.tool_held_declined')).toEqual([{ server: 'web', tool: 'fetch', declined_hash: 'sha256:p', rules: ['hidden_instructions'] }]);
    expect(decisions.cards()).toEqual([]);
  });

  it('a changed definition with findings says so; without findings its card is as before', () => {
    const { pins, decisions } = setup();
    pins.observe('web', 'fetch', 'sha256:a');
    pins.observe('web', 'fetch', 'sha256:b', { findings: [FINDING] });
    pins.observe('web', 'plain', 'sha256:a');
    pins.observe('web', 'plain', 'sha256:b');
    const [changed, plain] = decisions.cards();
    expect(changed).toMatchObject({ intent: 'Accept the changed definition of fetch on web', details: { approvedHash: 'sha256:a', findings: [FINDING] } });
    expect(changed!.rationale).toContain('The detectors flag the new definition: hidden_instructions in description.');
    expect(plain!.details).toEqual({ server: 'web', tool: 'plain', approvedHash: 'sha256:a', pendingHash: 'sha256:b' });
  });

  it('findings rewritten in the database change what the card says, not what approving pins', () => {
    const { ledger, pins, decisions } = setup();
    pins.observe('web', 'fetch', 'sha256:p', { hold: true, findings: [FINDING] });
    sqliteConnection(ledger.db).prepare("UPDATE mcp_tool_pins SET pending_findings = '[]'").run();
    const card = decisions.cards()[0]!;
    expect(card.details).toMatchObject({ findings: [] });
    expect(decisions.decide(card, 'approve')).toBe('approved');
    expect(pins.get('web', 'fetch')).toMatchObject({ approvedHash: 'sha256:p', sealed: true });
  });
});
