import { createHash, randomUUID } from 'node:crypto';
import type { IlpHopView } from '../../../src-shared/schemas/ilp.js';
import { AgentUnavailableError, type IlpAgent } from '../agents/agent.js';
import { admitInvocation, AgentResponse, enforceConstitution, type ConstitutionalDecision, type EnforcerOptions } from '../constitution/enforce.js';
import type { ConstitutionalHeader } from '../constitution/header.js';
import { type IlpMethod, type IlpResponse, type IlpStatus } from '../protocol/message.js';
import { round } from './child-header.js';
import { errorResponse, requestMessage, throughCodec, type RequestPayload } from './messages.js';

/*
 * One hop of a composition (spec 004 §4.2 steps 2–6): admitted against the header's limits before
 * the agent runs (a refused hop never calls a model), sent and answered through the codec, the
 * answer judged by the enforcer with the cost the model layer counted, and recorded whatever the
 * outcome. The composition's running totals (cost, invocations, the chain of agents and the hashes
 * of what was asked) live here, so no agent's answer can change them.
 */

/** What a hop's outcome adds to the enforcer's: an answer that tries to steer the composition. */
export type AnswerScreen = (text: string) => string | null;

export interface CompositionState {
  readonly id: string;
  /** The header the composition runs under: the limits of every hop. */
  readonly header: ConstitutionalHeader;
  readonly enforcer: EnforcerOptions;
  readonly screen: AnswerScreen | undefined;
  readonly signal: AbortSignal;
  spentUsd: number;
  invocations: number;
  readonly chain: string[];
  /** Context hashes of the requests made (§9.1 item 3): the same request to the same agent twice is a loop. */
  readonly asked: Set<string>;
  readonly hops: IlpHopView[];
  /** Depths of the hops whose agents are answering now: a hop joining the composition is below one of them. */
  readonly running: number[];
  /** Told of each hop as it is recorded (the inspector is live). */
  readonly onHop: ((hop: IlpHopView) => void) | undefined;
}

export interface HopRequest {
  parent: string | null;
  agent: IlpAgent;
  method: IlpMethod;
  path: string;
  depth: number;
  payload: RequestPayload;
  /** The domain the request comes from, when it crosses domains (the boundary check, §4). */
  domainFrom?: string;
}

export interface HopOutcome {
  hop: IlpHopView;
  /** The response the hop recorded: the agent's answer, or the refusal that replaced it. */
  response: IlpResponse;
  /** The answer, when the enforcer let it through (200 or 207). */
  answer: AgentResponse | null;
  decision: ConstitutionalDecision | null;
}

/** A composition's running state before its first hop: nothing spent, nothing asked. */
export function newCompositionState(options: { header: ConstitutionalHeader; enforcer: EnforcerOptions; screen: AnswerScreen | undefined; signal: AbortSignal; onHop: ((hop: IlpHopView) => void) | undefined }): CompositionState {
  return { ...options, id: randomUUID(), spentUsd: options.header.budget_usd, invocations: 0, chain: [], asked: new Set(), hops: [], running: [] };
}

/** §9.1 item 3: what identifies a request for loop detection — the agent and the query as asked, normalised. */
function contextHash(agent: string, query: string): string {
  return createHash('sha256').update(`${agent}\n${query.toLowerCase().replace(/\s+/g, ' ').trim()}`, 'utf8').digest('hex');
}

