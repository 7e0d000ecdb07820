import type { ContextItemKind, ContextZone } from '../../../../src-shared/silas/context.js';
import type { TaintLevel } from '../../../../src-shared/silas/execution.js';
import type { ContextItemDraft } from '../context-manager.js';
import type { TokenCounter } from '../token-counter.js';

/** §5.13's test double: one token per whitespace-separated word (Python's `len(text.split())`). */
export class FakeTokenCounter implements TokenCounter {
  count(text: string): number {
    const trimmed = text.trim();
    return trimmed === '' ? 0 : trimmed.split(/\s+/u).length;
  }
}

/** `n` words: exactly `n` tokens for the FakeTokenCounter. */
export function words(n: number, word = 'w'): string {
  return Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ');
}

/** A fixed clock: every item created at the same instant, so renders are byte-stable. */
export const FIXED_NOW = new Date('2026-01-15T10:00:00.000Z');

export function draft(
  ctx_id: string,
  zone: ContextZone,
  kind: ContextItemKind,
  content: string,
  extra: Partial<Omit<ContextItemDraft, 'ctx_id' | 'zone' | 'kind' | 'content'>> & { taint?: TaintLevel } = {},
): ContextItemDraft {
  return { ctx_id, zone, kind, content, turn_number: 1, source: 'channel:web', taint: 'owner', ...extra };
}
