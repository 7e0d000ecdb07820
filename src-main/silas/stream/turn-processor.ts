import type { AgentResponse, InteractionConfig, RouteDecision, StructuredOutputEvent } from '../../../src-shared/silas/agents.js';
import type { TaintLevel } from '../../../src-shared/silas/execution.js';
import type { StreamEvent, TurnOutcome } from '../../../src-shared/schemas/stream.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ChronicleRepository } from '../../store/repositories/chronicle.js';
import type { MemoryRepository } from '../../store/repositories/memory.js';
import { OWNER_MEMORY_SCOPE } from '../../../src-shared/silas/memory.js';
import type { MemoryRetriever } from '../memory/retriever.js';
import { forMemory } from '../memory/scrub.js';
import { plannerAgent, proxyAgent, runAgent } from '../agents/definitions.js';
import { resolveInteractionMode, interactionConfigInputs } from '../agents/interaction-mode.js';
import { decidePlanApproval } from '../agents/plan-approval.js';
import type { ContextManager } from '../context/context-manager.js';
import type { ContextEviction } from '../context/two-tier.js';
import type { TokenCounter } from '../context/token-counter.js';
import type { ActiveGateSet, GateRunner } from '../gates/runner.js';
import { reidentifyPlan, type PlanIdLookup } from '../store/plan-ids.js';
import { planHash } from '../work/hashes.js';
import { escalationFor, gateContextText } from './escalation.js';
import { applyMemoryOps, injectMemories, ownerDefaults } from './memory-steps.js';
import type { PlanDispatcher } from './plan-dispatcher.js';
import type { PlanOrigin } from './sealed-stream-state.js';
import { streamingStructuredCall } from './streaming-call.js';
import type { RoleModel, StreamModels } from './stream-models.js';
import { messageOf, taintOrder } from './history.js';
import { buildToolset, ownerToolNames, type ToolEntry } from './toolset.js';
import type { AccessController } from '../access/access-controller.js';
import { TurnMeter } from './turn-meter.js';

/*
 * One turn of the Stream, spec 002 §5.1 steps 0–16, in order (docs/silas/stream.md maps each step
 * to its code). The LLM never holds authority here: routing is the Proxy's suggestion, but gates,
 * the plan/approval rule, taint and verification are this deterministic code.
 */

interface StreamTurnConfig {
  /** `gates.system` (§11): checked on every message and every answer. */
  systemGates: readonly unknown[];
  /** `context.profiles` names and `context.default_profile`. */
  profiles: readonly string[];
  defaultProfile: string;
  interaction: InteractionConfig;
  /** The personality axis until personality exists (§5.1.4): neutral. */
  initiativeLevel: number;
  /** Memories injected per turn by recall (step 4). */
  retrievalLimit: number;
  /** §3.2: memory_ops beyond this are dropped and audited. */
  maxMemoryOpsPerTurn: number;
}

export interface TurnDeps {
  audit: Pick<AuditLog, 'append'>;
  context: ContextManager;
  /** Step 5's `enforce_budget` with both tiers of §5.7 (context/two-tier.ts). */
  eviction: Pick<ContextEviction, 'enforce'>;
  chronicle: ChronicleRepository;
  memory: MemoryRepository;
  /** Step 4 and step 9: keyword, semantic and temporal recall of the active lane, merged (§6.3). */
  retriever: MemoryRetriever;
  /** New memories wait for a vector: the re-embedding is told (§6.2). */
  onMemoryWritten?: () => void;
  /** §5.13: counts every prompt and every stored memory. */
  counter: TokenCounter;
  gates: GateRunner;
  models: StreamModels;
  plans: PlanDispatcher;
  /** The work items stored and in flight: a proposed plan whose id is taken gets a fresh one before its card (docs/silas/stream.md "Plan ids"). */
  planIds: PlanIdLookup;
  /** Tools beyond the built-in ones the executor can use (the connected MCP servers), for the Planner's prompt. */
  extraTools?: () => readonly ToolEntry[];
  /** The connection's access controller (§5.1 "one per connection"); the Stream keeps one per scope. */
  access: (scope: string, owner: boolean, ownerTools: readonly string[]) => AccessController;
  config: StreamTurnConfig;
  now: () => Date;
}

