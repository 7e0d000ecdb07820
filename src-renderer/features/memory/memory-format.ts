import type { MemoryStatus } from '../../../src-shared/schemas/memory.js';
import type { MemoryType } from '../../../src-shared/silas/agents.js';
import type { MemoryItem } from '../../../src-shared/silas/memory.js';
import { plural } from '../review/review-format.js';

/*
 * Pure text for the Memory page and the memory_promotion card (spec 002 §6, §3.8), kept apart
 * from components so it is tested on its own.
 */

export type TrustLevel = MemoryItem['trust_level'];

/** The seven memory types of §3.8, in the order the filters list them. */
export const MEMORY_TYPES: readonly { id: MemoryType; label: string }[] = [
  { id: 'fact', label: 'Fact' },
  { id: 'preference', label: 'Preference' },
  { id: 'episode', label: 'Episode' },
  { id: 'decision', label: 'Decision' },
  { id: 'skill_note', label: 'Skill note' },
  { id: 'foresight', label: 'Foresight' },
  { id: 'profile', label: 'Profile' },
];

export const TRUST_LEVELS: readonly { id: TrustLevel; label: string }[] = [
  { id: 'working', label: 'Working' },
  { id: 'verified', label: 'Verified' },
  { id: 'constitutional', label: 'Constitutional' },
];

export function memoryTypeLabel(type: MemoryType): string {
  return MEMORY_TYPES.find((t) => t.id === type)?.label ?? type;
}

export function trustLabel(trust: TrustLevel): string {
  return TRUST_LEVELS.find((t) => t.id === trust)?.label ?? trust;
}

/** Why a memory offers no Edit, Delete or Ask to verify (§3.8); null for working memory. */
export function lockedText(trust: TrustLevel): string | null {
  if (trust === 'verified') return 'Verified: changes only through Review';
  if (trust === 'constitutional') return 'Constitutional: never changed at runtime';
  return null;
}

/** "recalled 3 times", "never recalled". */
export function recalledText(count: number): string {
  return count === 0 ? 'never recalled' : `recalled ${plural(count, 'time')}`;
}

const BRANCHES: Record<string, string> = { keyword: 'keyword', semantic: 'meaning', temporal: 'time', session: 'this conversation', recent: 'newest' };

/** How a search found a memory: "found by keyword and meaning"; a listing without a query says "newest". */
export function viaText(via: readonly string[]): string {
  if (via.length === 0) return '';
  if (via.length === 1 && via[0] === 'recent') return 'newest';
  const words = via.map((branch) => BRANCHES[branch] ?? branch);
  const list = words.length === 1 ? words[0]! : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
  return `found by ${list}`;
}

/** The embedder in words: the local table is "local word vectors"; a configured server by provider and model. */
function embedderText(embedder: string | null): string {
  if (embedder === null) return 'no embedder';
  if (embedder.startsWith('local:')) return 'local word vectors';
  return embedder.split('@')[0]!;
}

/** "Recall by meaning: ready (local word vectors, 100 dimensions)", "catching up: 12 memories waiting", "off: <problem>". */
export function semanticText(semantic: MemoryStatus['semantic']): string {
  const problem = semantic.problem ? ` — ${semantic.problem}` : '';
  switch (semantic.state) {
    case 'ready':
      return `Recall by meaning: ready (${embedderText(semantic.embedder)}${semantic.dimensions === null ? '' : `, ${semantic.dimensions} dimensions`})${problem}`;
    case 'reembedding':
      return `Recall by meaning: catching up: ${plural(semantic.pending, 'memory', 'memories')} waiting${problem}`;
    case 'starting':
      return `Recall by meaning: starting${problem}`;
    case 'unavailable':
      return `Recall by meaning: off: ${semantic.problem ?? 'the embedder is not available'}`;
  }
}

/** "4 active memories (1 verified, 0 constitutional), 12 in the raw record". */
export function countsText(status: MemoryStatus): string {
  return `${plural(status.active, 'active memory', 'active memories')} (${status.verified.toLocaleString('en-US')} verified, ${status.constitutional.toLocaleString('en-US')} constitutional), ${status.raw.toLocaleString('en-US')} in the raw record`;
}

export const EMPTY_SEARCH_TEXT = 'No memories match. Silas stores what it should remember as you talk to it in the Stream.';
export const PROMOTION_WAITING_TEXT = 'Waiting for your signature in Review';

/** Above the results: "3 memories matching “tabs”", or "The 50 newest memories" for an empty box. */
export function resultsLead(query: string, count: number): string {
  if (query === '') return count === 1 ? 'The newest memory' : `The ${count.toLocaleString('en-US')} newest memories`;
  return `${plural(count, 'memory', 'memories')} matching “${query}”, best first`;
}
