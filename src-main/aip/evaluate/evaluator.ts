import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { normalizeName } from '../../../src-shared/policy/normalize.js';
import { toolSchemaHash } from '../policy/schema-hash.js';
import type { AgentPolicy, ToolRule } from '../policy/types.js';
import { aipError, type AipErrorKind, type JsonRpcErrorObject, type JsonRpcId } from './errors.js';
import { ToolRateLimiter } from './rate-limiter.js';
import { argumentString } from './stringify.js';

/** What the proxy or the conformance runner asks about one JSON-RPC request. */
export interface EvaluationInput {
  method: string;
  tool?: string;
  args?: unknown;
  requestId?: JsonRpcId;
  /** Identity token presented with the request (§5), if any. */
  token?: string | null;
}

type AipDecision = 'ALLOW' | 'BLOCK' | 'ASK' | 'RATE_LIMITED';

export interface PolicyDecision {
  decision: AipDecision;
  /** A rule was violated (also true when monitor mode forwards the call). */
  violation: boolean;
  /** Monitor mode forwarded a call that enforce mode would have blocked. */
  monitored: boolean;
  errorCode: number | null;
  error: JsonRpcErrorObject | null;
  reason: string;
  failedArg: string | null;
  failedRule: string | null;
  method: string;
  tool: string | null;
  /** For an ASK: the rule that asked, so the person's card can say why (docs/review.md "Why"). */
  askedBy?: AskingRule;
}

/** The rule behind an ASK: where the policy writes it, and the argument constraints the call met under it. */
interface AskingRule {
  /** Its place in the policy document, e.g. `spec.tool_rules[3]`. */
  path: string;
  /** The tool as the rule writes it. */
  tool: string;
  /** The rule's `allow_args`: each argument the call had to match, and the pattern it matched. */
  args: readonly { name: string; pattern: string }[];
}

export interface ToolDefinition {
  name: string;
  description?: string;
  inputSchema?: unknown;
}

interface ProtectedPathHit {
  /** `protected_path`, or why the arguments could not be inspected completely. */
  reason?: string;
  protectedPath: string;
  argumentPath: string;
  value: string;
  detail?: string;
}

export interface EvaluatorDeps {
  /**
   * Searches arguments for protected paths (§3.4.5); absent means none are protected. `tool`
   * (as sent) tells which strings are run as commands (paths/executed.ts).
   */
  protectedPaths?: { find(args: unknown, context?: { tool: string }): ProtectedPathHit | null };
  /** The tool definitions the server announced (tools/list), by normalised name; for schema_hash. */
  toolDefinition?: (normalizedTool: string) => ToolDefinition | null;
  rateLimiter?: ToolRateLimiter;
}

/** Errors that monitor mode still enforces (spec 001 §4.4). */
const ALWAYS_ENFORCED: ReadonlySet<AipErrorKind> = new Set(['RateLimited', 'ProtectedPath', 'TokenRequired', 'TokenInvalid', 'TokenRevoked', 'AudienceMismatch']);

interface Violation {
  kind: AipErrorKind;
  reason: string;
  data?: JsonObject;
  failedArg?: string;
  failedRule?: string;
}

/**
 * Evaluates requests against one loaded AgentPolicy exactly as spec 001 §4.2–§4.5 orders it.
 * A null policy (none loaded) denies every tool call: the engine fails closed.
 */
export class PolicyEvaluator {
  private readonly rateLimiter: ToolRateLimiter;

  constructor(
    readonly policy: AgentPolicy | null,
    private readonly deps: EvaluatorDeps = {},
  ) {
    this.rateLimiter = deps.rateLimiter ?? new ToolRateLimiter();
  }

  get limiter(): ToolRateLimiter {
    return this.rateLimiter;
  }

