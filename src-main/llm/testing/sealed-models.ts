import { OwnerKeyVault, ownerAccountForHome } from '../../keys/owner-key.js';
import { StateSeals } from '../../keys/sealed-state.js';
import type { SecretStore } from '../../keys/secret-store.js';
import { saveSealedModels } from '../sealed-models.js';

/**
 * The seals of an initialised home, made from its keyring the way `openHome` makes them but
 * without opening the database (a runtime may hold it): for tests that write models.json as the
 * person would, through Silas. Refusals go to `refused`, when given.
 */
export function homeSeals(home: string, store: SecretStore, refused?: (kind: string, reason: string) => void): StateSeals {
  const owner = new OwnerKeyVault(store, ownerAccountForHome(home)).load();
  if (!owner) throw new Error(`no owner key for ${home} in the keyring: start the runtime or run \`silas init\` first`);
  return new StateSeals({
    keys: { ledger: () => null, owner: () => owner },
    anchors: { store, absoluteHome: home },
    ...(refused ? { reporter: { refused: (refusal) => refused(refusal.kind, refusal.reason) } } : {}),
  });
}

/** models.json written, sealed and anchored as `silas models set` writes it. */
export function saveModelsAsOwner(home: string, store: SecretStore, raw: Record<string, unknown>): ReturnType<typeof saveSealedModels> {
  return saveSealedModels(home, raw, homeSeals(home, store));
}
