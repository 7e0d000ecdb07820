import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { InteractionConfig } from '../../src-shared/silas/agents.js';
import { TokenBudget, type TokenBudgetInput } from '../../src-shared/silas/context.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { EventBus } from '../control/event-bus.js';
import { NamedSecrets } from '../keys/named-secrets.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import type { SecretStore } from '../keys/secret-store.js';
import type { StateSeals } from '../keys/sealed-state.js';
import type { DecisionQueue } from '../review/decision-queue.js';
import type { PlanKind } from '../review/kinds/plan.js';
import { ContextEviction, ContextManager, HeuristicTokenCounter } from '../silas/context/index.js';
import { auditSubscription, SealedSubscriptions } from '../silas/context/sealed-subscriptions.js';
import { ContextSubscriptionRepository } from '../store/repositories/context-subscriptions.js';
import { scorerFromModels } from '../silas/stream/scorer-model.js';
import { AccessController } from '../silas/access/access-controller.js';
import { createSandboxedExecutor } from '../silas/executor/compose.js';
import { ContentGateProvider } from '../silas/gates/content-provider.js';
import { PredicateGateProvider } from '../silas/gates/predicate-provider.js';
import { GateRunner } from '../silas/gates/runner.js';
import { BubblewrapSandboxManager, SandboxedEphemeralExecutor, type SandboxManager } from '../sandbox/index.js';
import { builtinTools } from '../silas/executor/tools.js';
import type { ConnectedServer } from '../mcp/silas-tools/connected-servers.js';
import { McpToolbox } from '../mcp/silas-tools/mcp-toolbox.js';
import { RoutingEphemeralExecutor } from '../mcp/silas-tools/routing-executor.js';
import { createModelSetup, type ModelSetupService } from '../silas/stream/model-setup.js';
import { BackgroundPlans, type PlanExecutionPorts } from '../silas/stream/plan-dispatcher.js';
import { SealedScopeKeys, SealedWorkLedger } from '../silas/stream/sealed-stream-state.js';
import { SqliteWorkItemStore } from '../silas/store/work-item-store.js';
import { HomeStreamModels, type StreamModels } from '../silas/stream/stream-models.js';
import { Stream } from '../silas/stream/stream.js';
import { TurnProcessor } from '../silas/stream/turn-processor.js';
import { ChronicleRepository } from '../store/repositories/chronicle.js';
import { chronicleSealer } from '../silas/memory/memory-seals.js';
import type { Embedder } from '../silas/memory/embedding/embedder.js';
import { composeMemory, type MemoryComposition } from './compose-memory.js';
import type { BehaviorSignal } from '../silas/memory/behavior-preferences.js';
import { SqliteNonceStore } from '../store/repositories/nonce-store.js';
import { StreamScopeRepository, StreamWorkRepository } from '../store/repositories/stream-scopes.js';
import type { SqliteDatabase } from '../store/transaction.js';

/*
 * The Stream wired on the runtime's ledger (docs/architecture.md §4.4: app/ composes). Models come
 * from HOME/models.json and the keyring at each turn; a proposed plan goes to the one decision
 * queue as a plan card, and an approved one runs in its own work directory under HOME/work with
 * the executor role's model behind the sandboxed executor, like `silas run --agent llm`.
 */

export interface StreamCompositionDeps {
  home: string;
  db: SqliteDatabase;
  audit: AuditLog;
  events: EventBus;
  signer: OwnerSigner;
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  secretStore: SecretStore;
  /**
   * The ledger's seals: models.json counts only as Silas sealed it, and refusals are audited;
   * scope keys and work rows are sealed with the ledger key (docs/architecture.md §2).
   */
  seals: StateSeals;
  decisions: Pick<DecisionQueue, 'ask'>;
  planKind: PlanKind;
  /** `gates.system` (§11); tests and the e2e runtime pass some. */
  systemGates?: readonly unknown[];
  /** Tests swap in a sandbox whose bubblewrap is missing. */
  sandboxManager?: (workDir: string) => SandboxManager;
  now?: () => Date;
  onError?: (message: string, error: unknown) => void;
  /** The benchmark's instant in-process model; by default HOME/models.json and the keyring. */
  models?: StreamModels;
  /** The MCP servers the person connected (wrapped client entries); Silas calls them through their proxies. */
  mcpServers?: () => ConnectedServer[];
  /** The environment those proxies start with. */
  mcpEnv?: Record<string, string>;
  /** A memory promotion was asked for: Review looks again. */
  onReviewChanged?: () => void;
  /** The owner's recent decisions, for behavioural preferences (§6.6). */
  behaviorSignals?: () => BehaviorSignal[];
  /** `context:` budgets (§3.5 TokenBudget); tests pass a small window to reach Tier 2 eviction. Default: the spec's. */
  contextBudget?: TokenBudgetInput;
  /** Recall by meaning: tests pass a scripted embedder; by default HOME/models.json `embedding`, else the local word vectors. */
  embedder?: () => Promise<Embedder>;
}

