import { z } from 'zod';
import { ErrorCode, SilasError } from '../errors.js';
import { SECRET_NAME_PATTERN } from '../secret-names.js';

/*
 * Which model each agent role talks to (spec 002 §7: `models.proxy`, `models.planner`,
 * `models.executor`, `models.scorer`). A configuration names the keyring secret that holds an API
 * key, never the key (DESIGN invariant 5): it is written to files, shown in the cockpit and
 * recorded in the ledger, none of which may carry a secret. Every message names the field and
 * what to write there instead.
 */

export { SECRET_NAME_PATTERN };

export const MODEL_ROLES = ['proxy', 'planner', 'executor', 'scorer'] as const;
export const ModelRole = z.enum(MODEL_ROLES);
export type ModelRole = z.infer<typeof ModelRole>;

export const MODEL_PROVIDERS = ['openai-compatible', 'openrouter', 'anthropic'] as const;
export const ModelProvider = z.enum(MODEL_PROVIDERS, {
  error: `expected one of ${MODEL_PROVIDERS.map((p) => `"${p}"`).join(', ')} ("openai-compatible" also covers Ollama, LM Studio, vLLM and llama.cpp's server)`,
});
export type ModelProvider = z.infer<typeof ModelProvider>;

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MAX_RETRIES = 2;

const NAME_NOT_KEY = 'write the NAME of a keyring secret here, never the key itself, and store the key with `silas secrets set NAME`';
// Prefixes of the keys of OpenAI, Anthropic, OpenRouter, Groq, Hugging Face and xAI.
const KEY_LIKE = /^(sk|gsk|hf|xai)[-_]/i;

const perMillion = (which: string) =>
  z.number({ error: `expected the price in US dollars per million ${which} tokens, as a number (e.g. 3 or 0.15)` }).finite().nonnegative({ error: 'a price cannot be negative' });

export const ModelPrice = z.strictObject(
  { inputPerMillion: perMillion('input'), outputPerMillion: perMillion('output') },
  { error: (issue) => (issue.code === 'invalid_type' ? 'expected {inputPerMillion, outputPerMillion} in US dollars per million tokens' : undefined) },
);
export type ModelPrice = z.infer<typeof ModelPrice>;

const httpUrl = z.string({ error: 'expected the URL of the API, e.g. http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:8080/v1 (llama.cpp)' }).refine(isHttpUrl, {
  error: (issue) => `${JSON.stringify(issue.input)} is not an http:// or https:// URL; write the API's base URL, e.g. http://127.0.0.1:11434/v1`,
});

const positiveInt = (what: string, max: number) =>
  z
    .number({ error: `expected ${what} as a whole number` })
    .int({ error: `expected ${what} as a whole number` })
    .min(1, { error: `${what} must be at least 1` })
    .max(max, { error: `${what} must be at most ${max}` });

// Fields the chat roles and the embedding model share, so both say the same about them.
const modelName = z.string({ error: 'expected the model name the provider knows it by, e.g. "llama3.1:8b" or "anthropic/claude-sonnet-4.5"' }).trim().min(1, { error: 'the model name is empty; write the name the provider knows the model by' });
const maxRetriesField = z.number({ error: 'expected a whole number from 0 to 10' }).int({ error: 'expected a whole number from 0 to 10' }).min(0, { error: 'maxRetries must be from 0 to 10' }).max(10, { error: 'maxRetries must be from 0 to 10' });
const apiKeySecretField = z
  .string({ error: 'expected the name of a keyring secret (store the key with `silas secrets set NAME`, then write NAME here)' })
  // The value is not quoted back: what was written here may be the key itself.
  .regex(SECRET_NAME_PATTERN, { error: `this is not a secret name (1 to 64 letters, digits, "_", "." or "-", starting with a letter or digit); ${NAME_NOT_KEY}`, abort: true })
  .refine((name) => !KEY_LIKE.test(name), { error: `this looks like an API key; ${NAME_NOT_KEY}` });

