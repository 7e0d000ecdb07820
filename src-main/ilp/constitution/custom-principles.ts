import RE2 from 're2';
import { wordsMatcher } from './principles.js';

/*
 * Principles the owner adds to the six universal ones (spec 004 §9.3 item 1), from HOME/ilp.yaml
 * (docs/ilp.md "Configuration"). Each is a check the enforcer can make on any answer without a
 * model: words or a pattern the answer may not hold, or sources it must cite, optionally only for
 * agents of some domains. They add to the constitution, never relax it: a custom principle cannot
 * take a universal principle's name, and its violations are refused with 403 like any other
 * answer-level violation (§3.3).
 */

/** The six universal principles of §4, whose names a custom principle may not take. */
export const UNIVERSAL_PRINCIPLES = ['epistemic_honesty', 'recursion_budget', 'loop_prevention', 'domain_boundary', 'reasoning_transparency', 'safety'] as const;

export interface CustomPrincipleSpec {
  id: string;
  description: string;
  severity: 'warning' | 'error' | 'fatal';
  domains?: readonly string[] | undefined;
  forbidden_words?: readonly string[] | undefined;
  forbidden_pattern?: string | undefined;
  require_sources?: boolean | undefined;
  suggested_action?: string | undefined;
}

/** A principle ready to be checked: its matchers compiled once, when the configuration is read. */
interface CustomPrinciple {
  readonly id: string;
  readonly severity: 'warning' | 'error' | 'fatal';
  readonly description: string;
  readonly suggestedAction: string;
  readonly domains: ReadonlySet<string> | null;
  readonly words: RE2 | null;
  readonly pattern: RE2 | null;
  readonly requireSources: boolean;
}

/**
 * The owner's principles compiled together: each principle's matchers, and one matcher for every
 * word and pattern of them all, so an answer that breaks none (nearly every answer) is read once,
 * not once per principle.
 */
export interface CompiledPrinciples {
  readonly list: readonly CustomPrinciple[];
  /** Matches where any principle's words or pattern might; null when no principle has any. */
  readonly any: RE2 | null;
}

export interface CustomFinding {
  principle: string;
  severity: 'warning' | 'error' | 'fatal';
  message: string;
  suggested_action: string;
}

export function compilePrinciples(specs: readonly CustomPrincipleSpec[]): CompiledPrinciples {
  const words = specs.flatMap((spec) => spec.forbidden_words ?? []);
  const patterns = specs.flatMap((spec) => (spec.forbidden_pattern ? [spec.forbidden_pattern] : []));
  const parts = [...(words.length > 0 ? [wordsMatcher(words).source] : []), ...patterns.map((pattern) => `(?:${pattern})`)];
  return { list: specs.map(compileOne), any: parts.length === 0 ? null : new RE2(parts.join('|'), 'iu') };
}

function compileOne(spec: CustomPrincipleSpec): CustomPrinciple {
  return {
    id: spec.id,
    severity: spec.severity,
    description: spec.description,
    suggestedAction: spec.suggested_action ?? `Answer within the principle "${spec.id}": ${spec.description}`,
    domains: spec.domains ? new Set(spec.domains) : null,
    words: spec.forbidden_words && spec.forbidden_words.length > 0 ? wordsMatcher(spec.forbidden_words) : null,
    pattern: spec.forbidden_pattern ? new RE2(spec.forbidden_pattern, 'iu') : null,
    requireSources: spec.require_sources === true,
  };
}

/** Every custom principle the answer of an agent of `domain` breaks; the answer and its reasoning are read. */
export function checkCustomPrinciples(principles: CompiledPrinciples, domain: string, answer: { answer: string; reasoning?: string | undefined; sources?: readonly string[] | undefined }): CustomFinding[] {
  if (principles.list.length === 0) return [];
  const out: CustomFinding[] = [];
  const said = `${answer.answer}\n${answer.reasoning ?? ''}`;
  // One pass over the answer decides whether any principle's words or pattern need reading at all.
  const anyMatch = principles.any?.test(said) ?? false;
  for (const principle of principles.list) {
    if (principle.domains !== null && !principle.domains.has(domain)) continue;
    const finding = (message: string) => out.push({ principle: principle.id, severity: principle.severity, message, suggested_action: principle.suggestedAction });
    const word = anyMatch ? principle.words?.exec(said)?.[1] : undefined;
    if (word !== undefined) {
      finding(`${principle.description} (the answer says "${word.slice(0, 80)}")`);
      continue;
    }
    const matched = anyMatch ? principle.pattern?.exec(said)?.[0] : undefined;
    if (matched !== undefined) {
      finding(`${principle.description} (the answer says "${matched.slice(0, 80)}")`);
      continue;
    }
    if (principle.requireSources && (answer.sources ?? []).length === 0) finding(`${principle.description} (the answer cites no source)`);
  }
  return out;
}