export interface TurnRequest {
  scope: string;
  turnId: string;
  turn: number;
  text: string;
  /** The sender as the chronicle names them (`owner`, `cockpit`, `terminal`). */
  senderId: string;
  /** `channel:cockpit`, `channel:terminal`. */
  channel: string;
  taint: TaintLevel;
  /** The connection is the owner's (the cockpit); other connections are held to the access levels. */
  ownerConnection: boolean;
  /** Where a plan this turn proposes says it came from (its card); the taint is the answer's. */
  origin: Omit<PlanOrigin, 'taint'>;
  signal: AbortSignal;
  emit: (event: StreamEvent) => void;
  /** Tokens of the answer reach the person as drafts unless an output gate must see the answer first. */
  meter: TurnMeter;
}

export interface TurnResult {
  outcome: TurnOutcome;
  route: string | null;
  error: string | null;
}

const SILAS = 'Silas';

export class TurnProcessor {
  private readonly proxy;

  constructor(private readonly deps: TurnDeps) {
    this.proxy = proxyAgent({ profiles: deps.config.profiles, defaultProfile: deps.config.defaultProfile });
  }

  async run(request: TurnRequest): Promise<TurnResult> {
    const { deps } = this;
    const { scope, turn, signal } = request;
    const at = { scope_id: scope, turn };
    const memoryScope = memoryScopeOf(request);

    // Step 0: one frozen gate set for input, output and memory operations of this turn.
    const gateSet = deps.gates.compile({ system: deps.config.systemGates });
    const gateScope = { scope_id: scope, turn };

    // Step 1: input gates, policy lane first; a block answers with its escalation and ends the turn.
    const input = await deps.gates.checkGates(gateSet, 'every_user_message', { message: request.text, sender_id: request.senderId }, { scope: gateScope });
    if (input.decision !== 'continue') {
      const blocked = input.blocking ?? input.approvals[0]!;
      return this.blocked(request, 'input', blocked.gate_name, blocked.reason, gateSet);
    }
    const text = gateContextText(input.context, 'message') ?? request.text;

    // Steps 3 and 3.5: chronicle (and its store), then the raw memory lane.
    this.remember(scope, { kind: 'message', source: request.channel, taint: request.taint, content: `[${request.taint}] ${request.senderId}: ${text}`, turn });
    deps.memory.ingestRaw(memoryScope, [{ content: forMemory(text, request.taint).text, taint: request.taint, source_kind: 'conversation_raw', token_count: deps.counter.count(text), session_id: scope }]);

    // Step 4: recall from the active lane only; the raw lane is never auto-injected (§6.1).
    const hits = await deps.retriever.recall(memoryScope, text, deps.config.retrievalLimit);
    const recalled = injectMemories(deps, scope, turn, [...ownerDefaults(deps, memoryScope), ...hits]);
    deps.memory.recordAccess(memoryScope, hits.map((hit) => hit.item.memory_id));
    // The answer is as trusted as the least trusted thing it read (§5.12).
    let responseTaint = taintOrder([request.taint, ...recalled]);

    // Step 5: two-tier eviction (§5.7: heuristics, then the scorer when still over threshold); what leaves the context is kept as an episode.
    const enforced = await deps.eviction.enforce({ scope, turn, signal, meter: request.meter });
    for (const { item } of enforced.evicted) {
      // A subscription's block is deactivated, not lost: the file or query it reads is still there (§3.5 "Lifecycle").
      if (item.kind === 'subscription') continue;
      deps.memory.ingestRaw(memoryScope, [{ content: forMemory(item.content, item.taint).text, taint: item.taint, source_kind: 'context_evicted', memory_type: 'episode', token_count: item.token_count, session_id: scope }]);
    }

    // §5.7 render step 1: subscriptions resolved into their zones (memory searches through the active lanes only);
    // files are external content, and the answer is no more trusted than what it read (§5.12).
    const subscribed = await deps.context.materialize(scope, turn, { recall: (query) => deps.retriever.recall(memoryScope, query, deps.config.retrievalLimit) });
    responseTaint = taintOrder([responseTaint, ...subscribed]);

    // Steps 6 and 6.5: the toolset chain, filtered by this connection's access level.
    const extra = deps.extraTools?.() ?? [];
    const access = deps.access(scope, request.ownerConnection, ownerToolNames(extra));
    const toolset = buildToolset({ access, taint: request.taint, extra });

    // Step 7: route through the Proxy.
    const holdDrafts = gateSet.gates.some((gate) => gate.on === 'every_agent_response');
    const proxyModel = await deps.models.client('proxy');
    if (!proxyModel.ok) return this.fail(request, proxyModel.problem);
    const prompt = this.prompt(scope, turn, text);
    const proxyContext = { accessLevel: access.currentLevel(), tools: toolset.proxy, skills: [] };
    request.meter.countPrompt(deps.counter.count(this.proxy.systemPrompt(proxyContext)) + deps.counter.count(prompt));
    const proxyCall = this.streaming(request, proxyModel, holdDrafts);
    const routed = await runAgent(this.proxy, {
      context: proxyContext,
      messages: [{ role: 'user', content: prompt }],
      call: proxyCall.call,
      audit: (event) => this.auditStructured(at, event),
      signal,
    });
    const route: RouteDecision = routed.value;
    const proxyFailure = routed.source === 'fallback' ? proxyCall.lastFailure() : null;
    const mode = resolveInteractionMode({
      proxyMode: route.interaction_mode,
      plannerOverride: null,
      workItemMode: null,
      riskRequiresConfirmation: false,
      initiativeLevel: deps.config.initiativeLevel,
      interactionRegister: route.interaction_register,
      ...interactionConfigInputs(deps.config.interaction),
    });
    deps.context.setProfile(scope, route.context_profile);
    deps.audit.append('silas.stream.routed', { ...at, route: route.route, register: route.interaction_register, mode, profile: route.context_profile, source: routed.source });

    let response: AgentResponse;
    let origin: 'proxy' | 'planner' = 'proxy';
    if (proxyFailure !== null) {
      // The model could not be reached: say which provider failed and what to do, not "rephrase".
      return this.fail(request, proxyFailure.message, 'answered');
    }
    if (route.route === 'planner') {
      origin = 'planner';
      const plannerModel = await deps.models.client('planner');
      if (!plannerModel.ok) return this.fail(request, plannerModel.problem);
      const plannerCall = this.streaming(request, plannerModel, holdDrafts);
      const tools = toolset.planner;
      request.meter.countPrompt(deps.counter.count(plannerAgent.systemPrompt({ tools, skills: [], interactionMode: mode })) + deps.counter.count(prompt));
      const planned = await runAgent(plannerAgent, {
        context: { tools, skills: [], interactionMode: mode },
        messages: [{ role: 'user', content: prompt }],
        call: plannerCall.call,
        audit: (event) => this.auditStructured(at, event),
        signal,
      });
      const failure = planned.source === 'fallback' ? plannerCall.lastFailure() : null;
      if (failure !== null) return this.fail(request, failure.message, 'answered');
      response = planned.value;
    } else {
      response = route.response!;
    }

    // Step 8: output gates see the answer before the person does.
    const output = await deps.gates.checkGates(gateSet, 'every_agent_response', { response: response.message, sender_id: request.senderId }, { scope: gateScope });
    if (output.decision !== 'continue') {
      const blocked = output.blocking ?? output.approvals[0]!;
      return this.blocked(request, 'output', blocked.gate_name, blocked.reason, gateSet);
    }
    const message = gateContextText(output.context, 'response') ?? response.message;

    // Steps 9 and 10: memory queries, then memory operations each behind the tool-call gates.
    for (const query of response.memory_queries) {
      const hits = await deps.retriever.retrieve(memoryScope, { ...query, max_results: Math.min(query.max_results, deps.config.retrievalLimit) }, { sessionId: scope });
      responseTaint = taintOrder([responseTaint, ...injectMemories(deps, scope, turn, hits)]);
      deps.memory.recordAccess(memoryScope, hits.map((hit) => hit.item.memory_id));
    }
    await applyMemoryOps(deps, { scope, memoryScope, turn, taint: responseTaint, gateSet, ops: response.memory_ops, max: deps.config.maxMemoryOpsPerTurn });
    if (response.memory_ops.length > 0) deps.onMemoryWritten?.();
    // Step 14: a passed identity check (custom_check on every message) may raise this connection's level.
    const checks = new Set(gateSet.gates.filter((gate) => gate.on === 'every_user_message' && gate.type === 'custom_check').map((gate) => gate.name));
    access.recordGateResults(input.policy.filter((result) => checks.has(result.gate_name)));

    // Steps 11 and 11.5: the answer joins the chronicle and the raw lane.
    this.remember(scope, { kind: 'message', source: `agent:${origin}`, taint: responseTaint, content: `${SILAS}: ${message}`, turn });
    // §5.7 Tier 1 step 3: a subscription the answer names stays active.
    deps.context.noteResponse(scope, turn, message);
    deps.memory.ingestRaw(memoryScope, [{ content: forMemory(message, responseTaint).text, taint: responseTaint, source_kind: 'agent_response_raw', token_count: deps.counter.count(message), session_id: scope }]);

    // Step 13 before 12's background work: the answer is sent now; execution never stalls the turn.
    request.emit({ type: 'message', scope, turn_id: request.turnId, message: messageOf({ id: `${request.turnId}:answer`, sender: 'silas', text: message, taint: responseTaint, turn, at: deps.now() }), chips: [] });

    // Step 12: the plan/approval rule. An agent's needs_approval is a request, never a grant.
    const plan = decidePlanApproval({ response: { ...response, message }, origin, route, mode: { riskRequiresConfirmation: false, initiativeLevel: deps.config.initiativeLevel, config: deps.config.interaction } });
    if (plan.kind === 'refused') {
      deps.audit.append('silas.stream.plan_rejected', { ...at, reason: plan.reason.slice(0, 2000) });
      this.system(request, `The plan could not be used, so nothing was asked or run: ${plan.reason}`);
      return { outcome: 'answered', route: route.route, error: null };
    }
    if (plan.kind === 'approval_required') {
      // The model's id means little: one that already ran to done (final) or is taken gets a fresh id
      // here, before the hash is computed and the card built, so the person signs the id that runs
      // (§5.1.2; docs/silas/stream.md "Plan ids"). Never after the signature.
      const fresh = reidentifyPlan(plan.item, deps.planIds);
      const { item } = fresh;
      const hash = planHash(item);
      if (fresh.renamed) {
        deps.audit.append('silas.stream.plan_reidentified', { ...at, from: fresh.renamed.from, to: fresh.renamed.to, reason: fresh.renamed.reason.slice(0, 2000) });
        this.system(request, `Silas renamed this plan's id to ${fresh.renamed.to} because ${fresh.renamed.reason}; the card in Review shows the new id.`);
      }
      deps.audit.append('silas.stream.plan_proposed', { ...at, work_item_id: item.id, plan_hash: hash, agent_needs_approval: response.needs_approval, approval_forced: plan.overridden });
      deps.context.add(scope, { zone: 'workspace', kind: 'plan', source: `agent:${origin}`, taint: responseTaint, content: item.body, turn_number: turn, pinned: true });
      this.deps.plans.dispatch({ scope, item, planHash: hash, origin: { ...request.origin, taint: responseTaint } });
      return { outcome: 'planned', route: route.route, error: null };
    }
    return { outcome: 'answered', route: route.route, error: null };
  }

