import type { StateSeals } from '../../keys/sealed-state.js';
import type { MemorySealer } from '../../store/repositories/memory.js';

/*
 * Memories are sealed state (docs/architecture.md §2 "Sealed state"): a memory's taint and trust
 * level decide whether it reaches the context as the owner's words (spec 002 §5.12), so a row a
 * database writer planted or rewrote must not count as the owner's. Memories are runtime state,
 * sealed with the ledger key's MAC when the Stream writes them.
 */
export function memorySealer(seals: Pick<StateSeals, 'seal' | 'check'>): MemorySealer {
  return {
    seal: (memoryId, fields) => seals.seal('ledger', 'memory', memoryId, fields),
    check: (memoryId, fields, seal) => seals.check('ledger', 'memory', memoryId, fields, seal).ok,
  };
}

/** The chronicle (what was said in a conversation) sealed the same way: its taint decides the same (§5.12). */
export function chronicleSealer(seals: Pick<StateSeals, 'seal' | 'check'>): MemorySealer {
  return {
    seal: (id, fields) => seals.seal('ledger', 'chronicle', id, fields),
    check: (id, fields, seal) => seals.check('ledger', 'chronicle', id, fields, seal).ok,
  };
}
