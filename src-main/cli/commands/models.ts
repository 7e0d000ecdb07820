import { baseUrlOf, checkModelsConfig, EMBEDDING_PROVIDERS, MODEL_PROVIDERS, MODEL_ROLES, ModelRole, type EmbeddingModelConfig, type ModelsConfig, type RoleModelConfig } from '../../../src-shared/llm/config.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { originOf } from '../../../src-shared/llm/origin.js';
import type { CliContext, ModelsLedger, SecretStatus } from '../../app/cli-context.js';
import { readSecretValue, type Stdin } from './secret-input.js';
import { resolveHome } from '../../home/paths.js';
import { parseFlags } from '../args.js';
import { UsageError, runSubcommand, type CliIo, type Command, type Subcommand } from '../io.js';
import { terminalSafe } from './plan.js';

const usage = `Usage: silas models <show|set|test|adopt> [ROLE] [options]

  silas models show [--json] [--home DIR]
      Each role (${MODEL_ROLES.join(', ')}): provider, model, base URL, the NAME of the
      keyring secret holding its API key, whether the keyring has it and where it may be
      sent. Never a key. Says so when models.json was changed outside Silas.
  silas models set ROLE --provider P --model M [--base-url URL] [--api-key-secret NAME]
                   [--key-stdin] [--temperature X] [--max-tokens N] [--timeout-ms N]
                   [--max-retries N] [--price-in X --price-out Y] [--home DIR]
      Sets ROLE's model in HOME/models.json, replacing what the role had; the file is checked
      as a whole, sealed with the owner key and written atomically, or not at all. When the
      secret NAME may not yet be sent to the base URL's origin, the API key is asked for
      again (typed at a terminal, or piped with --key-stdin) and bound to that origin.
  silas models set embedding --provider P --model M [--base-url URL] [--api-key-secret NAME]
                   [--key-stdin] [--dimensions N] [--timeout-ms N] [--max-retries N] [--home DIR]
      The embedding model of memory recall (an OpenAI-compatible /v1/embeddings; providers
      ${EMBEDDING_PROVIDERS.join(', ')}). Without one, memory embeds locally with word vectors.
      --dimensions asks the model for vectors of that size and refuses any other.
  silas models test ROLE [--home DIR]
      One small real call to ROLE's model: prints ok with the latency and tokens, or what
      failed and how to fix it (exit 1).
  silas models adopt [--home DIR]
      Seals models.json as it is now: for a file written by hand or by a Silas before models
      were sealed. Check it with \`silas models show\` first. Where each key may be sent is
      not changed by adopting.

Providers: ${MODEL_PROVIDERS.join(', ')}. openai-compatible (Ollama, LM Studio, vLLM, llama.cpp's
server) needs --base-url, e.g. http://127.0.0.1:11434/v1; openrouter and anthropic need
--api-key-secret. An API key is never given here: store it with \`silas secrets set NAME\` (it is
read from standard input) and pass --api-key-secret NAME. A key is sent only to the origin
(scheme://host:port) it was stored for. Prices are US dollars per million
input and output tokens; without them calls are counted but not priced.`;

const home = { home: { type: 'string' } } as const;

/** The chat roles, and for `set` the embedding model too (not a role: it writes no answers). */
type SetTarget = ModelRole | 'embedding';

function roleArg(sub: string, positionals: string[]): ModelRole;
function roleArg(sub: string, positionals: string[], withEmbedding: true): SetTarget;
function roleArg(sub: string, positionals: string[], withEmbedding = false): SetTarget {
  const [role, ...extra] = positionals;
  if (role === undefined) throw new UsageError(`models ${sub}: name the role (${MODEL_ROLES.join(', ')})`, usage);
  // The argument is not echoed: it may be anything, a key pasted in the wrong place included.
  if (extra.length > 0) throw new UsageError(`models ${sub}: takes exactly one ROLE, got ${positionals.length} arguments`, usage);
  if (withEmbedding && role === 'embedding') return 'embedding';
  const parsed = ModelRole.safeParse(role);
  if (!parsed.success) throw new UsageError(`models ${sub}: unknown role; expected one of ${MODEL_ROLES.join(', ')}${withEmbedding ? ', or embedding' : ''}`, usage);
  return parsed.data;
}

