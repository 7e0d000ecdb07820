import type { StateSeals } from '../../keys/sealed-state.js';
import type { SliceVersionSealer } from '../../store/repositories/ilp-slice-versions.js';
import type { DeployedAnchors } from './evolution.js';

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

/**
 * Each learned slice's row in force, anchored in the keyring (`ilp-slice-deployed`, one account
 * per slice): a seal says Silas wrote a row, the anchor says it is still the one in force, so an
 * older sealed copy a database writer puts back is refused at start.
 */
export function deployedAnchors(seals: Pick<StateSeals, 'anchor' | 'checkAnchored'>): DeployedAnchors {
  return {
    anchor: (sliceId, value) => seals.anchor('ilp-slice-deployed', sliceId, value),
    check: (sliceId, value) => seals.checkAnchored('ilp-slice-deployed', sliceId, value).ok,
  };
}
