import { z } from 'zod';
import { JsonObject } from '../../../src-shared/schemas/json.js';
import type { ExecutorAgentOutput } from '../../../src-shared/silas/execution.js';
import { builtinTools, type ToolRegistry } from './tools.js';
import type { ExecutorAgent, ExecutorAgentContext, StepReport, ToolCall } from './types.js';

/**
 * An ExecutorAgent without a model: it issues a fixed list of tool calls in order (and, between
 * them, may report plan-step outputs for `after_step` gates). Used by tests and by
 * `silas run --agent script:CALLS.json` until the LLM agents arrive.
 */

export type ScriptedStep = ToolCall | StepReport;

export interface ScriptedAgentOptions {
  /** The summary the agent claims; deliberately trusted by nothing. Default: counts of the calls. */
  summary?: string;
  nextSteps?: string[];
  artifactRefs?: string[];
  /** LLM usage to report before each tool call, as a model would incur it while deciding the call. */
  usagePerCall?: { tokens?: number; cost_usd?: number };
}

const MAX_SCRIPTED_STEPS = 1000;

/** A script per attempt: the same list every attempt, or one chosen by attempt number (1-based). */
export type Script = readonly ScriptedStep[] | ((attempt: number) => readonly ScriptedStep[]);

export class ScriptedExecutorAgent implements ExecutorAgent {
  constructor(
    private readonly script: Script,
    private readonly options: ScriptedAgentOptions = {},
  ) {}

  async run(context: ExecutorAgentContext): Promise<ExecutorAgentOutput> {
    const steps = typeof this.script === 'function' ? this.script(context.attempt) : this.script;
    const counts = { succeeded: 0, failed: 0, blocked: 0, invalid: 0, refused: 0 };
    for (const step of steps) {
      if (context.signal.aborted) break;
      if ('tool' in step) {
        if (this.options.usagePerCall) context.recordUsage(this.options.usagePerCall);
        const outcome = await context.callTool(step);
        counts[outcome.status] += 1;
        // A refusal means the attempt is over; a script has nothing better to try.
        if (outcome.status === 'refused') break;
      } else {
        const outcome = await context.completeStep(step);
        if (outcome.status === 'blocked') break;
      }
    }
    const calls = steps.filter((step) => 'tool' in step).length;
    return {
      summary:
        this.options.summary ??
        `Scripted agent issued ${calls} tool call(s): ${counts.succeeded} succeeded, ${counts.failed} failed, ${counts.blocked} blocked, ${counts.invalid} invalid, ${counts.refused} refused`,
      artifact_refs: [...(this.options.artifactRefs ?? [])],
      next_steps: [...(this.options.nextSteps ?? [])],
    };
  }
}

const ToolEntry = z.object({ tool: z.string({ error: 'expected a tool name' }).min(1, { error: 'expected a tool name' }), args: JsonObject }).strict();
const StepEntry = z
  .object({
    step: z.number({ error: 'expected a step number' }).int({ error: 'expected a whole step number' }).min(0, { error: 'expected a step number >= 0' }),
    outputs: JsonObject,
  })
  .strict();

export class ScriptParseError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${file}: ${field}: ${detail}`);
    this.name = 'ScriptParseError';
  }
}

/**
 * Validates a CALLS.json document: a list of `{"tool","args"}` (and optionally `{"step","outputs"}`)
 * entries. Each tool must be offered and its arguments must match the tool's schema, so a bad
 * script is refused before anything is approved or run. Errors name the file, index and field.
 */
export function parseScriptedCalls(document: unknown, file = 'calls.json', tools: ToolRegistry = builtinTools()): ScriptedStep[] {
  if (!Array.isArray(document)) throw new ScriptParseError(file, '(document)', 'expected a JSON list of {"tool","args"} entries');
  if (document.length > MAX_SCRIPTED_STEPS) throw new ScriptParseError(file, '(document)', `at most ${MAX_SCRIPTED_STEPS} entries, got ${document.length}`);
  return document.map((entry, index): ScriptedStep => {
    const at = `[${index}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new ScriptParseError(file, at, 'expected an object {"tool": "shell_exec", "args": {"command": ["ls"]}}');
    }
    const schema = 'step' in entry && !('tool' in entry) ? StepEntry : ToolEntry;
    const parsed = schema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const detail = issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')}; an entry has "tool" and "args"` : issue.message;
      throw new ScriptParseError(file, [at, ...issue.path.map(String)].join('.'), detail);
    }
    if (!('tool' in parsed.data)) return parsed.data as StepReport;
    const call = parsed.data as ToolCall;
    const tool = tools.get(call.tool);
    if (!tool) throw new ScriptParseError(file, `${at}.tool`, `unknown tool "${call.tool}"; known: ${[...tools.keys()].join(', ')}`);
    const checked = tool.validate(call.args);
    if (!checked.ok) throw new ScriptParseError(file, `${at}.${checked.field}`, checked.message);
    return { tool: call.tool, args: checked.args };
  });
}
