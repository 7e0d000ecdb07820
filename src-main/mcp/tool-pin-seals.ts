import type { StateSeals } from '../keys/sealed-state.js';
import type { PinSealer, ToolPinRepository } from '../store/repositories/tool-pins.js';

/*
 * Tool pins are sealed state (docs/architecture.md §2 "Sealed state"): a pin's approved hash
 * decides which tool definitions reach the agent unasked, so a database writer that rewrote it
 * could approve a poisoned definition. Pins are runtime state written by proxies and by the
 * runtime after the person's decision, so the ledger key's MAC seals them.
 */

/** The pin's item id: the pair as JSON, so no server or tool name can run into the other. */
function pinId(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}

export function toolPinSealer(seals: Pick<StateSeals, 'seal' | 'check'>): PinSealer {
  return {
    seal: (server, tool, approvedHash) => seals.seal('ledger', 'tool-pin', pinId(server, tool), { approved_hash: approvedHash }),
    check: (server, tool, approvedHash, seal) => seals.check('ledger', 'tool-pin', pinId(server, tool), { approved_hash: approvedHash }, seal).ok,
  };
}

const LEGACY_DONE = 'pins-before-seals';

/**
 * Pins written before pins were sealed are sealed once per home, by the first process that holds
 * the keys after the upgrade; the keyring records that it was done, so a row left unsealed later
 * (inserted or rewritten by a database writer) is never adopted this way.
 */
export function sealPinsFromBeforeSeals(pins: Pick<ToolPinRepository, 'sealUnsealed'>, seals: Pick<StateSeals, 'anchoredDigest' | 'anchor'>): number {
  if (seals.anchoredDigest('tool-pin', LEGACY_DONE) !== null) return 0;
  const sealed = pins.sealUnsealed();
  seals.anchor('tool-pin', LEGACY_DONE, { done: true });
  return sealed;
}
