import { describe, expect, it } from 'vitest';
import { ContextItem, type ContextItemInput } from '../../../src-shared/silas/context.js';
import {
  DEFAULT_TRIVIAL_ACK,
  evictionOrder,
  isTrivialAcknowledgement,
  maskedPlaceholder,
  messageText,
  parseToolResultSource,
  shouldMask,
  statelessPattern,
  toolResultSource,
} from './eviction.js';

const item = (fields: Partial<ContextItemInput>): ContextItem =>
  ContextItem.parse({
    ctx_id: 'c1',
    zone: 'chronicle',
    content: 'text',
    token_count: 1,
    created_at: '2026-01-15T10:00:00.000Z',
    turn_number: 1,
    source: 'channel:web',
    taint: 'owner',
    kind: 'message',
    ...fields,
  });

describe('tool result sources and the masked placeholder (§5.7)', () => {
  it('round-trips the tool name and outcome, even a name containing ":"', () => {
    expect(toolResultSource('shell_exec', 'failed')).toBe('tool:shell_exec:failed');
    expect(parseToolResultSource('tool:github:create_issue:succeeded')).toEqual({ toolName: 'github:create_issue', outcome: 'succeeded' });
    expect(parseToolResultSource('tool:shell_exec')).toBeNull();
    expect(parseToolResultSource('channel:web')).toBeNull();
  });

  it('writes the placeholder of §5.7 with the token count before masking', () => {
    const ok = item({ kind: 'tool_result', source: toolResultSource('shell_exec', 'succeeded'), token_count: 847 });
    expect(maskedPlaceholder(ok)).toBe('[Result of shell_exec (SUCCEEDED) — 847 tokens — see memory for details]');
    const failed = item({ kind: 'tool_result', source: toolResultSource('python_exec', 'failed'), token_count: 12 });
    expect(maskedPlaceholder(failed)).toBe('[Result of python_exec (FAILED) — 12 tokens — see memory for details]');
  });

  it('masks tool results older than current turn - observation_mask_after_turns, strictly', () => {
    const at = (turn_number: number, extra: Partial<ContextItemInput> = {}) =>
      item({ kind: 'tool_result', source: 'tool:t:succeeded', turn_number, ...extra });
    expect(shouldMask(at(4), 10, 5)).toBe(true);
    expect(shouldMask(at(5), 10, 5)).toBe(false);
    expect(shouldMask(at(4, { masked: true }), 10, 5)).toBe(false);
    expect(shouldMask(at(4, { pinned: true }), 10, 5)).toBe(false);
    expect(shouldMask(item({ kind: 'message', turn_number: 1 }), 10, 5)).toBe(false);
    expect(shouldMask(at(9), 10, 0)).toBe(true);
  });
});

describe('trivial acknowledgements (§5.7 Tier 1 step 2)', () => {
  const ack = (content: string, extra: Partial<ContextItemInput> = {}) => item({ content, token_count: 3, turn_number: 2, ...extra });

  it('strips the speaker prefix the Stream writes before matching', () => {
    expect(messageText('[owner] alice: thanks!')).toBe('thanks!');
    expect(messageText('[external] +1 555: 1234: ok')).toBe('1234: ok');
    expect(messageText('Silas: Got it.')).toBe('Got it.');
    expect(messageText('ok')).toBe('ok');
  });

  it.each(['ok', 'OK', 'thanks!', 'got it.', 'Sure', 'yes', 'no?!', '👍', '[auth] bob: ok', 'Silas: got it'])('drops %j', (text) => {
    expect(isTrivialAcknowledgement(ack(text), 5, DEFAULT_TRIVIAL_ACK)).toBe(true);
  });

  it.each(['ok, but use the other branch', 'thank you', 'yes please deploy', 'no way'])('keeps %j', (text) => {
    expect(isTrivialAcknowledgement(ack(text), 5, DEFAULT_TRIVIAL_ACK)).toBe(false);
  });

  it('keeps pinned items, items of 20 tokens or more, other kinds, other zones and the current turn', () => {
    expect(isTrivialAcknowledgement(ack('ok', { pinned: true }), 5, DEFAULT_TRIVIAL_ACK)).toBe(false);
    expect(isTrivialAcknowledgement(ack('ok', { token_count: 20 }), 5, DEFAULT_TRIVIAL_ACK)).toBe(false);
    expect(isTrivialAcknowledgement(ack('ok', { token_count: 19 }), 5, DEFAULT_TRIVIAL_ACK)).toBe(true);
    expect(isTrivialAcknowledgement(ack('ok', { kind: 'tool_result' }), 5, DEFAULT_TRIVIAL_ACK)).toBe(false);
    expect(isTrivialAcknowledgement(ack('ok', { zone: 'workspace' }), 5, DEFAULT_TRIVIAL_ACK)).toBe(false);
    expect(isTrivialAcknowledgement(ack('ok', { turn_number: 5 }), 5, DEFAULT_TRIVIAL_ACK)).toBe(false);
  });

  it('ignores a global flag on a configured pattern (no lastIndex state between items)', () => {
    const pattern = statelessPattern(/^ok$/g);
    expect([1, 2, 3].map(() => isTrivialAcknowledgement(ack('ok'), 5, pattern))).toEqual([true, true, true]);
  });
});

describe('evictionOrder (§5.7 Tier 1 step 4)', () => {
  it('gives up the oldest chronicle items first, never pinned ones', () => {
    const items = [
      item({ ctx_id: 'b', turn_number: 3 }),
      item({ ctx_id: 'a', turn_number: 1, pinned: true }),
      item({ ctx_id: 'c', turn_number: 2, created_at: '2026-01-15T10:00:02.000Z' }),
      item({ ctx_id: 'd', turn_number: 2, created_at: '2026-01-15T10:00:01.000Z' }),
    ];
    expect(evictionOrder('chronicle', items).map((i) => i.ctx_id)).toEqual(['d', 'c', 'b']);
  });

  it('gives up the least relevant memories first, then the oldest, ties in insertion order', () => {
    const items = [
      item({ ctx_id: 'm1', zone: 'memory', kind: 'memory', relevance: 0.9 }),
      item({ ctx_id: 'm2', zone: 'memory', kind: 'memory', relevance: 0.2, turn_number: 4 }),
      item({ ctx_id: 'm3', zone: 'memory', kind: 'memory', relevance: 0.2, turn_number: 3 }),
      item({ ctx_id: 'm4', zone: 'memory', kind: 'memory', relevance: 0.9 }),
    ];
    expect(evictionOrder('memory', items).map((i) => i.ctx_id)).toEqual(['m3', 'm2', 'm1', 'm4']);
  });

  it('gives up completed work (execution results) before active plans in the workspace', () => {
    const items = [
      item({ ctx_id: 'plan', zone: 'workspace', kind: 'plan', turn_number: 1 }),
      item({ ctx_id: 'done2', zone: 'workspace', kind: 'execution_result', turn_number: 6 }),
      item({ ctx_id: 'done1', zone: 'workspace', kind: 'execution_result', turn_number: 5 }),
      item({ ctx_id: 'sub', zone: 'workspace', kind: 'subscription', turn_number: 2 }),
    ];
    expect(evictionOrder('workspace', items).map((i) => i.ctx_id)).toEqual(['done1', 'done2', 'plan', 'sub']);
  });
});
