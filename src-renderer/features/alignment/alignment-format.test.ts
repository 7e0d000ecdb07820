import { describe, expect, it } from 'vitest';
import {
  agentCountsText,
  cardProblemText,
  cardSourceText,
  checkName,
  driftSummary,
  escalationLabel,
  escalationSummary,
  shortTraceId,
  signatureText,
  similarityLabel,
} from './alignment-format.js';
import { coherenceLevel, conflictIndex, pairKey } from './fleet-format.js';

describe('alignment words', () => {
  it('names the charts with their size, in the words the end-to-end tests look for', () => {
    expect(similarityLabel(1234, 1)).toBe('Similarity to baseline: 1,234 traces, 1 drift alert');
    expect(similarityLabel(1, 0)).toBe('Similarity to baseline: 1 trace, 0 drift alerts');
    expect(escalationLabel(200, 30)).toBe('Escalation rate: 200 traces, 30 escalated (15.0%)');
    expect(escalationLabel(0, 0)).toBe('Escalation rate: 0 traces, 0 escalated (0.0%)');
  });

  it('summarises drift: the baseline forming, then how far the agent is from it', () => {
    expect(driftSummary({ traces: 0, baseline: null, latest: null, threshold: 0.3, alerts: 0 })).toBe('No traces recorded yet.');
    expect(driftSummary({ traces: 5, baseline: null, latest: null, threshold: 0.3, alerts: 0 })).toBe('5 traces; the drift baseline is still forming, so there is no similarity to it yet.');
    expect(driftSummary({ traces: 100, baseline: 10, latest: 0.25, threshold: 0.3, alerts: 2 })).toBe(
      '100 traces; the baseline formed over the first 10 traces. Similarity to it is now 0.25 (alert threshold 0.30, below it). 2 drift alerts.',
    );
    expect(driftSummary({ traces: 100, baseline: 10, latest: 0.9, threshold: 0.3, alerts: 0 })).toMatch(/now 0\.90 \(alert threshold 0\.30\)\. No drift alert\.$/);
  });

  it('summarises escalations overall and over the window', () => {
    expect(escalationSummary(200, 30, 0.1, 50)).toBe('30 of 200 traces escalated to you (15.0%). Over the last 50 traces: 10.0%.');
    expect(escalationSummary(20, 1, 0.05, 50)).toBe('1 of 20 traces escalated to you (5.0%). Over the last 20 traces: 5.0%.');
  });

  it('describes cards, signatures, counts, problems and checks', () => {
    expect(cardSourceText('derived')).toBe('Derived from the policy');
    expect(cardSourceText('edited')).toBe('Edited in the cockpit');
    expect(cardSourceText(null)).toBe('No card yet');
    expect(signatureText('owner')).toBe('Signed with the owner key');
    expect(signatureText('invalid')).toBe('Signature does not verify');
    expect(signatureText('unsigned')).toBe('Unsigned');
    expect(agentCountsText({ traces: 1500, violations: 1, escalations: 0, alerts: 2 })).toBe('1,500 traces · 1 violation · 0 escalations · 2 drift alerts');
    expect(cardProblemText({ path: 'values.declared[2]', message: 'not a standard value', expected: 'a value with a definition' })).toBe(
      'values.declared[2]: not a standard value (expected a value with a definition)',
    );
    expect(cardProblemText({ path: '', message: 'line 3, column 1: not valid JSON (InvalidSymbol)' })).toBe('Line 3, column 1: not valid JSON (InvalidSymbol)');
    expect(checkName('behavioral_similarity')).toBe('Behavioral similarity');
    expect(shortTraceId('tr-0123456789abcdef0123')).toBe('tr-0123456789abcd…');
    expect(shortTraceId('tr-1')).toBe('tr-1');
  });

  it('keys a pair the same whichever agent comes first, and bands coherence at 0.70 and 0.40', () => {
    expect(pairKey('b', 'a')).toBe(pairKey('a', 'b'));
    expect(conflictIndex([{ agentA: 'x', agentB: 'y', values: ['privacy'] }]).get(pairKey('y', 'x'))).toEqual(['privacy']);
    expect([coherenceLevel(0.7), coherenceLevel(0.69), coherenceLevel(0.4), coherenceLevel(0.39)]).toEqual(['high', 'mid', 'mid', 'low']);
  });
});
