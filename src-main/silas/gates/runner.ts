import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { Gate, GateResult, laneOf, type GateAction, type GateContext, type GateLane, type GateProvider, type GateTrigger } from '../../../src-shared/silas/gates.js';
import { redactForAudit } from './audit-redact.js';
import { applyMutations, deepFreeze, frozenContext } from './mutations.js';
import { GateConfigError, type GateAuditSink, type GateCheckProvider, type GateVerdict, type PreparedGateCheck } from './provider.js';

/**
 * The gate runner of spec 002 §4.9 / §5.4: dispatches gates to providers in two lanes, enforces
 * `ALLOWED_MUTATIONS`, and records every result in the audit log before returning it.
 */

interface CompiledGate {
  readonly gate: Gate;
  readonly lane: GateLane;
  /** `config.tools`: the tools an on_tool_call gate is limited to; null = every tool. */
  readonly tools: ReadonlySet<string> | null;
  readonly check: PreparedGateCheck;
}

/**
 * The precompiled active gate set (ADR-012): system gates then work-item gates, validated,
 * frozen and prepared once, then reused for every message, response, tool call and step of the
 * turn or execution, so a gate cannot change between the input check and the output check.
 */
export class ActiveGateSet {
  readonly gates: readonly Gate[];

  /** @internal Built by GateRunner.compile. */
  constructor(private readonly compiled: readonly CompiledGate[]) {
    this.gates = Object.freeze(compiled.map((c) => c.gate));
    Object.freeze(this.compiled);
  }

  get size(): number {
    return this.compiled.length;
  }

  /** @internal */
  matching(trigger: GateTrigger, tool: unknown, step: number | undefined): readonly CompiledGate[] {
    return this.compiled.filter(
      (c) =>
        c.gate.on === trigger &&
        (trigger !== 'after_step' || c.gate.after_step === step) &&
        // A gate limited to some tools still runs when the tool name is missing: fail towards checking.
        (c.tools === null || typeof tool !== 'string' || c.tools.has(tool)),
    );
  }
}

export interface GateCheckOptions {
  /** The plan step that just completed; required for the after_step trigger. */
  step?: number;
  /** Added to every audit entry (work_item_id, connection_id, turn id, …). */
  scope?: JsonObject;
}

export interface GateCheckOutcome {
  /** Policy-lane results in gate order; callers enforce these. */
  policy: GateResult[];
  /** Quality-lane results; for logging and observability only. */
  quality: GateResult[];
  /** The context after allowed mutations, merged left to right (frozen). */
  context: GateContext;
  /** `block` if any policy gate blocked, else `require_approval` if any asked for it, else `continue`. */
  decision: GateAction;
  /** The first block: the one that escalates (via its gate's `on_block`); later blocks are only recorded. */
  blocking: GateResult | null;
  /** Every require_approval result (each needs the human, §5.5.2 approval_always). */
  approvals: GateResult[];
}

export interface GateRunnerDeps {
  providers: readonly GateCheckProvider[];
  audit: GateAuditSink;
}

const clip = (text: string, max = 500): string => (text.length > max ? `${text.slice(0, max)}…` : text);

export class GateRunner {
  private readonly providers: ReadonlyMap<GateProvider, GateCheckProvider>;
  private readonly audit: GateAuditSink;

  constructor(deps: GateRunnerDeps) {
    const providers = new Map<GateProvider, GateCheckProvider>();
    for (const provider of deps.providers) {
      if (providers.has(provider.name)) throw new SilasError(ErrorCode.Config, `gate provider "${provider.name}" is registered twice`);
      providers.set(provider.name, provider);
    }
    this.providers = providers;
    this.audit = deps.audit;
  }

