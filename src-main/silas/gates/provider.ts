import type { z } from 'zod';
import { SilasError } from '../../../src-shared/errors.js';
import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import type { Gate, GateContext, GateProvider, GateResultInput } from '../../../src-shared/silas/gates.js';
import type { AuditAppender } from '../../../src-shared/audit/events.js';

/**
 * The provider contract of spec 002 §4.8. The spec's `check(gate, context)` is split in two so that
 * the active gate set can be precompiled (ADR-012): `prepare` validates the gate's configuration
 * once and returns the check that is then run per message, response, tool call or step.
 */

/** What a provider decides; the runner adds `gate_name` and `lane` and validates the whole result. */
export type GateVerdict = Omit<GateResultInput, 'gate_name' | 'lane'>;

export type PreparedGateCheck = (context: GateContext) => Promise<GateVerdict> | GateVerdict;

export interface GateCheckProvider {
  readonly name: GateProvider;
  /**
   * Validates `gate` for this provider and returns its precompiled check. Throws a
   * `GateConfigError` naming the gate and the field when the configuration cannot be evaluated,
   * so a bad plan is refused before anything runs.
   */
  prepare(gate: Gate): PreparedGateCheck;
}

/** Compatible with `AuditLog.append` (src-main/audit): the runner's only way to record what it did. */
export type GateAuditSink = AuditAppender;

const GATE_CONFIG_ERROR = 'E_GATE_CONFIG';

export class GateConfigError extends SilasError {
  readonly gate: string;
  readonly field: string;
  constructor(gate: string, field: string, message: string) {
    super(GATE_CONFIG_ERROR, `gate "${gate}": ${field}: ${message}`);
    this.name = 'GateConfigError';
    this.gate = gate;
    this.field = field;
  }
}

/**
 * Config keys the runner itself interprets, whatever the provider: `tools` limits an `on_tool_call`
 * gate to the named tools (the spec's Gate has no tool filter, and without one a gate about
 * `tool_args.position_usd` would block every other tool for lack of that argument).
 */
const RUNNER_CONFIG_KEYS = ['tools'] as const;

/** Parses the provider-specific part of `gate.config` with a strict schema; errors name the field. */
export function parseProviderConfig<S extends z.ZodType>(gate: Gate, schema: S): z.infer<S> {
  const own: JsonObject = {};
  for (const [key, value] of Object.entries(gate.config)) {
    if (!(RUNNER_CONFIG_KEYS as readonly string[]).includes(key)) own[key] = value;
  }
  const parsed = schema.safeParse(own);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = ['config', ...issue.path.map(String)].join('.');
    const detail = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')} for provider ${gate.provider}` : issue.message;
    throw new GateConfigError(gate.name, where, detail);
  }
  return parsed.data;
}

/** Own-property lookup of a dotted path; prototype properties (`constructor`, `__proto__`) never resolve. */
export function lookupPath(context: GateContext, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = context;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = current[part];
  }
  return current;
}

/**
 * Where a gate reads its value: `extract` when set, otherwise the text the trigger is about
 * (`message` before input is processed, `response` before output is sent, §5.5.1).
 */
export function subjectPath(gate: Pick<Gate, 'extract' | 'on'>): string | null {
  if (gate.extract !== null) return gate.extract;
  if (gate.on === 'every_user_message') return 'message';
  if (gate.on === 'every_agent_response') return 'response';
  return null;
}

/** A short, single-line rendering of a checked value for `GateResult.value`. */
export function displayValue(value: JsonValue | undefined): string | number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}
