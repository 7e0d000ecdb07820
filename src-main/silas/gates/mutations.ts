import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import { isAllowedMutation, type AllowedMutation, type GateContext } from '../../../src-shared/silas/gates.js';

/**
 * The `ALLOWED_MUTATIONS` filter and merge of spec 002 §3.4 / §5.4. Pure: the runner records
 * what this returns. The filter runs on every `modified_context`, whichever provider produced it.
 */

type RejectionReason = 'not_allowed' | 'wrong_type' | 'unsafe_key' | 'quality_lane';

interface RejectedMutation {
  key: string;
  reason: RejectionReason;
}

interface AcceptedMutation {
  key: AllowedMutation;
  original: JsonValue | null;
  modified: JsonValue;
}

export interface MutationOutcome {
  context: GateContext;
  accepted: AcceptedMutation[];
  rejected: RejectedMutation[];
}

// Keys that would shadow or reach the prototype chain of a plain object in a consumer that
// later copies tool_args with assignment instead of spreading.
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function isPlainObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

/** A deep-frozen copy: providers see the context but cannot edit it behind the allowlist's back. */
export function frozenContext(context: GateContext): GateContext {
  return deepFreeze(structuredClone(context));
}

/**
 * Filters `modified` through the allowlist and merges what survives into `context`, left to right:
 * `response` and `message` replace the text, `tool_args` is shallow-merged into the tool arguments.
 * Returns a new frozen context; `context` itself is never changed.
 */
export function applyMutations(context: GateContext, modified: JsonObject): MutationOutcome {
  const accepted: AcceptedMutation[] = [];
  const rejected: RejectedMutation[] = [];
  const next: JsonObject = { ...context };
  for (const key of Object.keys(modified)) {
    const value = modified[key]!;
    if (!isAllowedMutation(key)) {
      rejected.push({ key, reason: 'not_allowed' });
      continue;
    }
    if (key === 'tool_args') {
      if (!isPlainObject(value)) {
        rejected.push({ key, reason: 'wrong_type' });
        continue;
      }
      const unsafe = Object.keys(value).find((k) => UNSAFE_KEYS.has(k));
      if (unsafe !== undefined) {
        rejected.push({ key: `tool_args.${unsafe}`, reason: 'unsafe_key' });
        continue;
      }
      const before = isPlainObject(context.tool_args) ? context.tool_args : {};
      const changed: JsonObject = {};
      const was: JsonObject = {};
      for (const argKey of Object.keys(value)) {
        changed[argKey] = value[argKey]!;
        was[argKey] = Object.hasOwn(before, argKey) ? before[argKey]! : null;
      }
      next.tool_args = { ...before, ...changed };
      accepted.push({ key, original: was, modified: changed });
      continue;
    }
    if (typeof value !== 'string') {
      rejected.push({ key, reason: 'wrong_type' });
      continue;
    }
    accepted.push({ key, original: Object.hasOwn(context, key) ? context[key]! : null, modified: value });
    next[key] = value;
  }
  return { context: accepted.length > 0 ? frozenContext(next) : context, accepted, rejected };
}