const RoleModelShape = z.strictObject(
  {
    provider: ModelProvider,
    model: modelName,
    /** The API's base URL; required for openai-compatible, optional (the public endpoint) otherwise. */
    baseUrl: httpUrl.optional(),
    temperature: z.number({ error: 'expected a number from 0 to 2' }).min(0, { error: 'temperature must be from 0 to 2' }).max(2, { error: 'temperature must be from 0 to 2' }).optional(),
    maxTokens: positiveInt('the most tokens the model may write in one answer', 1_000_000).optional(),
    /** How long to wait for an answer; for a streamed answer, how long to wait between two pieces of it. */
    timeoutMs: positiveInt('the timeout in milliseconds', 3_600_000).default(DEFAULT_TIMEOUT_MS),
    /** Further attempts after a 429 or 5xx answer; 0 gives up at the first. */
    maxRetries: maxRetriesField.default(DEFAULT_MAX_RETRIES),
    /** The NAME of the OS keyring secret holding the API key (`silas secrets set NAME`), never the key. */
    apiKeySecret: apiKeySecretField.optional(),
    /** US dollars per million tokens, for cost accounting; absent, calls are counted but not priced. */
    price: ModelPrice.optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'expected a mapping with provider and model (and baseUrl for openai-compatible)' : undefined) },
);

/** A base URL for openai-compatible, a key for the hosted providers: the same rule for a chat role and the embedding model. */
function requireEndpoint(config: { provider: ModelProvider; baseUrl?: string | undefined; apiKeySecret?: string | undefined }, ctx: z.RefinementCtx): void {
  if (config.provider === 'openai-compatible' && config.baseUrl === undefined) {
    ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'required for provider "openai-compatible": write the server\'s OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (Ollama) or http://127.0.0.1:1234/v1 (LM Studio)' });
  }
  if (config.provider !== 'openai-compatible' && config.apiKeySecret === undefined) {
    ctx.addIssue({ code: 'custom', path: ['apiKeySecret'], message: `required for provider "${config.provider}": store the API key with \`silas secrets set ${config.provider}-key\` and write apiKeySecret: ${config.provider}-key` });
  }
}

export const RoleModelConfig = RoleModelShape.superRefine(requireEndpoint);
export type RoleModelConfig = z.infer<typeof RoleModelConfig>;
export type RoleModelConfigInput = z.input<typeof RoleModelConfig>;

/*
 * The embedding model of Silas memory (spec 002 §6.2, docs/silas/memory-embedding.md): a server of
 * OpenAI's `/v1/embeddings`. Not a role (it writes no answers, and the cockpit's role forms do not
 * apply to it); absent, memory embeds locally with word vectors. Anthropic has no embeddings API,
 * so the providers are the two of MODEL_PROVIDERS that speak OpenAI's wire format; OpenAI itself
 * is "openai-compatible" with https://api.openai.com/v1 and a key.
 */
export const EMBEDDING_PROVIDERS = ['openai-compatible', 'openrouter'] as const satisfies readonly ModelProvider[];
const EmbeddingProvider = z.enum(EMBEDDING_PROVIDERS, {
  error: `expected one of ${EMBEDDING_PROVIDERS.map((p) => `"${p}"`).join(', ')} ("openai-compatible" also covers OpenAI, Ollama, LM Studio, vLLM and llama.cpp's server; anthropic has no embeddings API)`,
});

export const DEFAULT_EMBEDDING_TIMEOUT_MS = 30_000;

const EmbeddingModelShape = z.strictObject(
  {
    provider: EmbeddingProvider,
    model: modelName,
    /** The API's base URL; required for openai-compatible, optional (the public endpoint) for openrouter. */
    baseUrl: httpUrl.optional(),
    /** The NAME of the OS keyring secret holding the API key (`silas secrets set NAME`), never the key. */
    apiKeySecret: apiKeySecretField.optional(),
    /** Asked of the model (OpenAI's `dimensions`) and required of every answer; absent, the model's own size, learnt from its first answer. */
    dimensions: positiveInt('the number of dimensions', 16_384).optional(),
    /** How long to wait for the answer to one request (at most 64 texts). */
    timeoutMs: positiveInt('the timeout in milliseconds', 3_600_000).default(DEFAULT_EMBEDDING_TIMEOUT_MS),
    /** Further attempts after a 429 or 5xx answer; 0 gives up at the first. */
    maxRetries: maxRetriesField.default(DEFAULT_MAX_RETRIES),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'expected a mapping with provider and model (and baseUrl for openai-compatible)' : undefined) },
);

