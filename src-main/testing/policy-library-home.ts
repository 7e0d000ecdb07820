import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openHome, type Ledger } from '../app/home.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { PolicyVersionRepository } from '../store/repositories/policy-versions.js';
import { templateGallery } from '../aip/templates/catalog.js';
import { PolicyLibrary, type PolicyLibraryDeps } from '../aip/library/policy-library.js';

/**
 * A fresh data home (owner key in an in-memory keyring, an empty HOME/policies) and the policy
 * library over it, wired as the runtime wires it; `known` lists the policies it may write.
 * The caller closes `ledger`.
 */
export function libraryHome(dir: string, known: (policiesDir: string) => readonly string[], extra: Pick<PolicyLibraryDeps, 'judgeOffLoop'> = {}): { home: string; policiesDir: string; ledger: Ledger; library: PolicyLibrary } {
  const home = join(dir, 'home');
  const ledger = openHome(home, { create: true, keys: 'signer', secretStore: new MemorySecretStore() });
  const policiesDir = join(home, 'policies');
  mkdirSync(policiesDir, { recursive: true });
  const library = new PolicyLibrary({
    versions: new PolicyVersionRepository(ledger.db),
    audit: ledger.audit,
    signer: ledger.signer!,
    trustedKeys: () => ledger.trustedKeys(),
    seals: ledger.seals,
    knownPolicies: () => known(policiesDir),
    policiesDir,
    templates: templateGallery,
    ...extra,
  });
  return { home, policiesDir, ledger, library };
}