  /**
   * Validates and prepares the active set: `system` gates (config `gates.system`) first, then the
   * work item's. Any invalid gate throws a GateConfigError naming it, before anything runs.
   */
  compile(input: { system?: readonly unknown[]; workItem?: readonly unknown[] }): ActiveGateSet {
    const seen = new Set<string>();
    const compiled: CompiledGate[] = [];
    const layers: [string, readonly unknown[]][] = [
      ['gates.system', input.system ?? []],
      ['gates', input.workItem ?? []],
    ];
    for (const [where, list] of layers) {
      list.forEach((raw, index) => {
        const gate = this.parse(raw, `${where}[${index}]`);
        if (seen.has(gate.name)) throw new GateConfigError(gate.name, 'name', `another active gate already has this name (${where}[${index}]); gate names must be unique`);
        seen.add(gate.name);
        compiled.push(this.prepare(gate));
      });
    }
    return new ActiveGateSet(compiled);
  }

  /** §4.9 check_gates: evaluates the gates of `set` that fire on `trigger`, policy lane first. */
  async checkGates(set: ActiveGateSet, trigger: GateTrigger, context: GateContext, options: GateCheckOptions = {}): Promise<GateCheckOutcome> {
    if (trigger === 'after_step' && options.step === undefined) {
      throw new SilasError(ErrorCode.InvalidArgs, 'checkGates: the after_step trigger needs options.step (the step that just completed)');
    }
    const scope = options.scope ?? {};
    const gates = set.matching(trigger, context.tool_name, options.step);
    let working = frozenContext(context);
    const policy: GateResult[] = [];
    const quality: GateResult[] = [];

    for (const compiled of gates) {
      if (compiled.lane !== 'policy') continue;
      const result = await this.evaluate(compiled, working, trigger, scope);
      if (result.modified_context !== null) {
        const merged = this.merge(compiled.gate.name, working, result.modified_context, scope);
        working = merged.context;
        result.modified_context = merged.kept;
      }
      this.record(result, compiled.gate, trigger, scope);
      policy.push(result);
    }
    // Quality gates see the post-mutation context and can neither block nor rewrite it.
    for (const compiled of gates) {
      if (compiled.lane !== 'quality') continue;
      const result = await this.evaluate(compiled, working, trigger, scope);
      this.record(result, compiled.gate, trigger, scope);
      quality.push(result);
    }

    const blocking = policy.find((r) => r.action === 'block') ?? null;
    const approvals = policy.filter((r) => r.action === 'require_approval');
    const decision: GateAction = blocking !== null ? 'block' : approvals.length > 0 ? 'require_approval' : 'continue';
    return { policy, quality, context: working, decision, blocking, approvals };
  }

  /** §4.9 check_gate: one gate, whatever its trigger; its mutation is filtered but not merged. */
  async checkGate(gate: unknown, context: GateContext, options: Omit<GateCheckOptions, 'step'> = {}): Promise<GateResult> {
    const compiled = this.prepare(this.parse(gate, 'gate'));
    const scope = options.scope ?? {};
    const working = frozenContext(context);
    const result = await this.evaluate(compiled, working, compiled.gate.on, scope);
    if (result.modified_context !== null) result.modified_context = this.merge(compiled.gate.name, working, result.modified_context, scope).kept;
    this.record(result, compiled.gate, compiled.gate.on, scope);
    return result;
  }

