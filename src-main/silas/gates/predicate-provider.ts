import RE2 from 're2';
import { z } from 'zod';
import type { JsonValue } from '../../../src-shared/schemas/json.js';
import type { Gate, GateContext } from '../../../src-shared/silas/gates.js';
import { checkFile } from './paths.js';
import { displayValue, GateConfigError, lookupPath, parseProviderConfig, subjectPath, type GateCheckProvider, type GateVerdict, type PreparedGateCheck } from './provider.js';

/**
 * The `predicate` provider (spec 002 §5.5.2): numeric ranges, string sets, RE2 regexes, file
 * checks and always-approve. Deterministic, no I/O except `file_valid`'s stat.
 */

const MAX_REGEX_SOURCE = 2000;
const MAX_REGEX_INPUT = 1_000_000;

/** A check of one already-extracted value; shared with the script provider's `extract` path. */
export type ValuePredicate = (value: JsonValue | undefined) => GateVerdict;

const Finite = z.number().refine(Number.isFinite, 'must be a finite number');
const Empty = z.object({}).strict();
const NumericConfig = z
  .object({
    /** Explicit normalisation (§5.5.2 "optional mutation behaviour"): clamp the tool argument into this range and continue with it. */
    clamp: z.object({ min: Finite, max: Finite }).strict().refine((r) => r.min <= r.max, 'clamp.min must not be greater than clamp.max').optional(),
  })
  .strict();
const RegexConfig = z.object({ pattern: z.string().min(1).max(MAX_REGEX_SOURCE), ignore_case: z.boolean().default(false) }).strict();
const FileConfig = z.object({ max_size_bytes: z.number().int().positive().optional() }).strict();

/** Python `float()` on the extracted value, minus `nan`/`inf` (which would slip past every range). */
export function parseNumber(value: JsonValue | undefined): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Compiles an RE2 regex or throws a GateConfigError that says why (RE2 has no backreferences or lookaround). */
export function compileRegex(gateName: string, field: string, source: string, ignoreCase = false): RE2 {
  if (source.length > MAX_REGEX_SOURCE) throw new GateConfigError(gateName, field, `pattern longer than ${MAX_REGEX_SOURCE} characters`);
  try {
    return new RE2(source, ignoreCase ? 'iu' : 'u');
  } catch (error) {
    throw new GateConfigError(gateName, field, `invalid or unsupported RE2 pattern (${(error as Error).message}); RE2 has no backreferences or lookaround, and repetition counts stop at 1000`);
  }
}

function asText(value: JsonValue | undefined): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

const inRange = (n: number, r: { min: number; max: number } | null): boolean => r !== null && n >= r.min && n <= r.max;

function numericPredicate(gate: Gate): ValuePredicate {
  const config = parseProviderConfig(gate, NumericConfig);
  if (gate.auto_approve === null && gate.require_approval === null) {
    throw new GateConfigError(gate.name, 'auto_approve', 'a numeric_range gate needs auto_approve and/or require_approval (every other value is blocked)');
  }
  let clampArg: string | null = null;
  if (config.clamp !== undefined) {
    const [head, arg, ...rest] = (gate.extract ?? '').split('.');
    if (head !== 'tool_args' || arg === undefined || rest.length > 0) {
      throw new GateConfigError(gate.name, 'config.clamp', 'clamping rewrites one tool argument, so extract must be "tool_args.<name>"');
    }
    clampArg = arg;
  }
  return (raw) => {
    const parsed = parseNumber(raw);
    if (parsed === null) return { action: 'block', reason: 'Value is not numeric', value: displayValue(raw) };
    let n = parsed;
    if (gate.block !== null && (n < gate.block.outside[0] || n > gate.block.outside[1])) {
      return { action: 'block', reason: `Value ${n} outside hard limits [${gate.block.outside[0]}, ${gate.block.outside[1]}]`, value: n };
    }
    let modified: GateVerdict['modified_context'] = null;
    if (config.clamp !== undefined && clampArg !== null && (n < config.clamp.min || n > config.clamp.max)) {
      n = Math.min(config.clamp.max, Math.max(config.clamp.min, n));
      modified = { tool_args: { [clampArg]: n } };
    }
    const clamped = modified === null ? '' : ` (clamped from ${parsed})`;
    if (inRange(n, gate.auto_approve)) return { action: 'continue', reason: `Value ${n}${clamped} within auto-approve range`, value: n, modified_context: modified };
    if (inRange(n, gate.require_approval)) return { action: 'require_approval', reason: `Value ${n}${clamped} requires approval`, value: n, modified_context: modified };
    return { action: 'block', reason: `Value ${n}${clamped} matches no permitted range`, value: n };
  };
}

