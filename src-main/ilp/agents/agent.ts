import type { IlpAgentKind } from '../../../src-shared/schemas/ilp.js';
import type { ModelClient } from '../../llm/model-client.js';
import type { IlpRequest, IlpResponse } from '../protocol/message.js';

/*
 * An ILP agent (spec 004 §4.1): the meta-agent, a specialist answering for one domain in this
 * process, or a remote specialist reached over HTTPS (Appendix B Level 3). Every agent answers a
 * request that has already crossed the codec, and its answer crosses the codec again before the
 * enforcer reads it (docs/ilp.md "Composition").
 */

interface IlpAgentInfo {
  /** The authority of its `ilp://` URI (§11.2): lower-case letters, digits and hyphens. */
  id: string;
  domain: string;
  kind: IlpAgentKind;
  description: string;
  /** A remote agent's URL; absent for agents in this process. */
  endpoint?: string;
}

export interface AgentAnswer {
  response: IlpResponse;
  /**
   * What the answer cost as the model layer counted it (tokens at the role's price), or null when
   * the agent is remote and only its own `cost_usd` is known.
   */
  measuredCostUsd: number | null;
  /** Slice ids the agent loaded into its prompt. */
  slices: string[];
}

export interface IlpAgent extends IlpAgentInfo {
  answer(request: IlpRequest, signal: AbortSignal): Promise<AgentAnswer>;
}

/** An agent that cannot answer now (not configured, unreachable): the hop is a 503 (§3.3), recorded. */
export class AgentUnavailableError extends Error {
  override readonly name = 'AgentUnavailableError';
}

export const AGENT_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * The model an agent answers with, read when it is needed (a role set up meanwhile is used at the
 * next request): the client, or what to do to set the role up.
 */
export type ModelSource = () => Promise<ModelClient | { problem: string }>;
