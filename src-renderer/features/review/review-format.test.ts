import { describe, expect, it } from 'vitest';
import { pendingApproval } from '../../test/approval-fixtures.js';
import { actionsFor, cardName, countdownText, formatArgs, formatRemaining, intentLine, riskSummary } from './review-format.js';

describe('formatRemaining', () => {
  it('shows minutes and seconds, rounding up to whole seconds', () => {
    expect(formatRemaining(120_000)).toBe('2:00');
    expect(formatRemaining(119_001)).toBe('2:00');
    expect(formatRemaining(119_000)).toBe('1:59');
    expect(formatRemaining(9_000)).toBe('0:09');
    expect(formatRemaining(1)).toBe('0:01');
  });

  it('adds hours from an hour on', () => {
    expect(formatRemaining(3_600_000)).toBe('1:00:00');
    expect(formatRemaining(3_725_000)).toBe('1:02:05');
  });

  it('says expired at or after the deadline and for nonsense', () => {
    expect(formatRemaining(0)).toBe('expired');
    expect(formatRemaining(-5000)).toBe('expired');
    expect(formatRemaining(Number.NaN)).toBe('expired');
  });
});

describe('countdownText', () => {
  const expiresAt = '2026-01-01T12:02:00.000Z';
  it('counts down to expiresAt', () => {
    expect(countdownText(expiresAt, Date.parse('2026-01-01T12:00:00.000Z'))).toBe('Expires in 2:00');
    expect(countdownText(expiresAt, Date.parse('2026-01-01T12:01:59.500Z'))).toBe('Expires in 0:01');
  });

  it('says what happens once expired', () => {
    expect(countdownText(expiresAt, Date.parse('2026-01-01T12:02:00.000Z'))).toBe('Expired — the agent gets a timeout');
  });
});

describe('card text', () => {
  it('names the card and states its intent', () => {
    const card = pendingApproval(1, { tool: 'write_file', server: 'filesystem' });
    expect(cardName(card)).toBe('Approval request: write_file on filesystem');
    expect(intentLine(card)).toBe('write_file on filesystem wants to run');
  });

  it('pretty-prints arguments', () => {
    expect(formatArgs({ path: '/tmp/x', n: 1 })).toBe('{\n  "path": "/tmp/x",\n  "n": 1\n}');
    expect(formatArgs(null)).toBe('null');
  });

  it('summarises a queue by risk, most severe first', () => {
    const cards = [{ risk: 'medium' }, { risk: 'high' }, { risk: 'critical' }, { risk: 'high' }] as const;
    expect(riskSummary(cards)).toBe('1 critical, 2 high, 1 medium');
  });
});

describe('actionsFor (CTA order, §0.5.3)', () => {
  it('recommends Allow once for low and medium risk, Always allow in the middle and Deny last', () => {
    for (const risk of ['low', 'medium'] as const) {
      const actions = actionsFor(risk);
      expect(actions.map((a) => [a.label, a.tone])).toEqual([
        ['Allow once', 'recommended'],
        ['Always allow', 'secondary'],
        ['Deny', 'secondary'],
      ]);
    }
  });

  it('recommends Deny first for high and critical risk, both allowing actions after it in the danger colour', () => {
    for (const risk of ['high', 'critical'] as const) {
      expect(actionsFor(risk).map((a) => [a.label, a.tone])).toEqual([
        ['Deny', 'recommended'],
        ['Always allow', 'danger'],
        ['Allow once', 'danger'],
      ]);
    }
  });

  it('never recommends Always allow and never puts it first', () => {
    for (const risk of ['low', 'medium', 'high', 'critical'] as const) {
      const actions = actionsFor(risk);
      expect(actions.findIndex((a) => a.decision === 'always_allow')).toBe(1);
      expect(actions.filter((a) => a.tone === 'recommended')).toHaveLength(1);
    }
  });

  it('labels each action with its consequence', () => {
    const byLabel = Object.fromEntries(actionsFor('medium').map((a) => [a.label, a]));
    expect(byLabel['Allow once']).toMatchObject({ decision: 'allow_once', consequence: 'Runs this call once; signed with your key' });
    expect(byLabel['Always allow']).toMatchObject({
      decision: 'always_allow',
      consequence: 'Runs this call now and every identical call (same tool, same arguments, this server) without asking, until you revoke it on the Policies page',
    });
    expect(byLabel['Deny']).toMatchObject({ decision: 'deny', consequence: 'The agent receives an error (-32004)' });
  });
});
