import { issuesFromZod, type ValidationIssue } from './issues.js';
import { ApTrace } from './trace.js';

/*
 * An AP-Trace as §5 requires it: the JSON Schema (trace.ts), then what the schema cannot state —
 * the selected option is one of the alternatives, and option ids are unique (§5.5).
 */

export interface TraceValidation {
  ok: boolean;
  trace: ApTrace | null;
  errors: ValidationIssue[];
  warnings: ValidationIssue[];
}

export function validateApTrace(input: unknown): TraceValidation {
  const parsed = ApTrace.safeParse(input);
  if (!parsed.success) return { ok: false, trace: null, errors: issuesFromZod(parsed.error, input), warnings: [] };
  const trace = parsed.data;
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  for (const key of ['trace_id', 'agent_id', 'card_id'] as const) {
    if (trace[key].trim() === '') errors.push({ path: key, message: 'must not be empty', expected: 'a non-empty identifier' });
  }
  const ids = new Set<string>();
  trace.decision.alternatives_considered.forEach((alternative, index) => {
    if (ids.has(alternative.option_id)) {
      errors.push({ path: `decision.alternatives_considered[${index}].option_id`, message: `"${alternative.option_id}" is used by an earlier alternative`, expected: 'an option id unique within the trace' });
    }
    ids.add(alternative.option_id);
  });
  if (!ids.has(trace.decision.selected)) {
    errors.push({ path: 'decision.selected', message: `"${trace.decision.selected}" is not the option_id of any alternative considered`, expected: `one of ${[...ids].map((id) => JSON.stringify(id)).join(', ')}` });
  }
  const escalation = trace.escalation;
  if (escalation?.required && !escalation.evaluated) warnings.push({ path: 'escalation.evaluated', message: 'escalation is required but marked as not evaluated' });
  if (escalation && !escalation.required && escalation.escalation_status) warnings.push({ path: 'escalation.escalation_status', message: 'a status is recorded for an escalation that was not required' });
  return { ok: errors.length === 0, trace, errors, warnings };
}
