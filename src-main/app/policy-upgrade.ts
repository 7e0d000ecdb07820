import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { closeUpgradeWindow, judgePolicyText, upgradeWindowOpen } from '../aip/policy/in-force.js';
import { MAX_POLICY_BYTES } from '../aip/policy/load.js';
import type { StateSeals } from '../keys/sealed-state.js';

/**
 * The runtime's first start in a home from before policies were anchored (aip/policy/in-force.ts,
 * docs/mcp-proxy.md "Signed policies"): every policy it knows that already carries the owner's
 * signature is put in force, then the upgrade window closes for good. Files over the size cap
 * are not read. Returns how many policies were put in force.
 */
export function adoptPoliciesFromBeforeAnchors(paths: readonly string[], trustedKeys: ReadonlyMap<string, Uint8Array>, seals: StateSeals): number {
  if (!upgradeWindowOpen(seals)) return 0;
  let adopted = 0;
  for (const path of new Set(paths.map((p) => resolve(p)))) {
    try {
      if ((statSync(path, { throwIfNoEntry: false })?.size ?? Infinity) > MAX_POLICY_BYTES) continue;
      if (judgePolicyText(readFileSync(path, 'utf8'), { path, trustedKeys, seals }).ok) adopted += 1;
    } catch {
      // An unreadable policy is judged again when a proxy reads it, after the window: fail closed.
    }
  }
  closeUpgradeWindow(seals);
  return adopted;
}