function stringPredicate(gate: Gate): ValuePredicate {
  parseProviderConfig(gate, Empty);
  if (gate.allowed_values === null && gate.approval_values === null) {
    throw new GateConfigError(gate.name, 'allowed_values', 'a string_match gate needs allowed_values and/or approval_values (every other value is blocked)');
  }
  const allowed = new Set(gate.allowed_values ?? []);
  const approval = new Set(gate.approval_values ?? []);
  return (raw) => {
    const text = asText(raw);
    if (text === null) return { action: 'block', reason: 'Value is not a string', value: displayValue(raw) };
    if (allowed.has(text)) return { action: 'continue', reason: 'Value is allowed', value: text };
    if (approval.has(text)) return { action: 'require_approval', reason: 'Value requires approval', value: text };
    return { action: 'block', reason: 'Value is not in the allowed or approval values', value: text };
  };
}

function regexPredicate(gate: Gate): ValuePredicate {
  const config = parseProviderConfig(gate, RegexConfig);
  const regex = compileRegex(gate.name, 'config.pattern', config.pattern, config.ignore_case);
  return (raw) => {
    const text = asText(raw);
    if (text === null) return { action: 'block', reason: 'Value is not a string', value: displayValue(raw) };
    if (text.length > MAX_REGEX_INPUT) return { action: 'block', reason: `Value longer than ${MAX_REGEX_INPUT} characters`, value: null };
    return regex.test(text)
      ? { action: 'continue', reason: 'Value matches the pattern', value: displayValue(text) }
      : { action: 'block', reason: 'Value does not match the pattern', value: displayValue(text) };
  };
}

/** The value predicates a script gate's `extract` can delegate to. */
export function compileValuePredicate(gate: Gate): ValuePredicate {
  switch (gate.type) {
    case 'numeric_range':
      return numericPredicate(gate);
    case 'string_match':
      return stringPredicate(gate);
    case 'regex':
      return regexPredicate(gate);
    default:
      throw new GateConfigError(gate.name, 'type', `extracted values are checked with numeric_range, string_match or regex, not ${gate.type}`);
  }
}

export interface PredicateProviderOptions {
  /** Directories `file_valid` may look in (the sandbox work directory, project directories). */
  fileRoots?: readonly string[];
}

export class PredicateGateProvider implements GateCheckProvider {
  readonly name = 'predicate' as const;
  private readonly fileRoots: readonly string[];

  constructor(options: PredicateProviderOptions = {}) {
    this.fileRoots = Object.freeze([...(options.fileRoots ?? [])]);
  }

  prepare(gate: Gate): PreparedGateCheck {
    const path = subjectPath(gate);
    const read = (context: GateContext) => (path === null ? undefined : lookupPath(context, path));
    switch (gate.type) {
      case 'approval_always': {
        parseProviderConfig(gate, Empty);
        return (context) => ({ action: 'require_approval', reason: 'This gate always requires human approval', value: displayValue(read(context)) });
      }
      case 'file_valid':
        return this.prepareFile(gate, path);
      case 'custom_check':
        throw new GateConfigError(gate.name, 'provider', 'custom_check gates run a script or a registered check; use provider: script or custom');
      default: {
        const predicate = compileValuePredicate(gate);
        return (context) => {
          const value = read(context);
          if (value === undefined) return { action: 'block', reason: `Value not found in context: ${path ?? '(no extract)'}` };
          return predicate(value);
        };
      }
    }
  }

  private prepareFile(gate: Gate, path: string | null): PreparedGateCheck {
    const config = parseProviderConfig(gate, FileConfig);
    if (gate.extract === null || path === null) throw new GateConfigError(gate.name, 'extract', 'a file_valid gate names the context value holding the path in extract');
    if (this.fileRoots.length === 0) throw new GateConfigError(gate.name, 'type', 'file_valid needs permitted directories, and none are configured for this run');
    const roots = this.fileRoots;
    return async (context) => {
      const raw = lookupPath(context, path);
      if (typeof raw !== 'string') return { action: 'block', reason: `Value not found in context: ${path}` };
      const file = await checkFile(raw, roots);
      if (!file.ok) return { action: 'block', reason: file.reason, value: displayValue(raw) };
      if (config.max_size_bytes !== undefined && file.size > config.max_size_bytes) {
        return { action: 'block', reason: `File is ${file.size} bytes, more than max_size_bytes ${config.max_size_bytes}`, value: displayValue(raw) };
      }
      return { action: 'continue', reason: 'File exists and meets the criteria', value: displayValue(raw) };
    };
  }
}
