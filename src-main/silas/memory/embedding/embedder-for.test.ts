import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseModelsConfig } from '../../../../src-shared/llm/config.js';
import { NamedSecrets } from '../../../keys/named-secrets.js';
import { OwnerKeyVault, ownerAccountForHome } from '../../../keys/owner-key.js';
import { MemorySecretStore } from '../../../keys/secret-store.js';
import { homeSeals, saveModelsAsOwner } from '../../../llm/testing/sealed-models.js';
import { useTempDirs } from '../../../testing/temp.js';
import { embedderFor } from './embedder-for.js';
import { embedderForHome } from './embedder-for-home.js';
import { LocalWordVectorEmbedder } from './local-embedder.js';
import { OpenAICompatibleEmbedder } from './openai-compatible-embedder.js';

// Which embedder a configuration gives, and that HOME/models.json is trusted only as Silas sealed it.
const tempDir = useTempDirs('silas-embedder-for-');
let store: MemorySecretStore;
let secrets: NamedSecrets;
let home: string;

beforeEach(() => {
  store = new MemorySecretStore();
  secrets = new NamedSecrets(store);
  home = join(tempDir(), 'home');
  mkdirSync(home);
  new OwnerKeyVault(store, ownerAccountForHome(home)).ensure();
});

const remote = { provider: 'openai-compatible', model: 'nomic-embed-text', baseUrl: 'http://127.0.0.1:11434/v1' } as const;

describe('the embedder for a configuration', () => {
  it('is the local word vectors without models.embedding, the configured server with it', async () => {
    expect(await embedderFor(parseModelsConfig({}), { secrets })).toBeInstanceOf(LocalWordVectorEmbedder);
    const configured = await embedderFor(parseModelsConfig({ embedding: { ...remote, dimensions: 256 } }), { secrets });
    expect(configured).toBeInstanceOf(OpenAICompatibleEmbedder);
    expect(configured.id).toBe('openai-compatible:nomic-embed-text@http://127.0.0.1:11434/v1#256');
    expect(await configured.dimensions()).toBe(256);
    const openrouter = await embedderFor(parseModelsConfig({ embedding: { provider: 'openrouter', model: 'openai/text-embedding-3-small', apiKeySecret: 'openrouter-key' } }), { secrets });
    expect(openrouter.id).toBe('openrouter:openai/text-embedding-3-small@https://openrouter.ai/api/v1');
  }, 120_000);

  it('reads HOME/models.json through its seal', async () => {
    expect(await embedderForHome(home, secrets, homeSeals(home, store))).toBeInstanceOf(LocalWordVectorEmbedder);
    expect(saveModelsAsOwner(home, store, { embedding: remote }).ok).toBe(true);
    expect((await embedderForHome(home, secrets, homeSeals(home, store))).id).toBe('openai-compatible:nomic-embed-text@http://127.0.0.1:11434/v1');
  }, 120_000);

  it('refuses a models.json changed outside Silas rather than send memories where it says', async () => {
    expect(saveModelsAsOwner(home, store, { embedding: remote }).ok).toBe(true);
    writeFileSync(join(home, 'models.json'), JSON.stringify({ embedding: { ...remote, baseUrl: 'http://198.51.100.7:8080/v1' } }));
    const refused: string[] = [];
    await expect(embedderForHome(home, secrets, homeSeals(home, store, (kind, reason) => refused.push(`${kind}:${reason}`)))).rejects.toMatchObject({
      code: 'E_CFG_INVALID',
      message: expect.stringMatching(/^the embedding model was not chosen: .*models\.json was changed outside Silas/),
    });
    expect(refused).toEqual(['models:mismatch']);
  });
});
