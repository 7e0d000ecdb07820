import { realpath } from 'node:fs/promises';
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { Gate, GateContext } from '../../../src-shared/silas/gates.js';
import { compileExpectation, type ExpectationCheck } from './expectation.js';
import { confineLexically } from './paths.js';
import { compileValuePredicate, type ValuePredicate } from './predicate-provider.js';
import { displayValue, GateConfigError, parseProviderConfig, type GateCheckProvider, type GateVerdict, type PreparedGateCheck } from './provider.js';
import { spawnScript, type ScriptSpawner } from './spawn.js';

/**
 * The `script` provider (spec 002 §5.5.4), Option A of the spec and nothing else: context values
 * reach the script ONLY as environment variables. The command is an argument list fixed by the
 * approved plan; no value is ever interpolated into it and no shell ever parses it, so a customer
 * name such as `$(touch /tmp/pwned)` or `'; rm -rf / #` is just bytes in `$CUSTOMER_NAME`.
 */

/** Names whose value changes how the loader, a shell or an interpreter behaves; a context value must never set them. */
const RESERVED_EXACT = new Set(['PATH', 'HOME', 'LANG', 'ENV', 'BASH_ENV', 'SHELL', 'SHELLOPTS', 'BASHOPTS', 'IFS', 'PS4', 'PROMPT_COMMAND', 'CDPATH', 'GLOBIGNORE', 'TMPDIR', 'PWD', 'OLDPWD', 'USER', 'LOGNAME']);
const RESERVED_PREFIXES = ['LD_', 'DYLD_', 'LC_', 'PYTHON', 'PERL', 'RUBY', 'NODE_', 'JAVA_', 'GIT_', 'BASH_FUNC', 'SILAS_'];

const EnvName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]{0,63}$/, 'environment variable names are upper-case letters, digits and "_"')
  .refine((name) => !RESERVED_EXACT.has(name) && !RESERVED_PREFIXES.some((p) => name.startsWith(p)), 'this name is reserved: a value placed in it would change how the script runs');
const NoNul = z.string().refine((s) => !s.includes('\0'), 'must not contain NUL');

