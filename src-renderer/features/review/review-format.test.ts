import { describe, expect, it } from 'vitest';
import { memoryPromotionCard, planCard, toolCallCard, toolChangeCard } from '../../testing/review-fixtures.js';
import { cardName, countdownText, excerpt, EXPIRED_TEXT, formatArgs, formatRemaining, plural, riskSummary, waitingText } from './review-format.js';

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

describe('memory promotion text', () => {
  it('names the card by an excerpt of the memory, on one line, without characters that hide text', () => {
    expect(cardName(memoryPromotionCard(1))).toBe('Memory to verify: The owner indents code with tabs, never spaces (1)');
    expect(cardName(memoryPromotionCard(2, { details: { content: 'line one\n\tline\u202e two' } }))).toBe('Memory to verify: line one line two');
    expect(cardName(memoryPromotionCard(3, { details: { content: 'x'.repeat(200) } }))).toBe(`Memory to verify: ${'x'.repeat(79)}…`);
  });

  it('cuts an excerpt without leaving half a surrogate pair', () => {
    expect(excerpt(`${'a'.repeat(8)}😀😀`, 10)).toBe(`${'a'.repeat(8)}…`);
    expect(excerpt('short', 10)).toBe('short');
  });

  it('says what expiry would mean and counts memories to verify among other kinds', () => {
    expect(EXPIRED_TEXT.memory_promotion).toBe('Expired — the memory stays unverified');
    expect(waitingText([memoryPromotionCard(1), memoryPromotionCard(2), planCard(3)])).toBe('3 decisions waiting: 1 plan, 2 memories to verify');
    expect(waitingText([memoryPromotionCard(1), toolCallCard(2)])).toBe('2 decisions waiting: 1 tool call, 1 memory to verify');
  });
});