// Which flag sets which field, so a problem names both.
const FLAGS: Readonly<Record<string, string>> = {
  provider: '--provider',
  model: '--model',
  baseUrl: '--base-url',
  apiKeySecret: '--api-key-secret',
  temperature: '--temperature',
  maxTokens: '--max-tokens',
  timeoutMs: '--timeout-ms',
  maxRetries: '--max-retries',
  dimensions: '--dimensions',
  'price.inputPerMillion': '--price-in',
  'price.outputPerMillion': '--price-out',
};

/** A number when the flag's text is one; otherwise the text, so the schema says what it expected of that field. */
function numeric(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim()) ? Number(value) : value;
}

const set: Subcommand = async (argv, io, open) => {
  const text = { type: 'string' } as const;
  const { values, positionals } = parseFlags(
    argv,
    {
      ...home,
      provider: text,
      model: text,
      'base-url': text,
      'api-key-secret': text,
      temperature: text,
      'max-tokens': text,
      'timeout-ms': text,
      'max-retries': text,
      'price-in': text,
      'price-out': text,
      dimensions: text,
      'key-stdin': { type: 'boolean' },
    },
    usage,
    true,
  );
  if (values.help) return help(io);
  const role = roleArg('set', positionals, true);
  const embedding = role === 'embedding';
  if (values.provider === undefined || values.model === undefined) throw new UsageError(`models set: --provider and --model are required (providers: ${(embedding ? EMBEDDING_PROVIDERS : MODEL_PROVIDERS).join(', ')})`, usage);
  const misplaced = embedding ? (['temperature', 'max-tokens', 'price-in', 'price-out'] as const).filter((flag) => values[flag] !== undefined) : values.dimensions === undefined ? [] : ['dimensions'];
  if (misplaced.length > 0) throw new UsageError(`models set: --${misplaced[0]} is ${embedding ? 'for the chat roles, not the embedding model' : 'for the embedding model only (silas models set embedding …)'}`, usage);
  if ((values['price-in'] === undefined) !== (values['price-out'] === undefined)) throw new UsageError('models set: give --price-in and --price-out together (US dollars per million input and output tokens)', usage);
  const entry: Record<string, unknown> = { provider: values.provider, model: values.model };
  const optional: Record<string, unknown> = {
    baseUrl: values['base-url'],
    apiKeySecret: values['api-key-secret'],
    temperature: numeric(values.temperature),
    maxTokens: numeric(values['max-tokens']),
    timeoutMs: numeric(values['timeout-ms']),
    maxRetries: numeric(values['max-retries']),
    dimensions: numeric(values.dimensions),
    price: values['price-in'] === undefined ? undefined : { inputPerMillion: numeric(values['price-in']), outputPerMillion: numeric(values['price-out']) },
  };
  for (const [field, value] of Object.entries(optional)) if (value !== undefined) entry[field] = value;

  const cli = await open(resolveHome(values.home, io.env));
  const ledger = await openModels(cli, 'signer');
  try {
    const current = ledger.load();
    // A file changed outside Silas is neither kept nor overwritten silently: the person looks first.
    if (!current.ok && current.exists) {
      io.err(`silas models set: nothing was written: ${current.problem}`);
      return 1;
    }
    const saved = ledger.save({ ...(current.ok ? current.raw : {}), [role]: entry });
    if (!saved.ok) {
      io.err(`silas models set: nothing was written to ${current.path}:`);
      for (const problem of saved.problems) io.err(`  ${withFlag(problem, role)}`);
      return 1;
    }
    io.out(`set the ${role} model in ${current.path}`);
    const config = role === 'embedding' ? saved.config.embedding! : saved.config[role]!;
    if (config.apiKeySecret !== undefined) await bindKey(ledger, config, config.apiKeySecret, values['key-stdin'] === true, io, cli);
    for (const line of role === 'embedding' ? describeEmbedding(saved.config.embedding!, cli) : describeRole(role, saved.config[role]!, cli)) io.out(line);
    return 0;
  } finally {
    ledger.close();
  }
};

