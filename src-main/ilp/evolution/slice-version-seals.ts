import type { StateSeals } from '../../keys/sealed-state.js';
import type { SliceVersionSealer } from '../../store/repositories/ilp-slice-versions.js';

/*
 * The slice registry is sealed state (docs/architecture.md §2 "Sealed state"): a deployed version
 * is read by every specialist as trusted knowledge, and a superseded one is what a rollback puts
 * back, so a version a database writer planted or edited must never be either. Versions are
 * runtime state, sealed with the ledger key's MAC (`ilp-slice-version`), as compositions are.
 */
export function sliceVersionSealer(seals: Pick<StateSeals, 'seal' | 'check'>): SliceVersionSealer {
  return {
    seal: (id, fields) => seals.seal('ledger', 'ilp-slice-version', id, fields),
    check: (id, fields, seal) => seals.check('ledger', 'ilp-slice-version', id, fields, seal).ok,
  };
}
