import type { ModelsConfig } from '../../../../src-shared/llm/config.js';
import type { SecretReader } from '../../../llm/providers.js';
import type { Embedder } from './embedder.js';
import { LocalWordVectorEmbedder, type LocalWordVectorOptions } from './local-embedder.js';
import { OpenAICompatibleEmbedder } from './openai-compatible-embedder.js';

export interface EmbedderForDeps {
  /** The keyring, for `models.embedding.apiKeySecret`; the key is read at each request. */
  secrets: SecretReader;
  /** Where the local table is, how to build it (tests). */
  local?: LocalWordVectorOptions;
  fetch?: typeof fetch;
}

/**
 * The embedder of spec 002 §6.2 for a (trusted) model configuration: the configured server when
 * `models.embedding` is set, else the local word vectors, built in the background first when the
 * table is missing. Resolves when the embedder is ready; the runtime does not wait for it.
 */
export async function embedderFor(models: ModelsConfig, deps: EmbedderForDeps): Promise<Embedder> {
  const remote = models.embedding;
  if (remote !== undefined) return new OpenAICompatibleEmbedder({ config: remote, secrets: deps.secrets, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
  return LocalWordVectorEmbedder.whenReady(deps.local ?? {});
}