export const EmbeddingModelConfig = EmbeddingModelShape.superRefine(requireEndpoint);
export type EmbeddingModelConfig = z.infer<typeof EmbeddingModelConfig>;
export type EmbeddingModelConfigInput = z.input<typeof EmbeddingModelConfig>;

/** Every role is optional: a role with no model is reported where it is needed (the first-run flow), not here. */
export const ModelsConfig = z.strictObject(
  {
    proxy: RoleModelConfig.optional(),
    planner: RoleModelConfig.optional(),
    executor: RoleModelConfig.optional(),
    scorer: RoleModelConfig.optional(),
    embedding: EmbeddingModelConfig.optional(),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? `expected a mapping of roles (${MODEL_ROLES.join(', ')}) to models` : undefined) },
);
export type ModelsConfig = z.infer<typeof ModelsConfig>;

// Fields people reach for when they have a key in hand; each points to the keyring instead.
const KEY_FIELDS = new Set(['apikey', 'key', 'token', 'secret', 'authorization', 'password', 'bearer']);

/** An http:// or https:// URL with a host: what a model's base URL must be (the cockpit's form checks the same). */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** One line per problem: the dotted field, what is wrong, and the fix. */
export function modelsConfigProblems(error: z.ZodError, root = 'models'): string[] {
  return error.issues.flatMap((issue) => {
    const at = [root, ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) =>
        KEY_FIELDS.has(key.toLowerCase().replace(/[-_]/g, ''))
          ? `${at}.${key}: API keys are never written in configuration; remove it, store the key with \`silas secrets set NAME\` and write apiKeySecret: NAME`
          : `${at}.${key}: unknown field; check the spelling (known: ${knownFields(issue.path).join(', ')})`,
      );
    }
    return [`${at}: ${issue.message}`];
  });
}

function knownFields(path: readonly PropertyKey[]): readonly string[] {
  if (path.length === 0) return [...MODEL_ROLES, 'embedding'];
  if (path.at(-1) === 'price') return Object.keys(ModelPrice.shape);
  if (path[0] === 'embedding') return Object.keys(EmbeddingModelShape.shape);
  return Object.keys(RoleModelShape.shape);
}

export type ModelsConfigResult = { ok: true; value: ModelsConfig } | { ok: false; problems: string[] };

export function checkModelsConfig(input: unknown, root = 'models'): ModelsConfigResult {
  const parsed = ModelsConfig.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problems: modelsConfigProblems(parsed.error, root) };
}

/** Parses or throws one SilasError (E_CFG_INVALID) listing every problem, so they are fixed in one pass. */
export function parseModelsConfig(input: unknown, root = 'models'): ModelsConfig {
  const result = checkModelsConfig(input, root);
  if (!result.ok) throw new SilasError(ErrorCode.Config, `the model configuration is not valid: ${result.problems.join('; ')}`);
  return result.value;
}

/** One role's model, parsed the same way (e.g. from the first-run form). */
export function parseRoleModelConfig(input: unknown, role: ModelRole): RoleModelConfig {
  const parsed = RoleModelConfig.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new SilasError(ErrorCode.Config, `the model configuration is not valid: ${modelsConfigProblems(parsed.error, `models.${role}`).join('; ')}`);
}

/**
 * The public endpoints, always passed explicitly: left out, the Anthropic provider would take
 * ANTHROPIC_BASE_URL from the environment, and anything that can set the runtime's environment
 * could then send the key to a host of its choosing.
 */
export const DEFAULT_BASE_URLS: Readonly<Record<Exclude<ModelProvider, 'openai-compatible'>, string>> = {
  openrouter: 'https://openrouter.ai/api/v1',
  anthropic: 'https://api.anthropic.com/v1',
};

/** Where a role's (or the embedding model's) requests go: its base URL without a trailing slash, else its provider's public endpoint. */
export function baseUrlOf(config: Pick<RoleModelConfig, 'provider' | 'baseUrl'>): string {
  if (config.baseUrl !== undefined) return config.baseUrl.replace(/\/+$/, '');
  if (config.provider === 'openai-compatible') throw new Error('an openai-compatible model has no baseUrl; the configuration schema requires one');
  return DEFAULT_BASE_URLS[config.provider];
}