export interface StreamComposition {
  stream: Stream;
  models: ModelSetupService;
  /** The model of each role, read from HOME/models.json when asked (ILP's agents use the same). */
  roleModels: StreamModels;
  plans: BackgroundPlans;
  /** The owner's memory: the store, the retriever and the background re-embedding (stopped with the runtime). */
  memory: MemoryComposition;
}

const PLAN_APPROVAL_TIMEOUT_MS = 300_000;
const MAX_ACCESS_CONTROLLERS = 1_000;

export function composeStream(deps: StreamCompositionDeps): StreamComposition {
  const now = deps.now ?? (() => new Date());
  // A key withheld from an origin it was not stored for is audited like any refused state.
  const secrets = new NamedSecrets(deps.secretStore, { onWithheld: (refusal, origin) => deps.seals.report(refusal, origin) });
  const models =
    deps.models ??
    new HomeStreamModels(
      deps.home,
      secrets,
      async (role, config) => {
        const { createModelClient } = await import('../llm/ai-sdk-client.js');
        return createModelClient(role, config, { secrets });
      },
      deps.seals,
    );
  const budget = TokenBudget.parse(deps.contextBudget ?? {});
  const counter = new HeuristicTokenCounter();
  // Subscriptions are sealed with the ledger key: a row planted or edited in the database is never read (docs/architecture.md §2).
  const subscriptionStore = new SealedSubscriptions(new ContextSubscriptionRepository(deps.db), deps.seals, now, (refusal) => deps.audit.append('silas.stream.subscription_refused', refusal));
  const context = new ContextManager({ counter, budget, clock: now, subscriptionStore, onSubscriptionEvent: (event) => auditSubscription(deps.audit, event) });
  const eviction = new ContextEviction({ context, counter, scorer: scorerFromModels(models), audit: deps.audit, now });
  const chronicle = new ChronicleRepository(deps.db, chronicleSealer(deps.seals), now);
  const memories = composeMemory({ db: deps.db, home: deps.home, seals: deps.seals, audit: deps.audit, now, counter, onPromotionsChanged: () => deps.onReviewChanged?.(), ...(deps.behaviorSignals ? { behaviorSignals: deps.behaviorSignals } : {}), embedder: deps.embedder ?? (() => defaultEmbedder(deps.home, secrets, deps.seals)) });
  const { memory } = memories;
  void memories.semantic.start();
  const gates = new GateRunner({ providers: [new PredicateGateProvider({ fileRoots: [] }), new ContentGateProvider()], audit: deps.audit });
  let stream: Stream | null = null;
  const ports: PlanExecutionPorts = {
    ask: async (item, planHash, source, signal, origin) => {
      try {
        return await deps.decisions.ask(deps.planKind, { item, planHash, source, timeoutMs: PLAN_APPROVAL_TIMEOUT_MS }, { signal, origin });
      } catch (error) {
        // The queue refused to hold the card (its caps, docs/review.md): the plan is not approved.
        return { outcome: 'deny', reason: `Review did not take the plan: ${(error as Error).message}` };
      }
    },
    // An MCP server's complaint is its own text: external, like the rest of what the executor met.
    execute: (item, token, signal, scope) => executeApproved(deps, item, token, signal, (text) => stream?.report(scope, text, { from: 'executor' })),
  };
  const plans = new BackgroundPlans({
    ports,
    work: new SealedWorkLedger(new StreamWorkRepository(deps.db), deps.seals),
    now,
    audit: deps.audit,
    emit: (scope, event) => stream?.emit(scope, event),
    report: (scope, text, options) => stream?.report(scope, text, options),
  });
  // One access controller per conversation scope (§5.1); with no active goal there are no levels,
  // so a connection that is not the owner's gets no tools unless a message is owner-signed.
  const controllers = new Map<string, { shape: string; controller: AccessController }>();
  const access = (scope: string, owner: boolean, ownerTools: readonly string[]) => {
    const shape = `${owner ? 'owner' : 'guest'}:${ownerTools.join(',')}`;
    let entry = controllers.get(scope);
    if (entry?.shape !== shape) {
      entry = { shape, controller: new AccessController({ connectionId: owner ? 'owner' : scope, levels: {}, ownerTools, audit: deps.audit }) };
      controllers.set(scope, entry);
      // Most recently used last; the oldest scopes' controllers go (they are rebuilt, at the base level, if used again).
      if (controllers.size > MAX_ACCESS_CONTROLLERS) controllers.delete(controllers.keys().next().value!);
    } else {
      controllers.delete(scope);
      controllers.set(scope, entry);
    }
    return entry.controller;
  };
  // Read only here: a proposed plan's id is checked against the stored work items and the plans in flight.
  const workItems = new SqliteWorkItemStore({ db: deps.db, audit: deps.audit, ...(deps.now ? { now: deps.now } : {}) });
  const processor = new TurnProcessor({
    access,
    planIds: { stored: (id) => workItems.get(id), inFlight: (id) => plans.inFlight(id) },
    audit: deps.audit,
    context,
    eviction,
    chronicle,
    memory,
    retriever: memories.retriever,
    onMemoryWritten: () => memories.semantic.notify(),
    counter,
    gates,
    models,
    plans,
    extraTools: () =>
      (deps.mcpServers?.() ?? []).map((server) => ({
        name: `mcp__${server.name}__*`,
        description: `the tools of the "${server.name}" MCP server (from ${server.client}), called through its silas proxy: its policy decides each call and may ask the person`,
      })),
    config: {
      systemGates: deps.systemGates ?? [],
      profiles: Object.keys(budget.profiles),
      defaultProfile: budget.default_profile,
      interaction: InteractionConfig.parse({}),
      initiativeLevel: 0.5,
      retrievalLimit: 5,
      maxMemoryOpsPerTurn: 10,
    },
    now,
  });
  stream = new Stream({
    audit: deps.audit,
    events: deps.events,
    scopes: new SealedScopeKeys(new StreamScopeRepository(deps.db), deps.seals),
    chronicle,
    context,
    models,
    processor,
    plans,
    taint: { nonces: new SqliteNonceStore(deps.db, deps.now), trustedKeys: deps.trustedKeys, now, freshnessMs: 5 * 60_000 },
    rehydrateEntries: 50,
    now,
    ...(deps.onError ? { onError: deps.onError } : {}),
  });
  return { stream, models: createModelSetup({ home: deps.home, secrets, models, audit: deps.audit, seals: deps.seals }), roleModels: models, plans, memory: memories };
}

