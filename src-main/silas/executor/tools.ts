import { z } from 'zod';
import type { JsonObject } from '../../../src-shared/schemas/json.js';

/**
 * The executor registry of spec 002 §9.2, reduced to what is built so far: `shell_exec` and
 * `python_exec`, both run by the sandboxed EphemeralExecutor in the task's work directory.
 * Arguments are validated against a strict schema before anything reaches the sandbox (§5.2.1
 * c2): a bad call gets a deterministic error naming the field, and nothing runs.
 */

export interface ToolDefinition {
  name: string;
  /** Validated arguments, or the offending field (`args.command.0`) and what is wrong with it. */
  validate(args: unknown): { ok: true; args: JsonObject } | { ok: false; field: string; message: string };
}

export function describeInvalidArgs(tool: string, invalid: { field: string; message: string }): string {
  return `${tool}: ${invalid.field}: ${invalid.message}`;
}

const MAX_ARGV = 1000;
const MAX_ARG_LENGTH = 100_000;
const MAX_PYTHON_SOURCE = 200_000;

const argString = z
  .string({ error: 'expected a string' })
  .max(MAX_ARG_LENGTH, { error: `at most ${MAX_ARG_LENGTH} characters` })
  .refine((value) => !value.includes('\0'), { error: 'must not contain NUL' });

const ShellExecArgs = z
  .object({
    command: z
      .array(argString, { error: 'expected an argument list such as ["ls", "-la"]; shell strings are not accepted' })
      .min(1, { error: 'expected at least the program name' })
      .max(MAX_ARGV, { error: `at most ${MAX_ARGV} arguments` })
      .refine((argv) => argv[0] !== '', { error: 'the program name must not be empty' }),
  })
  .strict();

const PythonExecArgs = z
  .object({
    code: z
      .string({ error: 'expected Python source text' })
      .max(MAX_PYTHON_SOURCE, { error: `at most ${MAX_PYTHON_SOURCE} characters` })
      .refine((value) => !value.includes('\0'), { error: 'must not contain NUL' }),
  })
  .strict();

function schemaTool(name: string, schema: z.ZodType<JsonObject>): ToolDefinition {
  return {
    name,
    validate(args) {
      const parsed = schema.safeParse(args);
      if (parsed.success) return { ok: true, args: parsed.data };
      const issue = parsed.error.issues[0]!;
      const detail = issue.code === 'unrecognized_keys' ? `unknown argument(s) ${issue.keys.join(', ')}` : issue.message;
      return { ok: false, field: ['args', ...issue.path.map(String)].join('.'), message: detail };
    },
  };
}

const shellExecTool = schemaTool('shell_exec', ShellExecArgs);
const pythonExecTool = schemaTool('python_exec', PythonExecArgs);

/** The tools offered to executor agents, by name. */
export type ToolRegistry = ReadonlyMap<string, ToolDefinition>;

export function builtinTools(): ToolRegistry {
  return new Map([shellExecTool, pythonExecTool].map((tool) => [tool.name, tool]));
}