  evaluate(input: EvaluationInput): PolicyDecision {
    const method = normalizeName(input.method);
    const tool = input.tool === undefined ? null : normalizeName(input.tool);
    const rawTool = input.tool ?? null;
    const policy = this.policy;
    if (!policy) {
      return this.finish({ kind: 'Forbidden', reason: 'No policy is loaded; every tool call is denied', data: { tool: rawTool ?? '' } }, method, tool, 'enforce');
    }

    const methodViolation = this.checkMethod(policy, method, input.method);
    if (methodViolation) return this.finish(methodViolation, method, tool, policy.mode);
    if (method !== 'tools/call') return this.allow(method, tool);

    if (tool === null || tool === '') {
      return this.finish({ kind: 'Forbidden', reason: 'tools/call without a tool name', data: { tool: rawTool ?? '' } }, method, tool, 'enforce');
    }
    const violation = this.checkTool(policy, tool, rawTool ?? tool, input);
    if (violation === 'ask') return ask(policy.toolRules.get(tool)!, method, tool);
    if (violation) return this.finish(violation, method, tool, policy.mode);
    return this.allow(method, tool);
  }

  /** §4.2: denied methods win; `*` or membership allows; anything else is refused. */
  private checkMethod(policy: AgentPolicy, method: string, rawMethod: string): Violation | null {
    if (policy.deniedMethods.has(method)) return { kind: 'MethodNotAllowed', reason: 'Method is in denied_methods', data: { method: rawMethod } };
    if (policy.allowedMethods.has('*') || policy.allowedMethods.has(method)) return null;
    return { kind: 'MethodNotAllowed', reason: 'Method not in allowed_methods', data: { method: rawMethod } };
  }

  /** §4.3, steps 0–6, in order. Returns 'ask' when the human must decide. */
  private checkTool(policy: AgentPolicy, tool: string, rawTool: string, input: EvaluationInput): Violation | 'ask' | null {
    const args = input.args ?? {};
    const data = { tool: rawTool };

    if (policy.identity?.requireToken) {
      if (!input.token) return { kind: 'TokenRequired', reason: 'Identity token required for this policy', data };
      // Token validation arrives with identity support; until then no token can be proven valid.
      return { kind: 'TokenInvalid', reason: 'Identity tokens cannot be validated by this version', data: { ...data, token_error: 'malformed' } };
    }

    const rule = policy.toolRules.get(tool) ?? null;
    if (rule?.rateLimit && !this.rateLimiter.take(tool, rule.rateLimit)) {
      return { kind: 'RateLimited', reason: `Rate limit ${rule.rateLimit.source} exceeded`, data };
    }

    const hit = this.deps.protectedPaths?.find(args, { tool: rawTool }) ?? null;
    if (hit && hit.reason !== undefined && hit.reason !== 'protected_path') {
      // Arguments too deep or too large to search completely: fail closed.
      return { kind: 'ProtectedPath', reason: `Arguments could not be fully inspected for protected paths: ${hit.detail ?? hit.reason}`, data, failedArg: hit.argumentPath };
    }
    if (hit) {
      return { kind: 'ProtectedPath', reason: `Argument ${hit.argumentPath} touches protected path ${hit.protectedPath}`, data: { ...data, path: hit.value }, failedArg: hit.argumentPath };
    }

    if (rule) {
      if (rule.action === 'block') return { kind: 'Forbidden', reason: 'Tool blocked by policy rule', data };
      const schema = this.checkSchemaHash(rule, tool, data);
      if (schema) return schema;
      if (rule.action === 'ask') return this.checkArguments(policy, rule, args, data) ?? 'ask';
    }

    // A tool named by an allow rule is allowed, as the upstream vectors (auth-020, args-*) expect.
    if (!policy.allowedTools.has(tool) && rule?.action !== 'allow') {
      return { kind: 'Forbidden', reason: 'Tool not in allowed_tools list', data };
    }
    return rule ? this.checkArguments(policy, rule, args, data) : null;
  }

  private checkSchemaHash(rule: ToolRule, tool: string, data: JsonObject): Violation | null {
    if (!rule.schemaHash) return null;
    const definition = this.deps.toolDefinition?.(tool) ?? null;
    if (!definition) return { kind: 'Forbidden', reason: 'Tool has a pinned schema_hash but the server did not announce it', data };
    const actual = toolSchemaHash(definition, rule.schemaHash.algorithm);
    if (actual === rule.schemaHash.source.toLowerCase()) return null;
    return { kind: 'SchemaMismatch', reason: 'Tool schema has changed since policy was created', data: { ...data, expected_hash: rule.schemaHash.source, actual_hash: actual } };
  }