  /** The context window as the agents see it, then the message (it is also the chronicle's last block). */
  private prompt(scope: string, turn: number, text: string): string {
    const rendered = this.deps.context.render(scope, turn);
    return `${rendered}\n\n# Current message\n${text}`;
  }

  private streaming(request: TurnRequest, model: Extract<RoleModel, { ok: true }>, holdDrafts: boolean) {
    return streamingStructuredCall({
      client: model.client,
      ...(model.price ? { price: model.price } : {}),
      onCall: (record) => request.meter.add(model.client.role, record, this.deps.audit, { scope_id: request.scope, turn: request.turn }, model.client),
      onDraft: holdDrafts
        ? undefined
        : (delta) => request.emit(delta === null ? { type: 'draft_reset', scope: request.scope, turn_id: request.turnId, reason: 'the answer did not match its schema; asking the model once more' } : { type: 'draft', scope: request.scope, turn_id: request.turnId, delta }),
    });
  }

  private remember(scope: string, item: { kind: 'message'; source: string; taint: TaintLevel; content: string; turn: number }): void {
    const ctxId = this.deps.context.add(scope, { zone: 'chronicle', kind: item.kind, source: item.source, taint: item.taint, content: item.content, turn_number: item.turn });
    const stored = this.deps.context.getZone(scope, 'chronicle').find((entry) => entry.ctx_id === ctxId);
    if (stored) this.deps.chronicle.append(scope, stored);
  }