/** §5.1.2 steps 6–9 for a plan approved from the Stream: consume the token, then execute in the sandbox. */
async function executeApproved(
  deps: StreamCompositionDeps,
  item: Parameters<PlanExecutionPorts['execute']>[0],
  token: Parameters<PlanExecutionPorts['execute']>[1],
  signal: AbortSignal,
  report: (text: string) => void,
): ReturnType<PlanExecutionPorts['execute']> {
  // The executor model's module (and the AI SDK) load with the first plan, not with the runtime.
  const { prepareLlmExecutor } = await import('./compose-llm-executor.js');
  let setup: ReturnType<typeof prepareLlmExecutor>;
  try {
    setup = prepareLlmExecutor(deps.home, deps.secretStore, deps.seals);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  const workDir = join(deps.home, 'work', `${item.id}-${Date.now().toString(36)}`);
  mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const realWorkDir = realpathSync(workDir);
  const manager = deps.sandboxManager?.(realWorkDir) ?? new BubblewrapSandboxManager({ baseDir: realWorkDir });
  // The connected MCP servers, each through its own `silas proxy`: their policies govern Silas too.
  const servers = deps.mcpServers?.() ?? [];
  const toolbox =
    servers.length === 0
      ? null
      : await McpToolbox.open(servers, {
          env: deps.mcpEnv ?? {},
          callTimeoutMs: MCP_CALL_TIMEOUT_MS,
          onProblem: (server, problem) => report(`The MCP server "${server}" could not be used for this plan: ${problem.slice(0, 300)}`),
        });
  try {
    const tools = toolbox ? new Map([...builtinTools(), ...toolbox.definitions().map((tool) => [tool.name, tool] as const)]) : undefined;
    const { executor } = createSandboxedExecutor(
      { db: deps.db, audit: deps.audit, signer: deps.signer, trustedKeys: deps.trustedKeys, workDir: realWorkDir, sandboxManager: manager, ...(deps.now ? { now: deps.now } : {}) },
      {
        agentFor: (work) => setup.agentFor(work, deps.audit),
        ...(toolbox && tools ? { tools, ephemeral: new RoutingEphemeralExecutor(new SandboxedEphemeralExecutor({ manager }), toolbox) } : {}),
      },
    );
    const authorized = executor.authorize(item, token);
    if (!authorized.ok) return { ok: false, reason: `${authorized.code}: ${authorized.reason}` };
    return { ok: true, result: await executor.execute(authorized.item, { signal }) };
  } finally {
    await toolbox?.close();
  }
}

/** An MCP call may wait for the person (an `ask` rule of the server's policy). */
const MCP_CALL_TIMEOUT_MS = 10 * 60_000;

/** HOME/models.json's `embedding` model when one is set, else the local word vectors (spec 002 §6.2). */
async function defaultEmbedder(home: string, secrets: NamedSecrets, seals: StateSeals): Promise<Embedder> {
  const { embedderForHome } = await import('../silas/memory/embedding/embedder-for-home.js');
  return embedderForHome(home, secrets, seals);
}
