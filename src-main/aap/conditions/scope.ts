import type { ApTrace } from '../../../src-shared/aap/trace.js';
import type { FieldResolver } from './evaluate.js';

/*
 * Which trace field a condition's name means. §7.3 evaluates conditions against `trace.context`
 * while Appendix B.1 passes the whole trace; triggers in the examples name action parameters
 * (`amount > 100` fires on `action.parameters.amount`). So a name is looked up, first match wins:
 *
 *   1. a path from the trace's root when it starts with one of its members (`action.name`,
 *      `decision.confidence`, `escalation.required`, `context.session_id`);
 *   2. the trace's own facts under short names: `action_type`, `action_name`, `action_category`,
 *      `confidence`, `values_applied` — before anything the agent's parameters could shadow;
 *   3. `action.parameters`, then `context.metadata`, `context.environment` and `context`.
 *
 * Only own properties are followed, so `constructor` or `__proto__` never reach a prototype.
 */

const ROOT_MEMBERS = new Set(['trace_id', 'agent_id', 'card_id', 'timestamp', 'action', 'decision', 'escalation', 'context']);

function follow(start: unknown, path: readonly string[], from: number): unknown {
  let node = start;
  for (let i = from; i < path.length; i += 1) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, path[i]!)) return undefined;
    node = (node as Record<string, unknown>)[path[i]!];
  }
  return node;
}

/** The trace's own facts under short names; `undefined` for any other name. */
function derived(trace: ApTrace, name: string): unknown {
  switch (name) {
    case 'action_type':
      return trace.action.type;
    case 'action_name':
      return trace.action.name;
    case 'action_category':
      return trace.action.category;
    case 'confidence':
      return trace.decision.confidence ?? null;
    case 'values_applied':
      return trace.decision.values_applied;
    default:
      return undefined;
  }
}

const DERIVED = new Set(['action_type', 'action_name', 'action_category', 'confidence', 'values_applied']);

function owning(source: unknown, name: string): boolean {
  return source !== null && typeof source === 'object' && Object.hasOwn(source, name);
}

export function traceScope(trace: ApTrace): FieldResolver {
  return (path) => {
    const head = path[0]!;
    if (ROOT_MEMBERS.has(head)) return follow(trace, path, 0);
    if (DERIVED.has(head)) return follow(derived(trace, head), path, 1);
    const context = trace.context;
    for (const source of [trace.action.parameters, context?.metadata, context?.environment, context]) {
      if (owning(source, head)) return follow(source, path, 0);
    }
    return undefined;
  };
}
