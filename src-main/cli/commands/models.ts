import { MODEL_PROVIDERS, MODEL_ROLES, ModelRole, type RoleModelConfig } from '../../../src-shared/llm/config.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { baseUrlOf, loadModelsFile, probeModel, readModelsFileRaw, saveModelsFile, secretStatus, type SecretStatus } from '../../app/cli-models.js';
import { resolveHome } from '../../home/paths.js';
import { parseFlags } from '../args.js';
import { UsageError, runSubcommand, type CliIo, type Command, type Subcommand } from '../io.js';
import { terminalSafe } from './plan.js';

const usage = `Usage: silas models <show|set|test> [ROLE] [options]

  silas models show [--json] [--home DIR]
      Each role (${MODEL_ROLES.join(', ')}): provider, model, base URL, the NAME of the
      keyring secret holding its API key and whether the keyring has it. Never a key.
  silas models set ROLE --provider P --model M [--base-url URL] [--api-key-secret NAME]
                   [--temperature X] [--max-tokens N] [--timeout-ms N] [--max-retries N]
                   [--price-in X --price-out Y] [--home DIR]
      Sets ROLE's model in HOME/models.json, replacing what the role had; the file is checked
      as a whole and written atomically, or not at all.
  silas models test ROLE [--home DIR]
      One small real call to ROLE's model: prints ok with the latency and tokens, or what
      failed and how to fix it (exit 1).

Providers: ${MODEL_PROVIDERS.join(', ')}. openai-compatible (Ollama, LM Studio, vLLM, llama.cpp's
server) needs --base-url, e.g. http://127.0.0.1:11434/v1; openrouter and anthropic need
--api-key-secret. An API key is never given here: store it with \`silas secrets set NAME\` (it is
read from standard input) and pass --api-key-secret NAME. Prices are US dollars per million
input and output tokens; without them calls are counted but not priced.`;

const home = { home: { type: 'string' } } as const;

function roleArg(sub: string, positionals: string[]): ModelRole {
  const [role, ...extra] = positionals;
  if (role === undefined) throw new UsageError(`models ${sub}: name the role (${MODEL_ROLES.join(', ')})`, usage);
  // The argument is not echoed: it may be anything, a key pasted in the wrong place included.
  if (extra.length > 0) throw new UsageError(`models ${sub}: takes exactly one ROLE, got ${positionals.length} arguments`, usage);
  const parsed = ModelRole.safeParse(role);
  if (!parsed.success) throw new UsageError(`models ${sub}: unknown role; expected one of ${MODEL_ROLES.join(', ')}`, usage);
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
  'price.inputPerMillion': '--price-in',
  'price.outputPerMillion': '--price-out',
};

/** A number when the flag's text is one; otherwise the text, so the schema says what it expected of that field. */
function numeric(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim()) ? Number(value) : value;
}

const set: Subcommand = async (argv, io) => {
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
    },
    usage,
    true,
  );
  if (values.help) return help(io);
  const role = roleArg('set', positionals);
  if (values.provider === undefined || values.model === undefined) throw new UsageError(`models set: --provider and --model are required (providers: ${MODEL_PROVIDERS.join(', ')})`, usage);
  if ((values['price-in'] === undefined) !== (values['price-out'] === undefined)) throw new UsageError('models set: give --price-in and --price-out together (US dollars per million input and output tokens)', usage);
  const entry: Record<string, unknown> = { provider: values.provider, model: values.model };
  const optional: Record<string, unknown> = {
    baseUrl: values['base-url'],
    apiKeySecret: values['api-key-secret'],
    temperature: numeric(values.temperature),
    maxTokens: numeric(values['max-tokens']),
    timeoutMs: numeric(values['timeout-ms']),
    maxRetries: numeric(values['max-retries']),
    price: values['price-in'] === undefined ? undefined : { inputPerMillion: numeric(values['price-in']), outputPerMillion: numeric(values['price-out']) },
  };
  for (const [field, value] of Object.entries(optional)) if (value !== undefined) entry[field] = value;

  const dataHome = resolveHome(values.home, io.env);
  const file = readModelsFileRaw(dataHome);
  const saved = saveModelsFile(dataHome, { ...file.raw, [role]: entry });
  if (!saved.ok) {
    io.err(`silas models set: nothing was written to ${file.path}:`);
    for (const problem of saved.problems) io.err(`  ${withFlag(problem, role)}`);
    return 1;
  }
  io.out(`set the ${role} model in ${file.path}`);
  for (const line of describeRole(role, saved.config[role]!, io)) io.out(line);
  return 0;
};

