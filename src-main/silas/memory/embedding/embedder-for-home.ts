import { ErrorCode, SilasError } from '../../../../src-shared/errors.js';
import type { StateSeals } from '../../../keys/sealed-state.js';
import type { SecretReader } from '../../../llm/providers.js';
import { loadSealedModels } from '../../../llm/sealed-models.js';
import type { Embedder } from './embedder.js';
import { embedderFor, type EmbedderForDeps } from './embedder-for.js';

/**
 * The embedder HOME/models.json chooses, read through its seal (docs/architecture.md §2 "Sealed
 * state"): `models.embedding` decides where the owner's memories are sent, so a file changed
 * outside Silas must not redirect them, even to a server that needs no key. A refused file fails
 * closed (recall by meaning stays off, with the fix in the message) rather than falling back to the
 * local vectors, which would silently re-embed every memory in another space.
 */
export async function embedderForHome(home: string, secrets: SecretReader, seals: StateSeals, options: Omit<EmbedderForDeps, 'secrets'> = {}): Promise<Embedder> {
  const loaded = loadSealedModels(home, seals);
  if (!loaded.ok) throw new SilasError(ErrorCode.Config, `the embedding model was not chosen: ${loaded.problem}`);
  return embedderFor(loaded.config, { secrets, ...options });
}