export async function runHop(state: CompositionState, request: HopRequest): Promise<HopOutcome> {
  const started = Date.now();
  const { agent } = request;
  const header: ConstitutionalHeader = { ...state.header, domain: agent.domain, depth: request.depth, budget_usd: round(state.spentUsd) };
  const context = { depth: request.depth, invocations: state.invocations, cost_usd: round(state.spentUsd), previous_agents: [...state.chain], agent: agent.id, ...(request.domainFrom ? { domain_from: request.domainFrom, domain_to: agent.domain } : {}) };
  const message = requestMessage(request.method, request.path, header, { ...request.payload, context: { ...request.payload.context, previous_agents: [...state.chain], invocation_count: state.invocations, cost_so_far: round(state.spentUsd) } }, [{ name: 'ILP-Composition', value: state.id }]);
  const sent = throughCodec(message);
  const base = { id: randomUUID(), parent: request.parent, agent: agent.id, kind: agent.kind, domain: agent.domain, method: request.method, path: request.path, depth: request.depth, request_text: sent.text };
  const finish = (response: IlpResponse, extra: { cost?: number; confidence?: number | null; slices?: string[]; decision?: ConstitutionalDecision | null; text?: string }, answer: AgentResponse | null): HopOutcome => {
    const text = extra.text ?? throughCodec(response).text;
    const gravest = extra.decision ? (extra.decision.violations[0] ?? extra.decision.warnings[0]) : undefined;
    const error = (response.body as { error?: { principle_id?: string; severity?: 'warning' | 'error' | 'fatal' } } | null)?.error;
    const hop: IlpHopView = {
      ...base,
      cost_usd: round(extra.cost ?? 0),
      confidence: extra.confidence ?? null,
      status: response.status,
      constitutional_status: extra.decision?.constitutional_status ?? (response.status === 400 || response.status >= 500 ? null : 'VIOLATION'),
      principle: gravest?.principle ?? error?.principle_id ?? null,
      severity: gravest?.severity ?? error?.severity ?? null,
      slices: extra.slices ?? [],
      response_text: text,
      duration_ms: Date.now() - started,
    };
    state.hops.push(hop);
    state.onHop?.(hop);
    return { hop, response, answer, decision: extra.decision ?? null };
  };
  if (!sent.ok) return finish(errorResponse(400, `${sent.field}: ${sent.error}`), {}, null);

  const hash = contextHash(agent.id, request.payload.query);
  if (state.header.detect_loops && state.asked.has(hash)) {
    return finish(errorResponse(409, `${agent.id} was already asked this in this composition (context hash ${hash.slice(0, 12)})`, { principle: 'loop_prevention', severity: 'error', suggested_action: 'Invoke a different agent for an alternative approach' }), {}, null);
  }
  const admission = admitInvocation(header, context, state.enforcer);
  if (admission.status !== 200) return finish(refusal(admission), { decision: admission }, null);

  state.invocations += 1;
  state.chain.push(agent.id);
  state.asked.add(hash);
  let answered;
  state.running.push(request.depth);
  try {
    answered = await agent.answer(sent.message, state.signal);
  } catch (error) {
    const unavailable = error instanceof AgentUnavailableError;
    return finish(errorResponse(unavailable ? 503 : 500, unavailable ? error.message : `the ${agent.id} agent failed: ${(error as Error).message}`), {}, null);
  } finally {
    state.running.splice(state.running.indexOf(request.depth), 1);
  }
  const reported = (answered.response.body as { cost_usd?: unknown } | null)?.cost_usd;
  const cost = Math.max(0, answered.measuredCostUsd ?? (typeof reported === 'number' && Number.isFinite(reported) ? reported : 0));
  const spentBefore = state.spentUsd;
  state.spentUsd += cost;
  const slices = answered.slices;
  // The answer is judged as it crosses the codec, exactly as a remote agent's would be.
  const received = throughCodec(answered.response);
  if (!received.ok) return finish(errorResponse(500, `the ${agent.id} agent's answer is not an ILP message: ${received.field}: ${received.error}`), { cost, slices }, null);
  if (received.message.status !== 200 && received.message.status !== 207) return finish(received.message, { cost, slices, text: received.text }, null);

  const parsed = AgentResponse.safeParse(received.message.body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return finish(errorResponse(500, `the ${agent.id} agent's answer is not a §7.2 payload: ${issue.path.join('.') || 'body'}: ${issue.message}`), { cost, slices }, null);
  }
  const body = { ...parsed.data, cost_usd: cost };
  const decision = enforceConstitution(header, body, { ...context, cost_usd: round(spentBefore) }, state.enforcer);
  const steering = state.screen?.(`${body.answer}\n${body.reasoning ?? ''}`) ?? null;
  if (steering !== null) {
    decision.violations.push({ principle: 'safety', severity: 'error', message: `the answer carries an instruction to the composition: ${steering}`, suggested_action: 'Answer the query; limits come from the request header only' });
    decision.status = decision.status === 200 || decision.status === 207 ? 403 : decision.status;
    decision.constitutional_status = 'VIOLATION';
  }
  const passed = decision.status === 200 || decision.status === 207;
  return passed ? finish(received.message, { cost, confidence: body.confidence, slices, decision, text: received.text }, body) : finish(refusal(decision), { cost, confidence: body.confidence, slices, decision }, null);
}

/** The §8.4 error body for a refused hop: the gravest violation names the principle. */
function refusal(decision: ConstitutionalDecision): IlpResponse {
  const first = decision.violations[0]!;
  return errorResponse(decision.status as IlpStatus, first.message, { principle: first.principle, severity: first.severity, suggested_action: first.suggested_action });
}
