import RE2 from 're2';
import { actionable } from '../../aip/detect/detectors.js';
import { InjectionDetector } from '../../aip/detect/injection.js';
import { invisibleRuns } from '../../aip/detect/tool-definition-chars.js';

/*
 * Instructions planted in a slice (spec 004 §10.3, "prompt injection via query or context"). A
 * slice is read into a specialist's context as knowledge, so an order hidden in it reaches the
 * model like an order in a tool's output: it is scanned with the same injection detector the proxy
 * runs on what servers return (docs/threat-detection.md), plus the invisible-character rule of
 * the tool-definition scan, plus a few rules of ILP's own: orders to change a constitutional limit
 * (§6.1's fields), to skip the enforcer, or to forge the header that carries the limits. The ILP
 * rules ride in the detector as extra patterns, so they are matched in its folded and decoded views
 * too (`max_dеpth` with a Cyrillic е, base64).
 */

/** What was found in one string of a slice: the path to it, and where in the string. */
export interface SliceFinding {
  /** Keys and indices from the document's root (`['examples', 1]`). */
  path: readonly (string | number)[];
  /** The finding is in the mapping key at `path`, not in its value. */
  inKey: boolean;
  start: number;
  end: number;
  description: string;
  excerpt: string;
}

const VERB_LIMIT = String.raw`(?:raise|increase|set|change|bump|lift|double|triple|extend|override|remove|disable|ignore|exceed|modify|update|boost|unset|reset|max\s+out|turn\s+off)`;
const LIMIT = String.raw`(?:max_depth|max_budget_usd|max_budget|max_invocations|max_cost_usd|max_same_agent_consecutive|confidence_threshold|budget_usd|enforce_epistemic_honesty|require_reasoning_trace|detect_loops|max(?:imum)?[\s_]+(?:depth|budget|invocations|cost)|(?:recursion|depth|cost|invocation|call)\s+(?:budget|limits?|caps?)|recursion\s+depth)`;
const VERB_SKIP = String.raw`(?:ignore|disregard|skip|bypass|disable|circumvent|evade|avoid|override|overrule|suspend|deactivate|sidestep|turn\s+off|switch\s+off|get\s+around|work\s+around)`;
const ENFORCER = String.raw`(?:constitutional\s+)?(?:enforcer|constitution|constitutional\s+(?:checks?|principles?|limits?|rules?|header|validation|enforcement)|loop\s+detection|epistemic\s+honesty)`;
const FORGE = String.raw`(?:set|add|send|put|include|insert|forge|write|rewrite|replace|change|modify|edit|override|use|attach|strip|remove|drop|omit|spoof)`;

/**
 * "Budget" alone is left out: it is the finance slices' own vocabulary ("raise the budget for
 * food"). The header's field names and "recursion budget" are not.
 */
const ILP_RULES = [
  {
    name: 'ilp_constitutional_limit',
    description: 'Text tells the agent to change a constitutional limit (spec 004 §6.1), which only the request\'s Constitutional-Header sets',
    source: String.raw`\b${VERB_LIMIT}\s+(?:(?:the|your|its|all|a|any|this|that)\s+){0,2}${LIMIT}\b`,
  },
  {
    name: 'ilp_assigned_limit',
    description: 'Text assigns a constitutional limit (spec 004 §6.1), which only the request\'s Constitutional-Header sets',
    source: String.raw`\b${LIMIT}\s*:?=\s*[0-9]`,
  },
  {
    name: 'ilp_skip_enforcer',
    description: 'Text tells the agent to skip or bypass the constitutional enforcer (spec 004 §4.1)',
    source: String.raw`\b${VERB_SKIP}\s+(?:(?:the|all|any|your|its|every|this|these|those|of)\s+){0,3}${ENFORCER}\b`,
  },
  {
    name: 'ilp_forged_header',
    description: 'Text tells the agent to set or forge a constitutional header (spec 004 §6.1, §6.5)',
    source: String.raw`\b${FORGE}\s+(?:(?:the|a|an|your|this|that|new|following|its|own|custom)\s+){0,3}constitutional[-_ ]?(?:header|status)\b|(?:^|\n)[ \t]*(?:constitutional-(?:header|status)|attention-payload|reasoning-trace)[ \t]*:`,
  },
  {
    name: 'ilp_new_role',
    description: 'Text tells the agent it is now someone else or free of its limits',
    source: String.raw`\byou\s+are\s+now\s+(?:an?|the|in|no\s+longer|free|allowed|permitted|exempt|unrestricted|authori[sz]ed|able)\b`,
  },
];
const BY_NAME = new Map(ILP_RULES.map((rule) => [rule.name, rule]));
/** An ILP rule's match right after a negation is a rule stated, not an order ("agents never raise max_depth"). */
const NEGATED = new RE2(String.raw`(?:\bnot|\bnever|n't|\bcannot|\bwithout|\bno\s+longer|\bmust\s+not)\s+$`, 'iu');
const PATTERN_NAME = /pattern "([^"]+)"/;
const MAX_PER_STRING = 8;

let detector: InjectionDetector | null = null;

/** Built on first use: compiling the detector's sets costs milliseconds, and most processes never read a slice. */
function injectionDetector(): InjectionDetector {
  detector ??= new InjectionDetector(
    'results',
    ILP_RULES.map((rule) => ({ name: rule.name, pattern: rule.source, regex: new RE2(rule.source, 'iu'), appliesTo: 'all' as const })),
  );
  return detector;
}

/**
 * What the scan finds in one text. Also the runtime's steering screen (ilp/composition/steering.ts):
 * an agent's answer is read into the next prompt like a slice, and must not steer either.
 */
export function scanAgentText(text: string): Omit<SliceFinding, 'path' | 'inKey'>[] {
  const out: Omit<SliceFinding, 'path' | 'inKey'>[] = [];
  for (const finding of actionable(injectionDetector().scanText(text))) {
    let description = finding.description;
    if (finding.rule === 'policy_pattern') {
      const rule = BY_NAME.get(PATTERN_NAME.exec(finding.description)?.[1] ?? '');
      if (!rule) continue;
      if (NEGATED.test(text.slice(Math.max(0, finding.start - 40), finding.start))) continue;
      description = rule.description;
    }
    out.push({ start: finding.start, end: finding.end, description, excerpt: finding.excerpt });
  }
  for (const run of invisibleRuns(text)) out.push({ start: run.start, end: run.end, description: `Text hides ${run.description.charAt(0).toLowerCase()}${run.description.slice(1)}`, excerpt: text.slice(run.start, run.end) });
  return out.slice(0, MAX_PER_STRING);
}

/** Findings in every string of a parsed slice, its mapping keys included (formula names, connects_to domains). */
export function scanSlice(value: unknown): SliceFinding[] {
  const findings: SliceFinding[] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (typeof node === 'string') {
      for (const finding of scanAgentText(node)) findings.push({ path, inKey: false, ...finding });
    } else if (Array.isArray(node)) {
      node.forEach((child, index) => walk(child, [...path, index]));
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
        for (const finding of scanAgentText(key)) findings.push({ path: [...path, key], inKey: true, ...finding });
        walk(child, [...path, key]);
      }
    }
  };
  walk(value, []);
  return findings;
}
