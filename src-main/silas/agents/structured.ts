import type { z } from 'zod';
import type { AgentName, StructuredOutputEvent, StructuredOutputReason } from '../../../src-shared/silas/agents.js';
import { redactText } from '../gates/audit-redact.js';

/**
 * The structured-output policy of spec 002 §5.1.0: every Proxy, Planner, Executor and scorer call
 * goes through `runStructuredAgent`. The model's answer is validated against the agent's zod
 * schema; a failure gets exactly ONE repair call carrying the validation errors (by JSON path);
 * a second failure, or a call that throws, yields the agent's deterministic fallback and an audit
 * event. The model client is injected as `call`, so nothing here knows a provider.
 */

export interface AgentMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface AgentPrompt {
  system: string;
  messages: readonly AgentMessage[];
}

interface ModelUsage {
  tokens?: number;
  cost_usd?: number;
}

export interface StructuredCallResult {
  /** What the model wrote. Parsed as JSON when `object` is absent; never logged whole. */
  rawText: string;
  /** The provider's structured output, when it has one; validated here all the same. */
  object?: unknown;
  usage?: ModelUsage;
}

/**
 * One model call. The repair call passes `repairNote` ("[SCHEMA VALIDATION ERROR]\n" + summary),
 * which the client appends to the same prompt; it must use the same model and the same token and
 * tool limits as the first call (§5.1.0 rule 2).
 */
export type StructuredCall = (prompt: AgentPrompt, repairNote?: string, options?: { signal?: AbortSignal }) => Promise<StructuredCallResult>;

type StructuredSource = 'model' | 'repaired' | 'fallback';

export interface StructuredFailure {
  agent: AgentName;
  reason: StructuredOutputReason;
  firstError: string;
  repairError: string | null;
}

export interface StructuredResult<T> {
  value: T;
  source: StructuredSource;
  /** Usage of every call made, the repair included, for the budget. */
  usage: { tokens: number; cost_usd: number };
}

export interface RunStructuredAgentOptions<S extends z.ZodType> {
  agent: AgentName;
  schema: S;
  prompt: AgentPrompt;
  call: StructuredCall;
  /** The agent's deterministic fallback (§5.1.0 rule 3); its value is checked against `schema`. */
  fallback: (failure: StructuredFailure) => z.input<S>;
  /** Receives a `repaired` or `fallback` event, already capped and redacted. */
  audit: (event: StructuredOutputEvent) => void;
  /** A cancelled turn is not a bad answer: when it fires, a failing call's error is rethrown. */
  signal?: AbortSignal;
}

export const REPAIR_NOTE_HEADER = '[SCHEMA VALIDATION ERROR]';
const MAX_ISSUES = 10;
const MAX_ISSUE_CHARS = 200;
const MAX_SUMMARY_CHARS = 2000;
const RAW_EXCERPT_CHARS = 200;

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** `$`, `$.plan_action.action`, `$.memory_queries[3]`: where in the answer a problem is. */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '$';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** One line per problem, each naming its JSON path; capped so it fits a prompt and the ledger. */
function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, MAX_ISSUES).map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `${jsonPath(issue.path)}: unknown field(s) ${issue.keys.map((key) => JSON.stringify(clip(key, 60))).join(', ')}; remove them`;
    }
    return `${jsonPath(issue.path)}: ${clip(issue.message, MAX_ISSUE_CHARS)}`;
  });
  if (issues.length > MAX_ISSUES) lines.push(`… and ${issues.length - MAX_ISSUES} more problem(s)`);
  return clip(lines.join('\n'), MAX_SUMMARY_CHARS);
}

type Checked<T> = { ok: true; value: T } | { ok: false; summary: string };

/** Validates the structured object, or the text as JSON when the provider gave no object. */
function checkAnswer<S extends z.ZodType>(schema: S, answer: StructuredCallResult): Checked<z.output<S>> {
  let candidate = answer.object;
  if (candidate === undefined) {
    try {
      candidate = JSON.parse(stripFence(typeof answer.rawText === 'string' ? answer.rawText : ''));
    } catch {
      // JSON.parse's message quotes the text; the text may hold anything, so it is not repeated.
      return { ok: false, summary: '$: the answer is not JSON; answer with one JSON object and nothing else' };
    }
  }
  const parsed = schema.safeParse(candidate);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, summary: summarizeIssues(parsed.error.issues) };
}

/** A model in JSON mode sometimes still wraps its answer in one ```json fence. */
function stripFence(text: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return match ? match[1]! : text;
}

function errorSummary(error: unknown): string {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return redactText(clip(message, 300));
}

export async function runStructuredAgent<S extends z.ZodType>(options: RunStructuredAgentOptions<S>): Promise<StructuredResult<z.output<S>>> {
  const { agent, schema, prompt, call, signal } = options;
  const usage = { tokens: 0, cost_usd: 0 };
  const charge = (answer: StructuredCallResult) => {
    const tokens = Number(answer.usage?.tokens ?? 0);
    const cost = Number(answer.usage?.cost_usd ?? 0);
    if (Number.isFinite(tokens) && tokens > 0) usage.tokens += tokens;
    if (Number.isFinite(cost) && cost > 0) usage.cost_usd += cost;
  };
  const fallback = (reason: StructuredOutputReason, firstError: string, repairError: string | null, raw: string) => {
    options.audit({
      kind: 'fallback',
      agent,
      reason,
      first_error: redactText(firstError),
      repair_error: repairError === null ? null : redactText(repairError),
      raw_chars: raw.length,
      raw_excerpt: clip(redactText(clip(raw, RAW_EXCERPT_CHARS)), RAW_EXCERPT_CHARS),
    });
    // The fallback is our own code: if it does not fit the schema, that is a bug to surface.
    const value = schema.parse(options.fallback({ agent, reason, firstError, repairError }));
    return { value, source: 'fallback' as const, usage };
  };
  type Attempt = { ok: true; answer: StructuredCallResult } | { ok: false; error: unknown };
  const attempt = async (repairNote?: string): Promise<Attempt> => {
    try {
      const answer = await call(prompt, repairNote, { signal });
      if (answer === null || typeof answer !== 'object') return { ok: false, error: new Error('the model client returned no answer') };
      charge(answer);
      return { ok: true, answer };
    } catch (error) {
      if (signal?.aborted) throw error;
      return { ok: false, error };
    }
  };
  const rawOf = (answer: StructuredCallResult) => (typeof answer.rawText === 'string' ? answer.rawText : '');

  const first = await attempt();
  if (!first.ok) return fallback('call_failed', errorSummary(first.error), null, '');
  const checked = checkAnswer(schema, first.answer);
  if (checked.ok) return { value: checked.value, source: 'model', usage };

  const second = await attempt(`${REPAIR_NOTE_HEADER}\n${checked.summary}`);
  if (!second.ok) return fallback('repair_call_failed', checked.summary, errorSummary(second.error), rawOf(first.answer));
  const repaired = checkAnswer(schema, second.answer);
  if (!repaired.ok) return fallback('schema_invalid_twice', checked.summary, repaired.summary, rawOf(second.answer));
  options.audit({ kind: 'repaired', agent, first_error: redactText(checked.summary) });
  return { value: repaired.value, source: 'repaired', usage };
}