/**
 * The CLI's way to let a key go to a new origin: the person enters the key again (only the owner
 * widens where a secret may go; docs/silas/models.md, "Where a key may go").
 */
async function bindKey(ledger: ModelsLedger, config: Pick<RoleModelConfig, 'provider' | 'baseUrl'>, name: string, keyStdin: boolean, io: CliIo, cli: CliContext): Promise<void> {
  const origin = originOf(baseUrlOf(config))!;
  const bound = ledger.secrets.boundOrigins(name);
  if (bound.includes(origin)) return;
  const stdin = io.stdin as Stdin | undefined;
  if (!stdin || (!keyStdin && !stdin.isTTY)) {
    io.err(
      `the key in secret "${name}" is not sent to ${origin} until you enter it for that origin: run \`silas secrets set ${name} --origin ${origin}\`, ` +
        `or this command again with --key-stdin and the key on standard input`,
    );
    return;
  }
  if (stdin.isTTY) io.err(`Type the API key for ${origin} (stored as secret "${name}", sent to ${origin} only), then press Enter and Ctrl-D.`);
  const value = await readSecretValue(stdin, name, cli.secretRules.maxBytes);
  if (value === '') throw new SilasError(ErrorCode.InvalidArgs, `no key was entered for secret "${name}"; the model is set, but its key is not sent to ${origin} until you run \`silas secrets set ${name} --origin ${origin}\``);
  ledger.secrets.set(name, value, { origins: [...bound, origin] });
  io.out(`stored secret "${name}"; it may be sent to ${[...bound, origin].sort().join(', ')}`);
}

/** `models.executor.temperature: …` → `models.executor.temperature (--temperature): …` for the role being set. */
function withFlag(problem: string, role: SetTarget): string {
  const prefix = `models.${role}.`;
  if (!problem.startsWith(prefix)) return problem;
  const colon = problem.indexOf(':');
  const flag = FLAGS[problem.slice(prefix.length, colon)];
  return flag === undefined ? problem : `${problem.slice(0, colon)} (${flag})${problem.slice(colon)}`;
}