  /** §4.5 plus steps 5 and 6: every constrained argument present and matching, nothing undeclared when strict. */
  private checkArguments(policy: AgentPolicy, rule: ToolRule, args: unknown, data: JsonObject): Violation | null {
    const record = args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : null;
    for (const arg of rule.allowArgs) {
      if (!record || !Object.prototype.hasOwnProperty.call(record, arg.name)) {
        return { kind: 'Forbidden', reason: `Required argument ${arg.name} is missing`, data: { ...data, argument: arg.name }, failedArg: arg.name, failedRule: arg.pattern };
      }
      if (!arg.regex.test(argumentString(record[arg.name]))) {
        return { kind: 'Forbidden', reason: `Argument ${arg.name} does not match ${arg.pattern}`, data: { ...data, argument: arg.name }, failedArg: arg.name, failedRule: arg.pattern };
      }
    }
    const strict = rule.strictArgs ?? policy.strictArgsDefault;
    if (strict) {
      const declared = new Set(rule.allowArgs.map((a) => a.name));
      const extra = record ? Object.keys(record).find((key) => !declared.has(key)) : undefined;
      if (extra !== undefined) return { kind: 'Forbidden', reason: `Argument ${extra} is not declared in allow_args (strict_args)`, data: { ...data, argument: extra }, failedArg: extra };
      if (!record && args !== undefined && args !== null) return { kind: 'Forbidden', reason: 'Arguments must be an object (strict_args)', data };
    }
    return null;
  }

  private allow(method: string, tool: string | null): PolicyDecision {
    return { decision: 'ALLOW', violation: false, monitored: false, errorCode: null, error: null, reason: 'Allowed by policy', failedArg: null, failedRule: null, method, tool };
  }

  /** §4.4: enforce blocks; monitor forwards and records, except for what is always enforced. */
  private finish(v: Violation, method: string, tool: string | null, mode: AgentPolicy['mode']): PolicyDecision {
    const base = { violation: true, reason: v.reason, failedArg: v.failedArg ?? null, failedRule: v.failedRule ?? null, method, tool };
    if (mode === 'monitor' && !ALWAYS_ENFORCED.has(v.kind)) {
      return { ...base, decision: 'ALLOW', monitored: true, errorCode: null, error: null };
    }
    const error = aipError(v.kind, { ...(v.data ?? {}), reason: v.reason });
    return { ...base, decision: v.kind === 'RateLimited' ? 'RATE_LIMITED' : 'BLOCK', monitored: false, errorCode: error.code, error };
  }
}

/** Only a tool rule with `action: ask` asks (`checkTool`); its `allow_args` all matched on the way. */
function ask(rule: ToolRule, method: string, tool: string): PolicyDecision {
  const askedBy: AskingRule = { path: `spec.tool_rules[${rule.index}]`, tool: rule.rawTool, args: rule.allowArgs.map(({ name, pattern }) => ({ name, pattern })) };
  return { decision: 'ASK', violation: false, monitored: false, errorCode: null, error: null, reason: 'Tool requires interactive approval', failedArg: null, failedRule: null, method, tool, askedBy };
}

export type ApprovalOutcome = 'approve' | 'deny' | 'timeout' | 'unreachable';

/**
 * Turns the human's answer to an ASK into the final decision. Anything but an explicit
 * approval denies: a timeout with -32005 (not -32004), an unreachable approver likewise,
 * with a reason saying so (DESIGN invariant 4).
 */
export function resolveAsk(decision: PolicyDecision, outcome: ApprovalOutcome): PolicyDecision {
  if (decision.decision !== 'ASK') return decision;
  if (outcome === 'approve') return { ...decision, decision: 'ALLOW', reason: 'Approved by the user' };
  const tool = decision.tool ?? '';
  const [kind, reason]: [AipErrorKind, string] =
    outcome === 'deny'
      ? ['UserDenied', 'The user denied the request']
      : outcome === 'timeout'
        ? ['UserTimeout', 'The approval prompt timed out']
        : ['UserTimeout', 'The control center is not reachable to ask for approval'];
  const error = aipError(kind, { tool, reason });
  return { ...decision, decision: 'BLOCK', violation: true, errorCode: error.code, error, reason };
}
