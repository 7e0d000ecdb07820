import type { AgentPolicy } from '../policy/types.js';

/**
 * What a policy says of a tool before any call is made: `block` when every `tools/call` of it
 * is refused whatever its arguments, `ask` when every call its argument rules let through waits
 * for the person, `allow` otherwise (allowed, or decided by its arguments, its rate or the
 * paths they name). It follows the evaluator's order (evaluator.ts, `evaluate` and `checkTool`,
 * spec 001 §4.2–§4.4) for the parts that do not depend on the request:
 *
 * - no policy, or `tools/call` refused by allowed_methods/denied_methods: block (enforce mode;
 *   monitor mode forwards such calls before looking at any tool rule, so they are allowed);
 * - a rule with action block, or a tool neither in allowed_tools nor named by an allow rule:
 *   block (enforce mode; monitor mode forwards those calls, so they are allowed);
 * - a rule with action ask: ask, in either mode (the evaluator asks in monitor mode too).
 *
 * Identity tokens, rate limits, protected paths, schema hashes and argument patterns depend on
 * the request or the announced definition, so they never make a tool `block` here: a tool
 * whose rule constrains its arguments stays on offer, and a policy that requires identity
 * tokens refuses the request, not the tool. `tool` is the §4.1-normalised name.
 */
export type ToolStanding = 'allow' | 'ask' | 'block';

export function toolStanding(policy: AgentPolicy | null, tool: string): ToolStanding {
  if (!policy) return 'block';
  const enforced = policy.mode === 'enforce';
  const call = 'tools/call';
  const methodRefused = policy.deniedMethods.has(call) || !(policy.allowedMethods.has('*') || policy.allowedMethods.has(call));
  // Monitor mode forwards a refused method before any tool rule is looked at: nothing asks.
  if (methodRefused) return enforced ? 'block' : 'allow';
  const rule = policy.toolRules.get(tool);
  if (rule?.action === 'block') return enforced ? 'block' : 'allow';
  if (rule?.action === 'ask') return 'ask';
  if (!policy.allowedTools.has(tool) && rule?.action !== 'allow') return enforced ? 'block' : 'allow';
  return 'allow';
}
