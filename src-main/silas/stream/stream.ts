import { randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { MAX_STREAM_HISTORY, type StreamApproveArgs, type StreamContextView, type StreamSubscribeArgs, type StreamSubscribeResult, type StreamUnsubscribeArgs, type StreamEvent, type StreamOpenArgs, type StreamOpenResult, type StreamSendArgs, type TurnOutcome } from '../../../src-shared/schemas/stream.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ChronicleRepository } from '../../store/repositories/chronicle.js';
import type { ContextManager } from '../context/context-manager.js';
import { inspectContext, subscriptionView } from '../context/inspection.js';
import { historyMessage, messageOf } from './history.js';
import type { StreamCaller, StreamChannel } from './stream-channel.js';
import type { StreamModels } from './stream-models.js';
import { classifyTaint, type TaintDeps } from './taint.js';
import type { TurnProcessor } from './turn-processor.js';
import type { BackgroundPlans, ReportOptions } from './plan-dispatcher.js';
import type { SealedScopeKeys } from './sealed-stream-state.js';
import { credentialOf, ScopeHolders, STREAM_LIMITS, type QueuePressure, type StreamLimits } from './stream-limits.js';
import { TurnMeter } from './turn-meter.js';

/*
 * The Stream (spec 002 §5.1): Silas's permanent orchestration session in the runtime. It owns the
 * conversation scopes (one per connection, §8.1), serialises the turns of each scope (§5.1
 * "Concurrency control": one lock per connection id) while different scopes run concurrently,
 * and rehydrates a scope from the chronicle store when it is first used after a restart
 * (§5.1.3). Each scope's events go to the one session holding it. docs/silas/stream.md.
 */

/** Conversation contexts kept in memory at once (each is bounded by its token budget). */
export const MAX_LOADED_SCOPES = 200;

/** The chronicle source of what the executor wrote (history shows it as a system line, taint `external`). */
const EXECUTOR_SOURCE = 'system:executor';

export interface StreamDeps {
  audit: Pick<AuditLog, 'append'>;
  events: {
    publishTo(session: string, name: 'stream.event', payload: StreamEvent): boolean;
    /** Whether a session is still connected: only live sessions count against the limits. */
    hasSession?(session: string): boolean;
  };
  /** Scope keys, sealed with the ledger key (a replaced hash resumes nothing). */
  scopes: Pick<SealedScopeKeys, 'create' | 'resume'>;
  chronicle: ChronicleRepository;
  context: ContextManager;
  models: StreamModels;
  processor: TurnProcessor;
  plans: Pick<BackgroundPlans, 'approveHere'>;
  taint: TaintDeps;
  /** §11 `rehydration.max_chronicle_entries`. */
  rehydrateEntries: number;
  /** Scopes per session and credential, turns waiting per scope and credential (stream-limits.ts). */
  limits?: StreamLimits;
  now: () => Date;
  clock?: () => number;
  onError?: (message: string, error: unknown) => void;
}

interface Lane {
  tail: Promise<void>;
  waiting: number;
  /** A refusal of this lane was audited; reset when its queue drains (one entry per flood, not per message). */
  refusalAudited: boolean;
  running: { turnId: string; controller: AbortController } | null;
  /** Turns queued before this generation are dropped when they come up (a cancel). */
  generation: number;
}

export class Stream implements StreamChannel {
  private readonly holders: ScopeHolders;
  private readonly lanes = new Map<string, Lane>();
  private readonly loaded = new Set<string>();
  private readonly limits: StreamLimits;
  /** Turns waiting or running per credential (stream-limits.ts). */
  private readonly credentialTurns = new Map<string, number>();
  private stopped = false;

  constructor(private readonly deps: StreamDeps) {
    this.limits = deps.limits ?? STREAM_LIMITS;
    this.holders = new ScopeHolders(this.limits, deps.events.hasSession ? (session) => deps.events.hasSession!(session) : () => true);
  }

  /** Startup (§5.1): recorded; scopes are rehydrated when first used, so a start costs nothing per scope. */
  start(work: { resumed: number; refused: number }): void {
    this.deps.audit.append('silas.stream.started', { scopes: this.deps.chronicle.scopes().length, resumed_work: work.resumed, ...(work.refused > 0 ? { refused_work: work.refused } : {}) });
  }

  open(args: z.output<typeof StreamOpenArgs>, caller: StreamCaller): StreamOpenResult {
    let scope: string;
    let key: string;
    let resumed = false;
    // Limits first: a refused open costs no key check, no row and no context (stream-limits.ts).
    this.admitOpen(args.resume?.scope ?? null, caller);
    if (args.resume) {
      const verdict = this.deps.scopes.resume(args.resume.scope, args.resume.key, this.deps.now());
      if (verdict === 'seal-refused') {
        // The stored key hash was changed outside Silas (state.seal_refused has the detail): whoever
        // holds the new key gets nothing, and the session holding the scope keeps it.
        this.deps.audit.append('silas.stream.scope_refused', { scope_id: args.resume.scope, reason: 'the stored resume key does not match its seal (changed outside Silas)', transport: caller.transport });
        throw new SilasError(ErrorCode.Unauthorized, 'this conversation cannot be resumed: its stored key was changed outside Silas (see the activity log); open a new one');
      }
      if (verdict !== 'ok') {
        this.deps.audit.append('silas.stream.scope_refused', { scope_id: args.resume.scope, reason: 'unknown scope or wrong resume key', transport: caller.transport });
        throw new SilasError(ErrorCode.Unauthorized, 'this conversation cannot be resumed (unknown scope or wrong key); open a new one');
      }
      ({ scope, key } = args.resume);
      resumed = true;
    } else {
      scope = `scope-${randomBytes(16).toString('base64url')}`;
      key = randomBytes(32).toString('base64url');
      this.deps.scopes.create(scope, key, this.deps.now());
    }
    // The key holder is the same person on a new connection (a reload, a restart): the scope moves to it.
    this.holders.hold(scope, caller);
    // Opening is not recorded (every page load opens one); refusals are, and every message names its scope.
    this.ensureLoaded(scope);
    const history = this.deps.chronicle
      .getRecent(scope, MAX_STREAM_HISTORY)
      .map(historyMessage)
      .filter((message) => message !== null);
    return { scope, key, resumed, history, busy: (this.lanes.get(scope)?.running ?? null) !== null, models: this.deps.models.status() };
  }

  send(args: z.output<typeof StreamSendArgs>, caller: StreamCaller): { turn_id: string; queued_behind: number } {
    if (this.stopped) throw new SilasError(ErrorCode.Unavailable, 'Silas is shutting down; send the message again after it restarts');
    this.assertHolder(args.scope, caller);
    const lane = this.lane(args.scope);
    this.admitTurn(args.scope, lane, caller);
    const turnId = `turn-${randomUUID()}`;
    const queuedBehind = lane.waiting + (lane.running ? 1 : 0);
    const generation = lane.generation;
    const credential = credentialOf(caller.transport);
    lane.waiting += 1;
    this.credentialTurns.set(credential, (this.credentialTurns.get(credential) ?? 0) + 1);
    lane.tail = lane.tail
      .then(() => this.runTurn(args, caller, turnId, lane, generation))
      .finally(() => {
        this.credentialTurns.set(credential, Math.max(0, (this.credentialTurns.get(credential) ?? 1) - 1));
        if (lane.waiting === 0) lane.refusalAudited = false;
      });
    return { turn_id: turnId, queued_behind: queuedBehind };
  }

  cancel(scope: string, caller: StreamCaller): { cancelled: boolean } {
    this.assertHolder(scope, caller);
    const lane = this.lanes.get(scope);
    if (!lane) return { cancelled: false };
    const had = lane.running !== null || lane.waiting > 0;
    lane.generation += 1;
    lane.running?.controller.abort();
    return { cancelled: had };
  }

  /**
   * §5.7 context_inspection for the session holding the scope. A context dropped from memory (many
   * conversations since) is first rehydrated from the chronicle, as its next turn would; nothing else changes.
   */
  context(scope: string, caller: StreamCaller): StreamContextView {
    this.assertHolder(scope, caller);
    this.ensureLoaded(scope);
    return inspectContext(this.deps.context, scope, this.deps.chronicle.turnCounter(scope));
  }

  /**
   * §4.3 `subscribe` for the session holding the scope: a file, a file's lines or a memory search
   * kept in its context (docs/silas/context.md "Subscriptions"). A file subscription sends the
   * file to the model provider at every turn, so only the owner's own connection (the cockpit)
   * may make one; a conversation over the local socket (anyone holding the ask credential) may
   * keep a memory search of its own memory.
   */
  subscribe(args: z.output<typeof StreamSubscribeArgs>, caller: StreamCaller): z.output<typeof StreamSubscribeResult> {
    this.assertHolder(args.scope, caller);
    this.ensureLoaded(args.scope);
    const turn = this.deps.chronicle.turnCounter(args.scope);
    let subId: string;
    if ('reactivate' in args) {
      const existing = this.deps.context.subscriptions(args.scope).find((live) => live.sub.sub_id === args.reactivate);
      if (existing && existing.sub.sub_type !== 'memory_query') this.assertOwnerConnection(args.scope, caller);
      this.deps.context.reactivate(args.scope, args.reactivate, turn);
      subId = args.reactivate;
    } else {
      if (args.sub_type !== 'memory_query') this.assertOwnerConnection(args.scope, caller);
      subId = this.deps.context.subscribe(args.scope, { sub_type: args.sub_type, target: args.target }, turn);
    }
    const live = this.deps.context.subscriptions(args.scope).find((entry) => entry.sub.sub_id === subId)!;
    return { sub_id: subId, subscription: subscriptionView(live) };
  }

  /** §4.3 `unsubscribe` (deactivates; `remove` forgets it) for the session holding the scope. */
  unsubscribe(args: z.output<typeof StreamUnsubscribeArgs>, caller: StreamCaller): { sub_id: string; removed: boolean } {
    this.assertHolder(args.scope, caller);
    this.ensureLoaded(args.scope);
    this.deps.context.unsubscribe(args.scope, args.sub_id, args.remove);
    return { sub_id: args.sub_id, removed: args.remove };
  }

  approve(args: z.output<typeof StreamApproveArgs>, caller: StreamCaller): { accepted: boolean; reason: string } {
    this.assertHolder(args.scope, caller);
    return this.deps.plans.approveHere(args.scope, args.work_item_id, args.token);
  }

  /** Resolves when every turn queued so far has ended (shutdown, tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.tail));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const lane of this.lanes.values()) {
      lane.generation += 1;
      lane.running?.controller.abort();
    }
    await this.idle();
  }

  /** Sends to whoever holds the scope now; nobody holding it (a closed tab) drops the event, the chronicle keeps the record. */
  emit(scope: string, event: StreamEvent): void {
    const session = this.holders.sessionOf(scope);
    if (session !== undefined) this.deps.events.publishTo(session, 'stream.event', event);
  }

  /**
   * A line from the runtime into a scope's conversation (a plan's result): chronicle, context and
   * channel. What the executor wrote after reading tool output is `external` (§5.12) in all three,
   * and is not framed as a `[SYSTEM]` line in the context: models read it as the tool output it is.
   */
  report(scope: string, text: string, options: ReportOptions = {}): void {
    this.ensureLoaded(scope);
    const turn = this.deps.chronicle.turnCounter(scope);
    const fromExecutor = options.from === 'executor';
    const taint = fromExecutor ? 'external' : 'owner';
    const ctxId = this.deps.context.add(scope, {
      zone: 'chronicle',
      kind: 'message',
      source: fromExecutor ? EXECUTOR_SOURCE : 'system:stream',
      taint,
      content: fromExecutor ? `[external] executor: ${text}` : `[SYSTEM] ${text}`,
      turn_number: turn,
    });
    const item = this.deps.context.getZone(scope, 'chronicle').find((entry) => entry.ctx_id === ctxId);
    if (item) this.deps.chronicle.append(scope, item);
    this.emit(scope, { type: 'message', scope, turn_id: null, message: messageOf({ id: ctxId, sender: 'system', text, taint, turn, at: this.deps.now() }), chips: [...(options.chips ?? [])] });
  }

  /** Refuses (and audits, once per session) an open beyond the session's or the credential's scopes. */
  private admitOpen(resuming: string | null, caller: StreamCaller): void {
    const refusal = this.holders.admit(resuming, caller, (scope) => {
      const lane = this.lanes.get(scope);
      return lane !== undefined && (lane.running !== null || lane.waiting > 0);
    });
    if (refusal === null) return;
    if (this.holders.firstRefusal(caller.session)) {
      this.deps.audit.append('silas.stream.open_refused', { transport: caller.transport, limit: refusal.limit, held: refusal.held, max: refusal.max });
    }
    throw new SilasError(
      ErrorCode.RateLimited,
      refusal.limit === 'session'
        ? `this connection already holds ${refusal.held} conversations (at most ${refusal.max}); continue one of them, or reconnect`
        : `connections with this credential (${credentialOf(caller.transport)}) already hold ${refusal.held} conversations (at most ${refusal.max}); close some first`,
    );
  }

  /** §18.6: the queues' state for `/health`; counts only, never a scope id or a message. */
  pressure(): QueuePressure {
    let running = 0;
    let waiting = 0;
    let full = 0;
    for (const lane of this.lanes.values()) {
      if (lane.running) running += 1;
      waiting += lane.waiting;
      if (lane.waiting >= this.limits.queuedTurnsPerScope) full += 1;
    }
    const turns = { cockpit: this.credentialTurns.get('cockpit') ?? 0, 'local-socket': this.credentialTurns.get('local-socket') ?? 0 };
    const atLimit = Object.values(turns).some((count) => count >= this.limits.turnsPerCredential);
    return { state: full > 0 || atLimit ? 'busy' : 'ok', running, waiting, full_scopes: full, max_waiting_per_scope: this.limits.queuedTurnsPerScope, turns, max_turns_per_credential: this.limits.turnsPerCredential };
  }

  /** Refuses (and audits, once until the queue drains) a message beyond the scope's or the credential's waiting turns. */
  private admitTurn(scope: string, lane: Lane, caller: StreamCaller): void {
    const credential = credentialOf(caller.transport);
    const pending = this.credentialTurns.get(credential) ?? 0;
    const refusal =
      lane.waiting >= this.limits.queuedTurnsPerScope
        ? { limit: 'scope' as const, waiting: lane.waiting, max: this.limits.queuedTurnsPerScope }
        : pending >= this.limits.turnsPerCredential
          ? { limit: 'credential' as const, waiting: pending, max: this.limits.turnsPerCredential }
          : null;
    if (refusal === null) return;
    if (!lane.refusalAudited) {
      lane.refusalAudited = true;
      this.deps.audit.append('silas.stream.turn_refused', { scope_id: scope, transport: caller.transport, ...refusal });
    }
    throw new SilasError(
      ErrorCode.RateLimited,
      refusal.limit === 'scope'
        ? `${refusal.waiting} messages are already waiting in this conversation (at most ${refusal.max}); wait for Silas to answer, or press Stop`
        : `${refusal.waiting} messages of connections with this credential are already waiting or running (at most ${refusal.max}); wait for Silas to answer`,
    );
  }

  private assertHolder(scope: string, caller: StreamCaller): void {
    if (this.holders.sessionOf(scope) === caller.session) return;
    this.deps.audit.append('silas.stream.scope_refused', { scope_id: scope, reason: 'the scope is not held by this session', transport: caller.transport });
    throw new SilasError(ErrorCode.Unauthorized, 'this conversation belongs to another connection; open or resume your own with stream.open');
  }

  private assertOwnerConnection(scope: string, caller: StreamCaller): void {
    if (caller.transport !== 'local-socket') return;
    this.deps.audit.append('silas.stream.scope_refused', { scope_id: scope, reason: 'a file subscription was asked over the local socket; only the cockpit may keep files in context', transport: caller.transport });
    throw new SilasError(ErrorCode.Unauthorized, 'only the cockpit can keep a file in context (it is sent to the model provider at every turn); add it from the context inspector beside the Stream');
  }

  private lane(scope: string): Lane {
    let lane = this.lanes.get(scope);
    if (!lane) {
      lane = { tail: Promise.resolve(), waiting: 0, refusalAudited: false, running: null, generation: 0 };
      this.lanes.set(scope, lane);
    }
    return lane;
  }

  /**
   * §5.1.3 for one scope: its recent chronicle back into its context, once per runtime start. At
   * most MAX_LOADED_SCOPES contexts stay in memory; the least recently used one (with no turn
   * running) is dropped and rehydrated from the chronicle if it is used again.
   */
  private ensureLoaded(scope: string): void {
    if (this.loaded.has(scope)) {
      this.loaded.delete(scope);
      this.loaded.add(scope);
      return;
    }
    this.loaded.add(scope);
    if (this.loaded.size > MAX_LOADED_SCOPES) {
      for (const candidate of this.loaded) {
        const lane = this.lanes.get(candidate);
        if (candidate === scope || lane?.running || (lane?.waiting ?? 0) > 0) continue;
        this.loaded.delete(candidate);
        this.lanes.delete(candidate);
        this.deps.context.removeScope(candidate);
        break;
      }
    }
    // §5.1.3 step 4: its subscriptions, each checked against its seal; they are read at the next render.
    this.deps.context.restoreSubscriptions(scope);
    const recent = this.deps.chronicle.getRecent(scope, this.deps.rehydrateEntries);
    if (recent.length === 0) return;
    for (const item of recent) this.deps.context.add(scope, item);
    this.deps.context.add(scope, { zone: 'chronicle', kind: 'system', source: 'system:stream', taint: 'owner', content: '[SYSTEM] Session rehydrated after restart.', turn_number: this.deps.chronicle.turnCounter(scope) });
  }

  private async runTurn(args: z.output<typeof StreamSendArgs>, caller: StreamCaller, turnId: string, lane: Lane, generation: number): Promise<void> {
    lane.waiting -= 1;
    const { scope } = args;
    const meter = new TurnMeter();
    const emit = (event: StreamEvent) => this.emit(scope, event);
    const turn = this.deps.chronicle.turnCounter(scope) + 1;
    if (generation !== lane.generation) {
      emit({ type: 'turn_finished', scope, turn_id: turnId, outcome: 'cancelled', usage: meter.usage(), error: null });
      return;
    }
    const controller = new AbortController();
    lane.running = { turnId, controller };
    this.ensureLoaded(scope);
    const started = this.deps.clock?.() ?? performance.now();
    let outcome: TurnOutcome = 'failed';
    let route: string | null = null;
    let error: string | null = null;
    try {
      const verdict = classifyTaint(this.deps.taint, { scope, text: args.text, caller, ...(args.signed ? { signed: args.signed } : {}) });
      if (verdict.refused !== null) this.deps.audit.append('silas.stream.signature_refused', { scope_id: scope, turn, reason: verdict.refused });
      this.deps.audit.append('silas.stream.message_received', { scope_id: scope, turn, taint: verdict.taint, chars: args.text.length, signed: verdict.signed });
      const senderId = verdict.taint === 'owner' ? 'owner' : caller.transport === 'local-socket' ? 'terminal' : 'cockpit';
      emit({ type: 'turn_started', scope, turn_id: turnId, turn, message: messageOf({ id: `${turnId}:message`, sender: 'person', text: args.text, taint: verdict.taint, turn, at: this.deps.now() }) });
      const result = await this.deps.processor.run({
        scope,
        turnId,
        turn,
        text: args.text,
        senderId,
        channel: caller.transport === 'local-socket' ? 'channel:terminal' : 'channel:cockpit',
        taint: verdict.taint,
        // The cockpit's credential is the owner's (single-user mode); the local socket's is anyone's.
        ownerConnection: caller.transport !== 'local-socket',
        origin: { channel: caller.transport === 'local-socket' ? 'local_conversation' : 'cockpit', signed: verdict.taint === 'owner' },
        signal: controller.signal,
        emit,
        meter,
      });
      ({ outcome, route, error } = result);
    } catch (thrown) {
      if (controller.signal.aborted) {
        outcome = 'cancelled';
        emit({ type: 'draft_reset', scope, turn_id: turnId, reason: 'stopped' });
      } else {
        outcome = 'failed';
        error = 'Silas failed inside the runtime while answering; the runtime log has the details';
        this.deps.onError?.(`turn ${turnId} of ${scope} failed`, thrown);
      }
    } finally {
      lane.running = null;
    }
    // Step 16: the turn counter, whatever the outcome; then the turn's cost in the ledger.
    this.deps.chronicle.incrementTurn(scope);
    const usage = meter.usage();
    const durationMs = Math.round((this.deps.clock?.() ?? performance.now()) - started);
    this.deps.audit.append('silas.stream.turn_completed', {
      scope_id: scope,
      turn,
      outcome,
      route,
      prompt_tokens: usage.prompt_tokens,
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cost_usd: usage.cost_usd,
      model_calls: usage.model_calls,
      duration_ms: durationMs,
    });
    emit({ type: 'turn_finished', scope, turn_id: turnId, outcome, usage, error });
  }
}