/** `models.executor.temperature: …` → `models.executor.temperature (--temperature): …` for the role being set. */
function withFlag(problem: string, role: ModelRole): string {
  const prefix = `models.${role}.`;
  if (!problem.startsWith(prefix)) return problem;
  const colon = problem.indexOf(':');
  const flag = FLAGS[problem.slice(prefix.length, colon)];
  return flag === undefined ? problem : `${problem.slice(0, colon)} (${flag})${problem.slice(colon)}`;
}

const show: Subcommand = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, { ...home, json: { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length > 0) throw new UsageError('models show: takes no arguments', usage);
  const file = loadModelsFile(resolveHome(values.home, io.env));
  if (values.json) {
    const roles = Object.fromEntries(
      MODEL_ROLES.flatMap((role) => {
        const config = file.config[role];
        if (config === undefined) return [];
        const secret = config.apiKeySecret === undefined ? null : secretStatus(config.apiKeySecret, io.secretStore).state;
        return [[role, { ...config, baseUrl: baseUrlOf(config), apiKeySecretState: secret }]];
      }),
    );
    io.out(JSON.stringify({ file: file.path, roles }));
    return 0;
  }
  io.out(`Models (${file.path}${file.exists ? '' : ', not written yet'}):`);
  for (const role of MODEL_ROLES) {
    const config = file.config[role];
    if (config === undefined) io.out(`${role}: not configured (silas models set ${role} --provider … --model …)`);
    else for (const line of describeRole(role, config, io)) io.out(line);
  }
  return 0;
};

function describeRole(role: ModelRole, config: RoleModelConfig, io: CliIo): string[] {
  const lines = [`${role}:`, `  provider     ${config.provider}`, `  model        ${terminalSafe(config.model)}`, `  base URL     ${terminalSafe(baseUrlOf(config))}`];
  lines.push(`  API key      ${config.apiKeySecret === undefined ? 'none (a keyless local server)' : keyLine(config.apiKeySecret, secretStatus(config.apiKeySecret, io.secretStore))}`);
  if (config.temperature !== undefined) lines.push(`  temperature  ${config.temperature}`);
  if (config.maxTokens !== undefined) lines.push(`  max tokens   ${config.maxTokens}`);
  lines.push(`  timeout      ${config.timeoutMs} ms, ${config.maxRetries} ${config.maxRetries === 1 ? 'retry' : 'retries'} after a 429 or 5xx`);
  lines.push(`  price        ${config.price ? `$${config.price.inputPerMillion} in / $${config.price.outputPerMillion} out per million tokens` : 'not priced (tokens are counted, cost is not)'}`);
  return lines;
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

const test: Subcommand = async (argv, io) => {
  const { values, positionals } = parseFlags(argv, home, usage, true);
  if (values.help) return help(io);
  const role = roleArg('test', positionals);
  const config = loadModelsFile(resolveHome(values.home, io.env)).config[role];
  if (config === undefined) throw new SilasError(ErrorCode.Config, `no model configured for the ${role} role: run \`silas models set ${role} --provider … --model …\``);
  const where = `${config.provider} model "${terminalSafe(config.model)}" at ${terminalSafe(baseUrlOf(config))}`;
  const result = await probeModel(role, config, io.secretStore);
  if (!result.ok) {
    io.err(`silas models test: ${role}: ${where} failed (${result.code}): ${terminalSafe(result.message)}`);
    return 1;
  }
  const cost = result.costUsd === null ? 'not priced' : `$${result.costUsd.toFixed(6)}`;
  io.out(`ok: ${role}: ${where} answered in ${result.latencyMs} ms; ${result.usage.inputTokens} input + ${result.usage.outputTokens} output tokens, ${cost}`);
  return 0;
};

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

const subcommands: Record<string, Subcommand> = { show, set, test };

export const modelsCommand: Command = {
  name: 'models',
  usage,
  run: (argv, io) => runSubcommand('models', usage, subcommands, argv, io),
};