  private parse(raw: unknown, where: string): Gate {
    const parsed = Gate.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const name = typeof (raw as { name?: unknown } | null)?.name === 'string' ? (raw as { name: string }).name : where;
      throw new GateConfigError(name, issue.path.length > 0 ? issue.path.join('.') : where, issue.message);
    }
    return deepFreeze(parsed.data);
  }

  private prepare(gate: Gate): CompiledGate {
    const tools = gate.config.tools;
    let toolSet: ReadonlySet<string> | null = null;
    if (tools !== undefined) {
      if (gate.on !== 'on_tool_call') throw new GateConfigError(gate.name, 'config.tools', 'only an on_tool_call gate can be limited to tools');
      if (!Array.isArray(tools) || tools.length === 0 || !tools.every((t) => typeof t === 'string' && t.length > 0)) {
        throw new GateConfigError(gate.name, 'config.tools', 'must be a non-empty list of tool names');
      }
      toolSet = new Set(tools as string[]);
    }
    const provider = this.providers.get(gate.provider);
    if (provider === undefined) {
      // §5.4: an unknown provider is a policy-lane block, whatever lane the gate asked for.
      const reason = `No provider: ${gate.provider}`;
      return Object.freeze({ gate, lane: 'policy' as const, tools: toolSet, check: () => ({ action: 'block' as const, reason }) });
    }
    return Object.freeze({ gate, lane: laneOf(gate), tools: toolSet, check: provider.prepare(gate) });
  }

  /** Runs one prepared check; provider errors and malformed results fail closed (policy) or open (quality). */
  private async evaluate(compiled: CompiledGate, context: GateContext, trigger: GateTrigger, scope: JsonObject): Promise<GateResult> {
    const { gate, lane } = compiled;
    let verdict: GateVerdict;
    try {
      verdict = await compiled.check(context);
    } catch (error) {
      verdict = this.failure(lane, `Gate check failed: ${clip(error instanceof Error ? error.message : String(error))}`);
    }
    const reason = typeof verdict.reason === 'string' ? clip(verdict.reason, 4000) : verdict.reason;
    let parsed = GateResult.safeParse({ ...verdict, reason, gate_name: gate.name, lane });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      parsed = GateResult.safeParse({ ...this.failure(lane, `Gate returned an invalid result: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`), gate_name: gate.name, lane });
    }
    const result = parsed.data!;
    if (lane === 'policy') {
      result.flags = [];
      return result;
    }
    if (result.action !== 'continue') {
      this.audit.append('gate.quality_lane_violation', { ...scope, gate: gate.name, trigger, action: result.action, reason: clip(result.reason) });
      result.action = 'continue';
      if (!result.flags.includes('quality_lane_violation')) result.flags.push('quality_lane_violation');
    }
    if (result.modified_context !== null) {
      for (const key of Object.keys(result.modified_context)) {
        this.audit.append('gate.rejected_mutation', { ...scope, gate: gate.name, key, reason: 'quality_lane', lane });
      }
      result.modified_context = null;
    }
    return result;
  }

  private failure(lane: GateLane, reason: string): GateVerdict {
    return lane === 'policy' ? { action: 'block', reason } : { action: 'continue', reason, flags: ['gate_error'] };
  }

  private merge(gateName: string, context: GateContext, modified: JsonObject, scope: JsonObject): { context: GateContext; kept: JsonObject | null } {
    const outcome = applyMutations(context, modified);
    for (const rejected of outcome.rejected) {
      this.audit.append('gate.rejected_mutation', { ...scope, gate: gateName, key: rejected.key, reason: rejected.reason, lane: 'policy' });
    }
    const kept: JsonObject = {};
    for (const accepted of outcome.accepted) {
      kept[accepted.key] = accepted.modified;
      this.audit.append('gate.mutation', {
        ...scope,
        gate: gateName,
        key: accepted.key,
        original: redactForAudit(accepted.original),
        modified: redactForAudit(accepted.modified),
      });
    }
    return { context: outcome.context, kept: outcome.accepted.length > 0 ? kept : null };
  }

  private record(result: GateResult, gate: Gate, trigger: GateTrigger, scope: JsonObject): void {
    this.audit.append('gate.result', {
      ...scope,
      gate: gate.name,
      provider: gate.provider,
      trigger,
      lane: result.lane,
      action: result.action,
      reason: redactForAudit(result.reason),
      value: redactForAudit(result.value),
      score: result.score,
      flags: result.flags,
      mutated: result.modified_context === null ? [] : Object.keys(result.modified_context),
      on_block: result.action === 'block' ? gate.on_block : null,
    });
  }
}
