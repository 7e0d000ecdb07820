import { canonicalJson } from '../../../src-shared/canonical.js';
import type { MemoryItem } from '../../../src-shared/silas/memory.js';
import type { StoredMemory } from '../../store/repositories/memory-bundle.js';

/*
 * What an import may do to a memory already in the home (spec 002 §3.8, §5.12;
 * docs/silas/memory-portability.md "Trust rules"). An import is the owner's act at the terminal,
 * so it may bring in memories of any trust level; what it may never do is change or remove a
 * constitutional memory (not modifiable at runtime), or change a verified one, which takes the
 * owner's signed decision in Review. A row whose seal does not hold is trusted as nothing and may
 * be replaced.
 */

export type ImportAction = 'insert' | 'update' | 'unchanged';

export interface ImportRefusal {
  memory_id: string;
  trust_level: 'constitutional' | 'verified';
  /** The rule, in words, with the section it comes from. */
  rule: string;
  line: number | null;
}

/** How often a memory was recalled is this home's own count, not what the memory says. */
const USAGE_FIELDS = new Set<string>(['access_count', 'last_accessed']);

function withoutUsage(item: MemoryItem): string {
  return canonicalJson(Object.fromEntries(Object.entries(item).filter(([key]) => !USAGE_FIELDS.has(key))));
}

const CONSTITUTIONAL_RULE = 'a constitutional memory cannot be changed or removed at runtime, an import included (spec 002 §3.8)';
const VERIFIED_RULE = "a verified memory changes only by the owner's signed decision in Review, not by an import (spec 002 §3.8)";

export function protectedRule(trust: 'constitutional' | 'verified'): string {
  return trust === 'constitutional' ? CONSTITUTIONAL_RULE : VERIFIED_RULE;
}

/** The trust level the runtime gives a stored row: a seal that does not hold leaves it none. */
function trustOf(stored: StoredMemory): MemoryItem['trust_level'] {
  return stored.sealed ? stored.item.trust_level : 'working';
}

/**
 * What the import does with `incoming` given what is stored under its id. A protected memory the
 * bundle holds unchanged (usage counts aside) is left as it is, counts included; any other
 * difference is refused.
 */
export function judgeImport(stored: StoredMemory | null, incoming: MemoryItem, line: number): ImportAction | ImportRefusal {
  if (stored === null) return 'insert';
  const trust = trustOf(stored);
  if (trust === 'constitutional' || trust === 'verified') {
    if (withoutUsage(stored.item) === withoutUsage(incoming)) return 'unchanged';
    return { memory_id: incoming.memory_id, trust_level: trust, rule: protectedRule(trust), line };
  }
  if (stored.sealed && canonicalJson(stored.item) === canonicalJson(incoming)) return 'unchanged';
  return 'update';
}
