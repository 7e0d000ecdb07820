import { describe, expect, it } from 'vitest';
import { planCard, toolCallCard, toolChangeCard } from '../../testing/review-fixtures.js';
import { cardName, countdownText, EXPIRED_TEXT, formatArgs, formatRemaining, plural, riskSummary, waitingText } from './review-format.js';

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
    expect(countdownText(expiresAt, Date.parse('2026-01-01T12:00:00.000Z'), 'gone')).toBe('Expires in 2:00');
    expect(countdownText(expiresAt, Date.parse('2026-01-01T12:01:59.500Z'), 'gone')).toBe('Expires in 0:01');
  });

  it("says what happens once expired, in each kind's words", () => {
    const at = Date.parse('2026-01-01T12:02:00.000Z');
    expect(countdownText(expiresAt, at, EXPIRED_TEXT.tool_call)).toBe('Expired — the agent gets a timeout');
    expect(countdownText(expiresAt, at, EXPIRED_TEXT.plan)).toBe('Expired — silas run gets a timeout and nothing runs');
    expect(countdownText(expiresAt, at, EXPIRED_TEXT.tool_change)).toBe('Expired — the tool stays hidden and refused');
  });
});

describe('card text', () => {
  it('names the card by its kind and what it is about', () => {
    expect(cardName(toolCallCard(1, { details: { tool: 'write_file', server: 'filesystem' } }))).toBe('Approval request: write_file on filesystem');
    expect(cardName(planCard(1))).toBe('Plan approval: Fix the timezone bug 1');
    expect(cardName(toolChangeCard(1, { details: { tool: 'fetch', server: 'web' } }))).toBe('Tool change: fetch on web');
    expect(cardName(toolCallCard(1, { details: { server: 'web', tool: 'read_page', args: { result_sha256: 'a'.repeat(64) }, rule: 'x-silas-threats.results', reason: 'r', policyName: 'p', subject: 'result' } }))).toBe('Held answer: read_page on web');
  });

  it('pretty-prints arguments', () => {
    expect(formatArgs({ path: '/tmp/x', n: 1 })).toBe('{\n  "path": "/tmp/x",\n  "n": 1\n}');
    expect(formatArgs(null)).toBe('null');
  });

  it('summarises a queue by risk, most severe first', () => {
    const cards = [{ riskLevel: 'medium' }, { riskLevel: 'high' }, { riskLevel: 'irreversible' }, { riskLevel: 'high' }] as const;
    expect(riskSummary(cards)).toBe('1 irreversible, 2 high, 1 medium');
  });

  it('counts what waits, by kind only when there are several kinds', () => {
    expect(waitingText([toolCallCard(1)])).toBe('1 decision waiting');
    expect(waitingText([planCard(1), planCard(2)])).toBe('2 decisions waiting');
    expect(waitingText([toolCallCard(1), planCard(2), toolCallCard(3)])).toBe('3 decisions waiting: 1 plan, 2 tool calls');
    expect(waitingText([toolChangeCard(1), toolCallCard(2), planCard(3), toolChangeCard(4)])).toBe('4 decisions waiting: 1 plan, 1 tool call, 2 tool changes');
  });

  it('words counts with thousands separators', () => {
    expect([plural(1, 'gate'), plural(3, 'gate'), plural(200_000, 'token')]).toEqual(['1 gate', '3 gates', '200,000 tokens']);
  });
});
