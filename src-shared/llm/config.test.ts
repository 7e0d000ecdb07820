import { describe, expect, it } from 'vitest';
import { isSilasError } from '../errors.js';
import { checkModelsConfig, DEFAULT_EMBEDDING_TIMEOUT_MS, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, parseModelsConfig, parseRoleModelConfig } from './config.js';

const problems = (input: unknown): string[] => {
  const result = checkModelsConfig(input);
  return result.ok ? [] : result.problems;
};

describe('model configuration per role', () => {
  it('accepts each provider and fills the defaults', () => {
    const config = parseModelsConfig({
      proxy: { provider: 'openai-compatible', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1' },
      planner: { provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeySecret: 'anthropic-key', temperature: 0.3, maxTokens: 8192, price: { inputPerMillion: 3, outputPerMillion: 15 } },
      executor: { provider: 'openrouter', model: 'qwen/qwen-2.5-coder-32b-instruct', apiKeySecret: 'openrouter.key', timeoutMs: 300_000, maxRetries: 0 },
    });
    expect(config.proxy).toEqual({ provider: 'openai-compatible', model: 'llama3.1:8b', baseUrl: 'http://127.0.0.1:11434/v1', timeoutMs: DEFAULT_TIMEOUT_MS, maxRetries: DEFAULT_MAX_RETRIES });
    expect(config.planner?.price).toEqual({ inputPerMillion: 3, outputPerMillion: 15 });
    expect(config.executor).toMatchObject({ timeoutMs: 300_000, maxRetries: 0 });
    expect(config.scorer).toBeUndefined();
  });

  it('requires a base URL for openai-compatible and a key secret for hosted providers, saying what to write', () => {
    expect(problems({ proxy: { provider: 'openai-compatible', model: 'm' } })).toEqual([
      'models.proxy.baseUrl: required for provider "openai-compatible": write the server\'s OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:1234/v1 (LM Studio)',
    ]);
    expect(problems({ planner: { provider: 'openrouter', model: 'x/y' } })).toEqual([
      'models.planner.apiKeySecret: required for provider "openrouter": store the API key with `silas secrets set openrouter-key` and write apiKeySecret: openrouter-key',
    ]);
  });

  it('refuses a key written where a secret name belongs, without repeating it', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz';
    const found = problems({ planner: { provider: 'anthropic', model: 'claude-sonnet-4-5', apiKeySecret: key } });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^models\.planner\.apiKeySecret: this is not a secret name .*never the key itself, and store the key with `silas secrets set NAME`$/);
    expect(found[0]).not.toContain(key.slice(0, 12));
    // Short enough to pass for a name, but shaped like a key.
    expect(problems({ planner: { provider: 'openrouter', model: 'x', apiKeySecret: 'sk-or-v1-0123456789abcdef' } })).toEqual([
      'models.planner.apiKeySecret: this looks like an API key; write the NAME of a keyring secret here, never the key itself, and store the key with `silas secrets set NAME`',
    ]);
  });

  it('points a key field at the keyring', () => {
    expect(problems({ planner: { provider: 'anthropic', model: 'c', apiKeySecret: 'k', apiKey: 'sk-1' } })).toEqual([
      'models.planner.apiKey: API keys are never written in configuration; remove it, store the key with `silas secrets set NAME` and write apiKeySecret: NAME',
    ]);
    expect(problems({ planner: { provider: 'anthropic', model: 'c', apiKeySecret: 'k', api_key: 'sk-1' } })[0]).toMatch(/^models\.planner\.api_key: API keys are never written/);
  });

  it('names unknown fields and roles with the known ones', () => {
    expect(problems({ planer: {} })).toEqual(['models.planer: unknown field; check the spelling (known: proxy, planner, executor, scorer, embedding)']);
    expect(problems({ proxy: { provider: 'openai-compatible', model: 'm', baseUrl: 'http://h/v1', max_tokens: 5 } })[0]).toMatch(/^models\.proxy\.max_tokens: unknown field; check the spelling \(known: provider, model, baseUrl, temperature, maxTokens, timeoutMs, maxRetries, apiKeySecret, price\)$/);
    expect(problems({ proxy: { provider: 'openai-compatible', model: 'm', baseUrl: 'http://h/v1', price: { input: 1 } } })).toContain('models.proxy.price.input: unknown field; check the spelling (known: inputPerMillion, outputPerMillion)');
  });

  it('says what each bad value should be', () => {
    const found = problems({
      proxy: { provider: 'openai', model: '', baseUrl: 'ftp://x', temperature: 3, maxTokens: 0.5, timeoutMs: -1, maxRetries: 99, price: { inputPerMillion: -1, outputPerMillion: '2' } },
    });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^models\.proxy\.provider: expected one of "openai-compatible", "openrouter", "anthropic"/),
        expect.stringMatching(/^models\.proxy\.model: the model name is empty/),
        'models.proxy.baseUrl: "ftp://x" is not an http:// or https:// URL; write the API\'s base URL, e.g. http://127.0.0.1:11434/v1',
        'models.proxy.temperature: temperature must be from 0 to 2',
        'models.proxy.maxTokens: expected the most tokens the model may write in one answer as a whole number',
        'models.proxy.timeoutMs: the timeout in milliseconds must be at least 1',
        'models.proxy.maxRetries: maxRetries must be from 0 to 10',
        'models.proxy.price.inputPerMillion: a price cannot be negative',
        expect.stringMatching(/^models\.proxy\.price\.outputPerMillion: expected the price in US dollars per million output tokens/),
      ]),
    );
  });

  it('throws one configuration error listing every problem', () => {
    try {
      parseModelsConfig({ proxy: { provider: 'openai-compatible', model: 'm' }, planner: 'gpt' });
      expect.unreachable();
    } catch (error) {
      expect(isSilasError(error) && error.code).toBe('E_CFG_INVALID');
      expect((error as Error).message).toMatch(/^the model configuration is not valid: models\.proxy\.baseUrl: required .*; models\.planner: expected a mapping with provider and model/);
    }
    expect(() => parseRoleModelConfig({ provider: 'anthropic', model: 'c' }, 'scorer')).toThrow(/models\.scorer\.apiKeySecret: required for provider "anthropic"/);
    expect(() => parseModelsConfig(null)).toThrow(/models: expected a mapping of roles \(proxy, planner, executor, scorer\) to models/);
  });
});

