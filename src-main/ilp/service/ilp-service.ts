import { z } from 'zod';
import type { JsonValue } from '../../../src-shared/schemas/json.js';
import type { IlpHopView } from '../../../src-shared/schemas/ilp.js';
import { admitInvocation, AgentResponse, enforceConstitution, InvocationContext, type EnforcerOptions } from '../constitution/enforce.js';
import { checkConstitutionalHeader, type ConstitutionalHeader } from '../constitution/header.js';
import { checkChildHeader } from '../composition/child-header.js';
import { newCompositionState, runHop, type AnswerScreen, type CompositionState } from '../composition/hop.js';
import { errorResponse, responseMessage, type RequestPayload } from '../composition/messages.js';
import type { AgentDirectory, CompositionResult, MetaAgent } from '../composition/meta-agent.js';
import { headerOf, HEADER, type IlpRequest, type IlpResponse, type IlpStatus } from '../protocol/message.js';

/*
 * The ILP endpoint of the runtime (spec 004 §3, docs/ilp.md "Methods"): one request, already read
 * by the codec from either transport, answered by the agent it names. Every request states its
 * limits in a Constitutional-Header, checked here before anything else (§9.1 item 1), TRACE
 * included; a missing or invalid header is a 400 naming the field, never a default.
 */

const RequestBody = z
  .object({
    query: z.string().trim().min(1, 'the query is empty').max(100_000),
    context: z
      .object({
        previous_agents: z.array(z.string().max(200)).max(1000).optional(),
        invocation_count: z.number().int().nonnegative().optional(),
        cost_so_far: z.number().finite().nonnegative().optional(),
        insights: z.record(z.string(), z.object({ answer: z.string().max(20_000), concepts: z.array(z.string().max(200)).max(100), confidence: z.number().min(0).max(1) })).optional(),
      })
      .optional(),
    preferences: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const ValidateBody = z.object({ response: AgentResponse, context: InvocationContext.optional() }).strict();
const TranslateBody = z.object({ from: z.string().min(1).max(100), to: z.string().min(1).max(100), concepts: z.array(z.string().max(200)).max(1000).default([]) }).strict();

/** Where compositions go when they end: the store, the ledger, the Alignment recorder (wired in app/). */
export interface CompositionSink {
  completed(result: CompositionResult, info: { query: string; startedAt: Date; replayOf: string | null }): void;
  /** The §13.6 attention export of a stored composition, or null. */
  attentionExport(queryId: string): JsonValue | null;
  /** Attention statistics and patterns across recent compositions (§4.1 "Attention Tracker"). */
  attentionStatistics(): JsonValue;
}

export interface IlpServiceDeps {
  meta: MetaAgent;
  agents: AgentDirectory;
  enforcer: EnforcerOptions;
  /** The same screen the meta-agent's hops pass: an answer steering the composition is refused on a direct request too. */
  screen?: AnswerScreen;
  sink: CompositionSink;
  onHop?: (compositionId: string | null, hop: IlpHopView) => void;
  now?: () => Date;
  /**
   * Why ILP cannot answer at all now (the owner's configuration was changed outside Silas), or
   * null: every request is then a 503 naming the fix, never answered under a weaker constitution.
   */
  stopped?: () => string | null;
}

export interface IlpCall {
  agent: string;
  request: IlpRequest;
  requestText: string;
  signal: AbortSignal;
  /** Set by a replay from the cockpit: stored as its replay, composed afresh (never from episodic memory). */
  replayOf?: string;
}

const LIVE_HEADER = 'ILP-Composition';

export class IlpService {
  /** Compositions running now, by id: a request joining one mid-recursion is held to its limits. */
  private readonly live = new Map<string, CompositionState>();

  constructor(private readonly deps: IlpServiceDeps) {}

  async handle(call: IlpCall): Promise<{ response: IlpResponse; composition: CompositionResult | null }> {
    const { request } = call;
    const stopped = this.deps.stopped?.() ?? null;
    if (stopped !== null) return only(errorResponse(503, stopped));
    const checked = checkConstitutionalHeader(headerOf(request, HEADER.constitutional)?.value);
    if (!checked.ok) return only(errorResponse(400, `${checked.field}: ${checked.message}`, { context: { field: checked.field } }));
    const header = checked.header;
    switch (request.method) {
      case 'VALIDATE':
        return only(this.validate(header, request.body));
      case 'TRANSLATE':
        return only(this.translate(header, request.body));
      case 'TRACE':
        return only(this.trace(request));
      default:
        return this.think(call, header);
    }
  }

  private async think(call: IlpCall, header: ConstitutionalHeader): Promise<{ response: IlpResponse; composition: CompositionResult | null }> {
    const body = RequestBody.safeParse(call.request.body);
    if (!body.success) {
      const issue = body.error.issues[0]!;
      return only(errorResponse(400, `body.${issue.path.join('.') || 'query'}: ${issue.message}; the body is {"query": "…"} (§7.1)`));
    }
    const context = body.data.context;
    if (context?.cost_so_far !== undefined && context.cost_so_far > header.budget_usd) {
      return only(errorResponse(400, `Constitutional-Header.budget_usd ${header.budget_usd} is below context.cost_so_far ${context.cost_so_far}: the header must state what has been spent`));
    }
    // A hop of a composition running here is held to that composition's record; an id this
    // runtime does not run (another runtime's composition calling us as a remote specialist)
    // is answered on the request's own header, like any other request.
    const joining = headerOf(call.request, LIVE_HEADER)?.value;
    const live = joining === undefined ? undefined : this.live.get(String(joining));
    if (live !== undefined) return only(await this.join(live, call, header, body.data));
    const startedAt = this.deps.now?.() ?? new Date();
    const attention = headerOf(call.request, HEADER.attentionEnabled)?.value === true;
    let result: CompositionResult;
    if (call.agent === this.deps.meta.id) {
      result = await this.deps.meta.compose({ header, payload: body.data, requestText: call.requestText, attention, signal: call.signal, onHop: (hop) => this.deps.onHop?.(null, hop), register: (state) => this.register(state), ...(call.replayOf ? { fresh: true } : {}) });
    } else {
      const agent = this.deps.agents.get(call.agent);
      if (agent === undefined) return only(errorResponse(503, `no agent "${call.agent}" is registered here; \`silas ilp agents\` lists them`));
      result = await this.single(agent.id, header, body.data, call);
    }
    this.deps.sink.completed(result, { query: body.data.query, startedAt, replayOf: call.replayOf ?? null });
    return { response: result.response, composition: result };
  }

  /** A request straight to one specialist: a composition of one hop, recorded like any other. */
  private async single(agentId: string, header: ConstitutionalHeader, payload: RequestPayload, call: IlpCall): Promise<CompositionResult> {
    const agent = this.deps.agents.get(agentId)!;
    const state = this.state(header, call.signal);
    const unregister = this.register(state);
    try {
      const outcome = await runHop(state, { parent: null, agent, method: call.request.method, path: call.request.path, depth: header.depth, payload });
      const response = outcome.answer ? responseMessage(outcome.hop.status as IlpStatus, { ...outcome.answer, composition_id: state.id } as unknown as JsonValue, [{ name: HEADER.constitutionalStatus, value: outcome.decision!.constitutional_status }]) : outcome.response;
      return { id: state.id, response, hops: state.hops, influencers: [], answer: outcome.answer?.answer ?? null, costUsd: state.spentUsd - header.budget_usd };
    } finally {
      unregister();
    }
  }

  /** A hop into a composition already running (a remote specialist recursing back): held to that composition's limits. */
  private async join(state: CompositionState, call: IlpCall, header: ConstitutionalHeader, payload: RequestPayload): Promise<IlpResponse> {
    // The hop asking is one whose agent is answering now: a hop joining is below the deepest of them.
    const recorded = Math.max(state.header.depth, ...state.running);
    const lie = checkChildHeader({ ...state.header, depth: recorded }, state.spentUsd, header);
    if (!lie.ok) return errorResponse(400, `${lie.field}: ${lie.message}`, { context: { field: lie.field } });
    const agent = this.deps.agents.get(call.agent);
    if (agent === undefined) return errorResponse(503, `no agent "${call.agent}" is registered here`);
    const outcome = await runHop(state, { parent: null, agent, method: call.request.method, path: call.request.path, depth: header.depth, payload });
    return outcome.answer ? responseMessage(outcome.hop.status as IlpStatus, outcome.answer as unknown as JsonValue) : outcome.response;
  }

  private register(state: CompositionState): () => void {
    this.live.set(state.id, state);
    return () => this.live.delete(state.id);
  }

  private state(header: ConstitutionalHeader, signal: AbortSignal): CompositionState {
    return newCompositionState({ header, enforcer: this.deps.enforcer, screen: this.deps.screen, signal, onHop: (hop) => this.deps.onHop?.(null, hop) });
  }

  private validate(header: ConstitutionalHeader, raw: unknown): IlpResponse {
    const body = ValidateBody.safeParse(raw);
    if (!body.success) {
      const issue = body.error.issues[0]!;
      return errorResponse(400, `body.${issue.path.join('.')}: ${issue.message}; VALIDATE takes {"response": {…§7.2…}, "context": {…}}`);
    }
    const decision = enforceConstitution(header, body.data.response, body.data.context ?? {}, this.deps.enforcer);
    const report = { passed: decision.violations.length === 0, constitutional_status: decision.constitutional_status, violations: decision.violations, warnings: decision.warnings };
    const response = responseMessage(decision.status, report as unknown as JsonValue, [{ name: HEADER.constitutionalStatus, value: decision.constitutional_status }]);
    response.headers = response.headers.map((h) => (h.name === HEADER.contentType ? { ...h, value: 'application/vnd.ilp.constitution+json' } : h));
    return response;
  }

  private translate(header: ConstitutionalHeader, raw: unknown): IlpResponse {
    const body = TranslateBody.safeParse(raw);
    if (!body.success) {
      const issue = body.error.issues[0]!;
      return errorResponse(400, `body.${issue.path.join('.')}: ${issue.message}; TRANSLATE takes {"from": DOMAIN, "to": DOMAIN, "concepts": […]}`);
    }
    const decision = admitInvocation({ ...header, detect_loops: false }, { depth: header.depth, invocations: 0, cost_usd: header.budget_usd, domain_from: body.data.from, domain_to: body.data.to, concepts_translated: body.data.concepts }, this.deps.enforcer);
    if (decision.status !== 200) {
      const first = decision.violations[0]!;
      return errorResponse(decision.status as IlpStatus, first.message, { principle: first.principle, severity: first.severity, suggested_action: first.suggested_action });
    }
    return responseMessage(200, { from: body.data.from, to: body.data.to, concepts: body.data.concepts, allowed: true }, [{ name: HEADER.constitutionalStatus, value: 'PASSED' }]);
  }

  private trace(request: IlpRequest): IlpResponse {
    if (request.path === '/statistics') {
      const response = responseMessage(200, this.deps.sink.attentionStatistics());
      response.headers = response.headers.map((h) => (h.name === HEADER.contentType ? { ...h, value: 'application/vnd.ilp.attention+json' } : h));
      return response;
    }
    if (request.path !== '/export') return errorResponse(400, `path: TRACE supports /export (§13.6) and /statistics, not ${request.path.slice(0, 80)}`);
    const id = headerOf(request, 'Query-ID')?.value;
    if (typeof id !== 'string' || id === '') return errorResponse(400, 'Query-ID: TRACE /export names the composition in a Query-ID header (the composition_id of its answer)');
    const exported = this.deps.sink.attentionExport(id);
    if (exported === null) return errorResponse(400, `Query-ID: no stored composition "${id.slice(0, 64)}"`);
    const response = responseMessage(200, exported);
    response.headers = response.headers.map((h) => (h.name === HEADER.contentType ? { ...h, value: 'application/vnd.ilp.attention+json' } : h));
    return response;
  }
}

const only = (response: IlpResponse) => ({ response, composition: null });