  private system(request: TurnRequest, text: string): void {
    this.remember(request.scope, { kind: 'message', source: 'system:stream', taint: 'owner', content: `[SYSTEM] ${text}`, turn: request.turn });
    request.emit({ type: 'message', scope: request.scope, turn_id: request.turnId, message: messageOf({ id: `${request.turnId}:system:${Date.now()}`, sender: 'system', text, taint: 'owner', turn: request.turn, at: this.deps.now() }), chips: [] });
  }

  /** §5.1.1: a policy-lane block answers with the gate's escalation; nothing the model wrote is shown. */
  private blocked(request: TurnRequest, lane: 'input' | 'output', gate: string, reason: string, gateSet: ActiveGateSet): TurnResult {
    const escalation = escalationFor(gateSet, gate);
    this.deps.audit.append('silas.stream.gate_blocked', { scope_id: request.scope, turn: request.turn, lane, gate, reason: reason.slice(0, 1000), escalation: escalation.name });
    request.emit({ type: 'draft_reset', scope: request.scope, turn_id: request.turnId, reason: `held by the "${gate}" gate` });
    this.system(request, escalation.message);
    return { outcome: 'blocked', route: null, error: null };
  }

  private fail(request: TurnRequest, problem: string, outcome: TurnOutcome = 'failed'): TurnResult {
    this.system(request, problem);
    return { outcome, route: null, error: problem };
  }

  private auditStructured(at: { scope_id: string; turn: number }, event: StructuredOutputEvent): void {
    if (event.kind === 'repaired') {
      this.deps.audit.append('silas.agent.output_repaired', { ...at, agent: event.agent, first_error: event.first_error });
      return;
    }
    const { kind: _kind, ...data } = event;
    this.deps.audit.append('silas.agent.output_fallback', { ...at, ...data });
  }
}

export type { ActiveGateSet };

/**
 * Whose memory a turn reads and writes. Every owner conversation (a cockpit tab, an owner-signed
 * `silas chat`) shares the owner's memory, while its turns, lock and chronicle stay its own; any
 * other connection (an unsigned terminal, a customer channel) keeps the memory of its own scope,
 * so nobody else can plant a memory the owner's conversations would recall.
 */
function memoryScopeOf(request: Pick<TurnRequest, 'scope' | 'ownerConnection' | 'taint'>): string {
  return request.ownerConnection || request.taint === 'owner' ? OWNER_MEMORY_SCOPE : request.scope;
}
