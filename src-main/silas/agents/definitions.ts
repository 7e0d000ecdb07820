import type { z } from 'zod';
import { AgentResponse, ExecutorTurn, ScorerOutput, routeDecisionSchema, type AgentName, type ScorerInput, type StructuredOutputEvent } from '../../../src-shared/silas/agents.js';
import type { ExecutorAgentContext } from '../executor/types.js';
import { executorFallback, plannerFallback, proxyFallback, scorerFallback } from './fallbacks.js';
import { SCORER_SYSTEM_PROMPT, executorSystemPrompt, plannerSystemPrompt, proxySystemPrompt, scorerMessage, type PlannerPromptContext, type ProxyPromptContext } from './prompts.js';
import { runStructuredAgent, type AgentMessage, type StructuredCall, type StructuredFailure, type StructuredResult } from './structured.js';

/**
 * The agents of spec 002 §7 as data: which model role serves each (`models.<role>`, §11), its
 * system prompt builder, its output schema and its §5.1.0 fallback. The Stream and the executor
 * run them through `runAgent`, which is `runStructuredAgent` with the definition filled in.
 */

export interface AgentDefinition<S extends z.ZodType, C> {
  readonly name: AgentName;
  /** The model configuration role (`models.proxy`, `models.planner`, …). */
  readonly role: AgentName;
  readonly schema: S;
  systemPrompt(context: C): string;
  readonly fallback: (failure: StructuredFailure) => z.input<S>;
}

export interface AgentRegistryConfig {
  /** `context.profiles` keys: the Proxy's `context_profile` must name one. */
  profiles: readonly string[];
  /** `context.default_profile`: the Proxy fallback's profile (§5.1.0). */
  defaultProfile: string;
}

export function proxyAgent(config: AgentRegistryConfig) {
  if (!config.profiles.includes(config.defaultProfile)) {
    throw new Error(`context.default_profile "${config.defaultProfile}" is not one of the configured profiles (${config.profiles.join(', ')})`);
  }
  return {
    name: 'proxy',
    role: 'proxy',
    schema: routeDecisionSchema(config.profiles),
    systemPrompt: (context: Omit<ProxyPromptContext, 'profiles'>) => proxySystemPrompt({ ...context, profiles: config.profiles }),
    fallback: proxyFallback(config.defaultProfile),
  } satisfies AgentDefinition<ReturnType<typeof routeDecisionSchema>, Omit<ProxyPromptContext, 'profiles'>>;
}

export const plannerAgent = {
  name: 'planner',
  role: 'planner',
  schema: AgentResponse,
  systemPrompt: plannerSystemPrompt,
  fallback: plannerFallback,
} as const satisfies AgentDefinition<typeof AgentResponse, PlannerPromptContext>;

export type ExecutorPromptContext = Pick<ExecutorAgentContext, 'item' | 'attempt' | 'instructions' | 'tools' | 'inputArtifacts'>;

export const executorAgent = {
  name: 'executor',
  role: 'executor',
  schema: ExecutorTurn,
  systemPrompt: executorSystemPrompt,
  fallback: executorFallback,
} as const satisfies AgentDefinition<typeof ExecutorTurn, ExecutorPromptContext>;

export const scorerAgent = {
  name: 'scorer',
  role: 'scorer',
  schema: ScorerOutput,
  systemPrompt: () => SCORER_SYSTEM_PROMPT,
  fallback: scorerFallback,
} as const satisfies AgentDefinition<typeof ScorerOutput, void>;

export interface RunAgentOptions<C> {
  context: C;
  messages: readonly AgentMessage[];
  call: StructuredCall;
  audit: (event: StructuredOutputEvent) => void;
  signal?: AbortSignal;
}

/** Runs one agent call under the §5.1.0 policy: validate, one repair, then the agent's fallback. */
export function runAgent<S extends z.ZodType, C>(definition: AgentDefinition<S, C>, options: RunAgentOptions<C>): Promise<StructuredResult<z.output<S>>> {
  return runStructuredAgent({
    agent: definition.name,
    schema: definition.schema,
    prompt: { system: definition.systemPrompt(options.context), messages: options.messages },
    call: options.call,
    fallback: definition.fallback,
    audit: options.audit,
    signal: options.signal,
  });
}

/**
 * The scorer interface of §5.7: the context manager's Tier 2 asks it which groups to evict. On
 * `source: 'fallback'` it must skip model eviction and apply aggressive heuristic eviction.
 */
export interface ContextScorer {
  score(input: ScorerInput, signal?: AbortSignal): Promise<StructuredResult<ScorerOutput>>;
}

export function createContextScorer(call: StructuredCall, audit: (event: StructuredOutputEvent) => void): ContextScorer {
  return {
    score: (input, signal) => runAgent(scorerAgent, { context: undefined, messages: [{ role: 'user', content: scorerMessage(input) }], call, audit, signal }),
  };
}

/**
 * The block ids a scorer answer may evict: only blocks it was shown, never one it was also told to
 * keep, each once, in the order of the evict groups. A scorer naming pinned or unknown ids (or
 * echoing ids planted in a block's text) gets nothing for them.
 */
export function evictableBlockIds(output: ScorerOutput, input: ScorerInput): string[] {
  const offered = new Set(input.blocks.map((block) => block.block_id));
  const kept = new Set(output.keep_groups.flatMap((group) => group.block_ids));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const id of output.evict_groups.flatMap((group) => group.block_ids)) {
    if (!offered.has(id) || kept.has(id) || seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}