const show: Subcommand = async (argv, io, open) => {
  const { values, positionals } = parseFlags(argv, { ...home, json: { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length > 0) throw new UsageError('models show: takes no arguments', usage);
  const cli = await open(resolveHome(values.home, io.env));
  const ledger = await openModels(cli, 'verify');
  let file;
  try {
    file = ledger.load({ report: false });
  } finally {
    ledger.close();
  }
  // A file not sealed by Silas is shown for the person to check, marked as not in use.
  const parsed = file.ok ? { ok: true as const, value: file.config } : checkModelsConfig(file.raw);
  if (!parsed.ok) throw new SilasError(ErrorCode.Config, `${file.path} is not a valid model configuration: ${parsed.problems.join('; ')}; fix it with \`silas models set ROLE …\``);
  const config: ModelsConfig = parsed.value;
  if (values.json) {
    const roles = Object.fromEntries(
      MODEL_ROLES.flatMap((role) => {
        const roleConfig = config[role];
        if (roleConfig === undefined) return [];
        return [[role, { ...roleConfig, baseUrl: baseUrlOf(roleConfig), ...keyState(roleConfig.apiKeySecret, cli) }]];
      }),
    );
    const embedding = config.embedding === undefined ? null : { ...config.embedding, baseUrl: baseUrlOf(config.embedding), ...keyState(config.embedding.apiKeySecret, cli) };
    io.out(JSON.stringify({ file: file.path, trusted: file.ok, problem: file.ok ? null : file.problem, roles, embedding }));
    return 0;
  }
  io.out(`Models (${file.path}${file.exists ? '' : ', not written yet'}):`);
  if (!file.ok) {
    io.out(`NOT IN USE: ${terminalSafe(file.problem)}`);
  }
  for (const role of MODEL_ROLES) {
    const roleConfig = config[role];
    if (roleConfig === undefined) io.out(`${role}: not configured (silas models set ${role} --provider … --model …)`);
    else for (const line of describeRole(role, roleConfig, cli)) io.out(line);
  }
  if (config.embedding === undefined) io.out('embedding: local word vectors (built in; a server with `silas models set embedding --provider … --model …`)');
  else for (const line of describeEmbedding(config.embedding, cli)) io.out(line);
  return 0;
};

/** Whether the secret is in the keyring and where it may go, for `show --json`. */
function keyState(name: string | undefined, cli: CliContext): { apiKeySecretState: SecretStatus['state'] | null; apiKeySecretOrigins: string[] | null } {
  return name === undefined ? { apiKeySecretState: null, apiKeySecretOrigins: null } : { apiKeySecretState: cli.secretStatus(name).state, apiKeySecretOrigins: cli.secretOrigins(name) };
}

const adopt: Subcommand = async (argv, io, open) => {
  const { values, positionals } = parseFlags(argv, home, usage, true);
  if (values.help) return help(io);
  if (positionals.length > 0) throw new UsageError('models adopt: takes no arguments', usage);
  const cli = await open(resolveHome(values.home, io.env));
  const ledger = await openModels(cli, 'signer');
  try {
    const file = ledger.load({ report: false });
    if (file.ok) {
      io.out(`${file.path} is sealed by Silas already; nothing to adopt`);
      return 0;
    }
    if (!file.exists) {
      ledger.forget();
      io.out(`${file.path} is gone; Silas no longer expects it (set each role with \`silas models set ROLE …\`)`);
      return 0;
    }
    const saved = ledger.save(file.raw);
    if (!saved.ok) {
      io.err(`silas models adopt: ${file.path} is not a valid model configuration, so it was not adopted:`);
      for (const problem of saved.problems) io.err(`  ${problem}`);
      return 1;
    }
    io.out(`adopted ${file.path}: sealed with the owner key; the roles below are in use from the next message`);
    for (const role of MODEL_ROLES) {
      const roleConfig = saved.config[role];
      if (roleConfig !== undefined) for (const line of describeRole(role, roleConfig, cli)) io.out(line);
    }
    if (saved.config.embedding !== undefined) for (const line of describeEmbedding(saved.config.embedding, cli)) io.out(line);
    return 0;
  } finally {
    ledger.close();
  }
};

function describeRole(role: ModelRole, config: RoleModelConfig, cli: CliContext): string[] {
  const lines = [`${role}:`, `  provider     ${config.provider}`, `  model        ${terminalSafe(config.model)}`, `  base URL     ${terminalSafe(baseUrlOf(config))}`];
  lines.push(`  API key      ${config.apiKeySecret === undefined ? 'none (a keyless local server)' : keyLine(config.apiKeySecret, cli.secretStatus(config.apiKeySecret))}`);
  if (config.apiKeySecret !== undefined) lines.push(`  key goes to  ${destinationLine(config, config.apiKeySecret, cli)}`);
  if (config.temperature !== undefined) lines.push(`  temperature  ${config.temperature}`);
  if (config.maxTokens !== undefined) lines.push(`  max tokens   ${config.maxTokens}`);
  lines.push(`  timeout      ${config.timeoutMs} ms, ${config.maxRetries} ${config.maxRetries === 1 ? 'retry' : 'retries'} after a 429 or 5xx`);
  lines.push(`  price        ${config.price ? `$${config.price.inputPerMillion} in / $${config.price.outputPerMillion} out per million tokens` : 'not priced (tokens are counted, cost is not)'}`);
  return lines;
}

function describeEmbedding(config: EmbeddingModelConfig, cli: CliContext): string[] {
  const lines = ['embedding:', `  provider     ${config.provider}`, `  model        ${terminalSafe(config.model)}`, `  base URL     ${terminalSafe(baseUrlOf(config))}`];
  lines.push(`  API key      ${config.apiKeySecret === undefined ? 'none (a keyless local server)' : keyLine(config.apiKeySecret, cli.secretStatus(config.apiKeySecret))}`);
  if (config.apiKeySecret !== undefined) lines.push(`  key goes to  ${destinationLine(config, config.apiKeySecret, cli)}`);
  lines.push(`  dimensions   ${config.dimensions ?? "the model's own (learnt from its first answer)"}`);
  lines.push(`  timeout      ${config.timeoutMs} ms per request of up to 64 texts, ${config.maxRetries} ${config.maxRetries === 1 ? 'retry' : 'retries'} after a 429 or 5xx`);
  return lines;
}

/** Whether the key may be sent to this role's origin (docs/silas/models.md, "Where a key may go"). */
function destinationLine(config: Pick<RoleModelConfig, 'provider' | 'baseUrl'>, name: string, cli: CliContext): string {
  const origin = originOf(baseUrlOf(config))!;
  const bound = cli.secretOrigins(name);
  if (bound === null) return 'unknown (the OS keyring could not be read)';
  if (bound.includes(origin)) return `${origin} only${bound.length > 1 ? ` (and ${bound.filter((o) => o !== origin).join(', ')})` : ''}`;
  return `NOT ${origin}: the key is stored for ${bound.length === 0 ? 'no model provider' : bound.join(', ')}; run \`silas secrets set ${name} --origin ${origin}\` if ${origin} is right`;
}

function keyLine(name: string, status: SecretStatus): string {
  switch (status.state) {
    case 'stored':
      return `secret "${name}", stored in the OS keyring`;
    case 'missing':
      return `secret "${name}", NOT in the OS keyring: run \`silas secrets set ${name}\` and type or pipe the key`;
    case 'unreadable':
      return `secret "${name}", unknown: ${status.reason}`;
  }
}

const test: Subcommand = async (argv, io, open) => {
  const { values, positionals } = parseFlags(argv, home, usage, true);
  if (values.help) return help(io);
  const role = roleArg('test', positionals);
  const cli = await open(resolveHome(values.home, io.env));
  const ledger = await openModels(cli, 'signer');
  try {
    const file = ledger.load();
    if (!file.ok) {
      io.err(`silas models test: ${role}: nothing was sent: ${file.problem}`);
      return 1;
    }
    const config = file.config[role];
    if (config === undefined) throw new SilasError(ErrorCode.Config, `no model configured for the ${role} role: run \`silas models set ${role} --provider … --model …\``);
    const where = `${config.provider} model "${terminalSafe(config.model)}" at ${terminalSafe(baseUrlOf(config))}`;
    const result = await ledger.probe(role, config);
    if (!result.ok) {
      io.err(`silas models test: ${role}: ${where} failed (${result.code}): ${terminalSafe(result.message)}`);
      return 1;
    }
    const cost = result.costUsd === null ? 'not priced' : `$${result.costUsd.toFixed(6)}`;
    io.out(`ok: ${role}: ${where} answered in ${result.latencyMs} ms; ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens, ${cost}`);
    return 0;
  } finally {
    ledger.close();
  }
};

/** The home's ledger for one `silas models` command: it seals models.json and records what is refused. */
async function openModels(cli: CliContext, keys: 'signer' | 'verify'): Promise<ModelsLedger> {
  return (await cli.database()).openModels(keys);
}

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

const subcommands: Record<string, Subcommand> = { show, set, test, adopt };

export const modelsCommand: Command = {
  name: 'models',
  usage,
  run: (argv, io, open) => runSubcommand('models', usage, subcommands, argv, io, open),
};