const ScriptConfig = z
  .object({
    command: z.array(NoNul.min(1).max(4096)).min(1).max(256).optional(),
    script: NoNul.min(1).max(1024).optional(),
    interpreter: NoNul.min(1).max(256).optional(),
    args: z.array(NoNul.max(4096)).max(256).optional(),
    args_from_env: z.array(EnvName).max(64).optional(),
    timeout_seconds: z.number().positive().max(300).default(30),
    max_output_bytes: z.number().int().min(1024).max(1_048_576).default(65_536),
    /** Settings of the predicate an `extract`ed value is checked with (e.g. `{pattern: "^ok$"}` for type regex). */
    predicate: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const MAX_ENV_VALUE = 32_768;

/**
 * Splits a `check_command` into words, without a shell: quotes group, nothing expands. Anything a
 * shell would have acted on is refused, so no author is surprised that `|` or `$X` did nothing.
 */
export function splitCommand(command: string): string[] {
  if (/[$`\0\n\r]/.test(command)) {
    throw new Error('"$", backticks and newlines are not allowed: the command runs without a shell; read values from environment variables listed in config.args_from_env');
  }
  const words: string[] = [];
  let current = '';
  let quote: '"' | "'" | null = null;
  let inWord = false;
  for (const ch of command) {
    if (quote !== null) {
      if (ch === quote) quote = null;
      else current += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else if ('|;&<>(){}*?~\\'.includes(ch)) {
      throw new Error(`"${ch}" outside quotes is shell syntax, and the command runs without a shell; use config.command as an argument list`);
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error('unbalanced quote');
  if (inWord) words.push(current);
  if (words.length === 0) throw new Error('empty command');
  return words;
}

function envText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `key: value` lines of stdout (first occurrence wins) and the reserved `modified_context: {json}` line. */
export function parseScriptOutput(stdout: string): { values: Map<string, string>; modified: JsonObject | null; modifiedError: string | null } {
  const values = new Map<string, string>();
  let modified: JsonObject | null = null;
  let modifiedError: string | null = null;
  for (const line of stdout.split(/\r?\n/)) {
    const match = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*:\s?(.*)$/.exec(line);
    if (match === null) continue;
    const [, key, value] = match as unknown as [string, string, string];
    if (key === 'modified_context') {
      if (modified !== null || modifiedError !== null) continue;
      try {
        const parsed: unknown = JSON.parse(value);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) modified = parsed as JsonObject;
        else modifiedError = 'modified_context is not a JSON object';
      } catch {
        modifiedError = 'modified_context is not valid JSON';
      }
      continue;
    }
    if (!values.has(key)) values.set(key, value.trim());
  }
  return { values, modified, modifiedError };
}

export interface ScriptProviderOptions {
  /** Working directory of every gate script (the "gates working directory" of §5.5.4). */
  workDir: string;
  /** Where `config.script` paths live; defaults to `workDir`. Scripts outside it are refused. */
  scriptsDir?: string;
  /** PATH given to scripts; nothing else of this process's environment is passed on. */
  path?: string;
  /** Permitted directories for a `check_expect.file_exists`. */
  fileRoots?: readonly string[];
  spawn?: ScriptSpawner;
}

export class ScriptGateProvider implements GateCheckProvider {
  readonly name = 'script' as const;
  private readonly spawn: ScriptSpawner;
  private readonly scriptsDir: string;
  private readonly pathEnv: string;

  constructor(private readonly options: ScriptProviderOptions) {
    this.spawn = options.spawn ?? spawnScript;
    this.scriptsDir = options.scriptsDir ?? options.workDir;
    this.pathEnv = options.path ?? '/usr/local/bin:/usr/bin:/bin';
  }

  prepare(gate: Gate): PreparedGateCheck {
    const config = parseProviderConfig(gate, ScriptConfig);
    const command = this.commandOf(gate, config);
    const expectation: ExpectationCheck | null = gate.check_expect === null ? null : compileExpectation(gate.name, gate.check_expect, this.options.fileRoots ?? []);
    let predicate: ValuePredicate | null = null;
    if (gate.extract !== null) {
      predicate = compileValuePredicate({ ...gate, config: (config.predicate ?? {}) as JsonObject });
    }
    const timeoutMs = Math.round(config.timeout_seconds * 1000);

    return async (context: GateContext): Promise<GateVerdict> => {
      const env = this.environment(gate, config.args_from_env ?? [], context);
      if (typeof env === 'string') return { action: 'block', reason: env };
      const resolved = await this.resolveArgv(command);
      if (typeof resolved === 'string') return { action: 'block', reason: resolved };

      const run = await this.spawn({ argv: resolved, env, cwd: this.options.workDir, timeoutMs, maxOutputBytes: config.max_output_bytes });
      if (run.spawnError !== null) return { action: 'block', reason: `Script could not start: ${run.spawnError}` };
      if (run.timedOut) return { action: 'block', reason: `Timeout after ${config.timeout_seconds}s` };
      if (run.outputExceeded) return { action: 'block', reason: `Script output exceeded ${config.max_output_bytes} bytes` };

      const output = parseScriptOutput(run.stdout);
      const modified = output.modified;
      const note = output.modifiedError === null ? '' : ` (${output.modifiedError}; ignored)`;
      if (expectation !== null) {
        const verdict = await expectation({ stdout: run.stdout, exitCode: run.exitCode });
        if (!verdict.passed) return { action: 'block', reason: `Script check failed: ${verdict.reason}${note}`, value: displayValue(run.stdout.trim()) };
        if (predicate === null) return { action: 'continue', reason: `Script check passed: ${verdict.reason}${note}`, value: displayValue(run.stdout.trim()), modified_context: modified };
      }
      // Without an expectation a failing script never lets the gate pass (fail closed).
      if (expectation === null && run.exitCode !== 0) {
        return { action: 'block', reason: `Script exited with ${run.exitCode ?? `signal ${run.signal ?? 'unknown'}`}${note}`, value: displayValue(run.stdout.trim()) };
      }
      if (predicate !== null) {
        const extracted = output.values.get(gate.extract!);
        if (extracted === undefined) return { action: 'block', reason: `Script output has no "${gate.extract}:" line${note}` };
        const verdict = predicate(extracted);
        return { ...verdict, reason: `${verdict.reason}${note}`, modified_context: verdict.action === 'block' ? null : (verdict.modified_context ?? modified) };
      }
      return { action: 'continue', reason: `Script passed${note}`, value: displayValue(run.stdout.trim()), modified_context: modified };
    };
  }

  private commandOf(gate: Gate, config: z.infer<typeof ScriptConfig>): { argv: string[]; script: string | null } {
    if (config.command !== undefined) return { argv: [...config.command], script: null };
    if (config.script !== undefined) {
      const script = confineLexically(config.script, [this.scriptsDir]);
      if (script === null || config.script.startsWith('/')) {
        throw new GateConfigError(gate.name, 'config.script', 'must be a relative path inside the gate scripts directory, without ".."');
      }
      const head = config.interpreter === undefined ? [] : [config.interpreter];
      return { argv: [...head, script, ...(config.args ?? [])], script };
    }
    const text = gate.check_command ?? gate.check;
    const field = gate.check_command !== null ? 'check_command' : 'check';
    if (text === null) throw new GateConfigError(gate.name, 'config.command', 'a script gate needs config.command (an argument list), config.script or check_command');
    try {
      return { argv: splitCommand(text), script: null };
    } catch (error) {
      throw new GateConfigError(gate.name, field, (error as Error).message);
    }
  }

  /** A symlink inside the scripts directory must not lead out of it. */
  private async resolveArgv(command: { argv: string[]; script: string | null }): Promise<string[] | string> {
    if (command.script === null) return command.argv;
    try {
      const [real, root] = await Promise.all([realpath(command.script), realpath(this.scriptsDir)]);
      if (confineLexically(real, [root]) === null) return 'Script outside the gate scripts directory';
      return command.argv.map((arg) => (arg === command.script ? real : arg));
    } catch {
      return 'Script not found';
    }
  }

  private environment(gate: Gate, names: readonly string[], context: GateContext): Record<string, string> | string {
    const env: Record<string, string> = {
      PATH: this.pathEnv,
      HOME: this.options.workDir,
      LANG: 'C.UTF-8',
      SILAS_GATE_NAME: gate.name,
      SILAS_GATE_TRIGGER: gate.on,
    };
    const put = (name: string, value: JsonValue | undefined): string | null => {
      if (value === undefined || value === null) return null;
      const text = envText(value);
      if (text.includes('\0')) return `Value for ${name} contains NUL`;
      if (text.length > MAX_ENV_VALUE) return `Value for ${name} is longer than ${MAX_ENV_VALUE} characters`;
      env[name] = text;
      return null;
    };
    const trigger = gate.on === 'every_user_message' ? context.message : gate.on === 'every_agent_response' ? context.response : undefined;
    const problems = [
      put('SILAS_GATE_VALUE', trigger),
      gate.on === 'on_tool_call' ? put('SILAS_TOOL_NAME', context.tool_name) : null,
      gate.on === 'on_tool_call' ? put('SILAS_TOOL_ARGS', context.tool_args) : null,
      ...names.map((name) => put(name, Object.hasOwn(context, name) ? context[name] : Object.hasOwn(context, name.toLowerCase()) ? context[name.toLowerCase()] : undefined)),
    ].filter((p): p is string => p !== null);
    return problems.length > 0 ? problems[0]! : env;
  }
}
