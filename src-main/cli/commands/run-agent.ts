import { readFileSync, statSync } from 'node:fs';
import { isSilasError } from '../../../src-shared/errors.js';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import type { SecretStore } from '../../app/cli-context.js';
import type { RecordingAuditLog } from '../../silas/executor/audit.js';
import { ScriptedExecutorAgent, ScriptParseError, parseScriptedCalls, type ScriptedStep } from '../../silas/executor/scripted-agent.js';
import type { ExecutorAgent } from '../../silas/executor/types.js';
import { UsageError } from '../io.js';

/*
 * The `--agent` of `silas run`: `script:CALLS.json` (a fixed list of tool calls) or `llm` (the
 * executor role's model from `silas models`). Both are resolved before anyone is asked to
 * approve, so a missing file, model or key costs no approval.
 */

const MAX_CALLS_FILE_BYTES = 1024 * 1024;

export type AgentSpec = { kind: 'script'; script: ScriptedStep[] } | { kind: 'llm' };

export interface ResolvedAgent {
  /** What runs the plan, for the run's header; null for a script. */
  description: string | null;
  agentFor(item: WorkItem, audit: RecordingAuditLog): ExecutorAgent;
}

/** Parses `--agent`; a script file is read and checked here. Throws UsageError, or ScriptParseError naming the file and field. */
export function parseAgentSpec(spec: string | undefined, usage: string): AgentSpec {
  if (spec === undefined) throw new UsageError('--agent is required: llm (the executor model set with `silas models set executor …`) or script:CALLS.json', usage);
  if (spec === 'llm') return { kind: 'llm' };
  if (!spec.startsWith('script:') || spec.length === 'script:'.length) throw new UsageError(`--agent: expected llm or script:CALLS.json, got "${spec}"`, usage);
  return { kind: 'script', script: loadScript(spec.slice('script:'.length)) };
}

/** The agent for the run, or the message that says what to set up first (a model, a key). */
export async function resolveAgent(spec: AgentSpec, home: string, secretStore: SecretStore): Promise<{ ok: true; agent: ResolvedAgent } | { ok: false; message: string }> {
  if (spec.kind === 'script') return { ok: true, agent: { description: null, agentFor: () => new ScriptedExecutorAgent(spec.script) } };
  try {
    // The AI SDK loads only for an LLM agent: a scripted run starts without it.
    const { prepareLlmExecutorForRun } = await import('../../app/compose-llm-executor.js');
    const llm = prepareLlmExecutorForRun(home, secretStore);
    return { ok: true, agent: { description: llm.description, agentFor: llm.agentFor } };
  } catch (error) {
    if (isSilasError(error)) return { ok: false, message: error.message };
    throw error;
  }
}

function loadScript(file: string): ScriptedStep[] {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ScriptParseError(file, '(file)', 'not a regular file');
    if (stat.size > MAX_CALLS_FILE_BYTES) throw new ScriptParseError(file, '(file)', `${stat.size} bytes; at most ${MAX_CALLS_FILE_BYTES}`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ScriptParseError) throw error;
    throw new ScriptParseError(file, '(file)', `cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ScriptParseError(file, '(document)', `not valid JSON (${(error as Error).message})`);
  }
  return parseScriptedCalls(document, file);
}