describe('the embedding model (models.embedding)', () => {
  it('accepts a server of /v1/embeddings and fills the defaults', () => {
    const config = parseModelsConfig({ embedding: { provider: 'openai-compatible', model: 'nomic-embed-text', baseUrl: 'http://127.0.0.1:11434/v1' } });
    expect(config.embedding).toEqual({ provider: 'openai-compatible', model: 'nomic-embed-text', baseUrl: 'http://127.0.0.1:11434/v1', timeoutMs: DEFAULT_EMBEDDING_TIMEOUT_MS, maxRetries: DEFAULT_MAX_RETRIES });
    expect(parseModelsConfig({ embedding: { provider: 'openrouter', model: 'openai/text-embedding-3-small', apiKeySecret: 'openrouter-key', dimensions: 512 } }).embedding?.dimensions).toBe(512);
    expect(parseModelsConfig({}).embedding).toBeUndefined();
  });

  it('names the field of every problem, and what to write there', () => {
    expect(problems({ embedding: { provider: 'anthropic', model: 'm', dimensions: 0, temperature: 1, timeoutMs: 'soon' } })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^models\.embedding\.provider: expected one of "openai-compatible", "openrouter" .*anthropic has no embeddings API\)$/),
        'models.embedding.dimensions: the number of dimensions must be at least 1',
        'models.embedding.timeoutMs: expected the timeout in milliseconds as a whole number',
        'models.embedding.temperature: unknown field; check the spelling (known: provider, model, baseUrl, apiKeySecret, dimensions, timeoutMs, maxRetries)',
      ]),
    );
    expect(problems({ embedding: { provider: 'openai-compatible', model: 'm' } })).toEqual([expect.stringMatching(/^models\.embedding\.baseUrl: required for provider "openai-compatible"/)]);
    expect(problems({ embedding: { provider: 'openrouter', model: 'm' } })).toEqual([expect.stringMatching(/^models\.embedding\.apiKeySecret: required for provider "openrouter"/)]);
    expect(problems({ embedding: { provider: 'openrouter', model: 'm', apiKeySecret: 'sk-or-v1-0123456789abcdef' } })).toEqual([expect.stringMatching(/^models\.embedding\.apiKeySecret: this looks like an API key/)]);
    expect(problems({ embedding: { provider: 'openrouter', model: 'm', apiKeySecret: 'k', apiKey: 'sk-1' } })[0]).toMatch(/^models\.embedding\.apiKey: API keys are never written in configuration/);
    expect(problems({ embedding: 'nomic' })).toEqual(['models.embedding: expected a mapping with provider and model (and baseUrl for openai-compatible)']);
  });
});
