import { describe, expect, it } from 'vitest';
import { MemoryChange, MemoryDraft, SourceKind, lowerTaint } from './memory.js';

describe('MemoryDraft', () => {
  it('fills the spec defaults except taint, which a capture must state', () => {
    expect(MemoryDraft.parse({ content: 'hi', source_kind: 'conversation_raw', taint: 'external', token_count: 1 })).toEqual({
      content: 'hi',
      memory_type: 'episode',
      trust_level: 'working',
      taint: 'external',
      source_kind: 'conversation_raw',
      token_count: 1,
      semantic_tags: [],
      entity_refs: [],
      session_id: null,
      valid_from: null,
      valid_until: null,
    });
    expect(MemoryDraft.safeParse({ content: 'hi', source_kind: 'conversation_raw', token_count: 1 }).success).toBe(false);
  });

  it('refuses fields it does not know and counts that are not whole numbers', () => {
    expect(MemoryDraft.safeParse({ content: 'x', source_kind: 'memory_op', taint: 'owner', token_count: 1, scope_id: 'other' }).success).toBe(false);
    expect(MemoryDraft.safeParse({ content: 'x', source_kind: 'memory_op', taint: 'owner', token_count: 1.5 }).success).toBe(false);
    expect(MemoryChange.safeParse({ content: 'x', token_count: 1 }).success).toBe(false);
  });
});

describe('SourceKind', () => {
  it('is a short lowercase word, never free text', () => {
    for (const kind of ['conversation_raw', 'tool_output_raw', 'agent:proxy', 'memory_op']) expect(SourceKind.safeParse(kind).success, kind).toBe(true);
    for (const kind of ['', 'Conversation', 'has space', 'x'.repeat(65), 'line\nbreak']) expect(SourceKind.safeParse(kind).success, kind).toBe(false);
  });
});

describe('lowerTaint', () => {
  it('keeps the less trusted of two taints (§5.12)', () => {
    expect(lowerTaint('owner', 'external')).toBe('external');
    expect(lowerTaint('auth', 'owner')).toBe('auth');
    expect(lowerTaint('owner', 'owner')).toBe('owner');
    expect(lowerTaint('external', 'auth')).toBe('external');
  });
});
