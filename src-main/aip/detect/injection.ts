import RE2 from 're2';
import type { RE2Set } from '../dlp/patterns.js';
import type { InjectionPattern } from '../policy/types.js';
import { excerptOf, type DetectorFinding } from './finding.js';
import { BUILT_IN_RULES, type RuleSpan } from './injection-rules.js';
import { mayBeDisguised, textViews, type TextView } from './normalize.js';
import { analyzeShellCommand } from './shell.js';

/*
 * The injection detector (docs/threat-detection.md, "Injection"): instructions planted in what a
 * server returns (results, resources, prompts, sampling and elicitation) or in what an agent sends.
 * Every string of the value is matched in its views (normalize.ts): the text as written and, when
 * it could be disguised, folded (NFKC, homoglyphs, invisible characters) and decoded (URL, base64,
 * hex). One RE2.Set pass per view says which rules may apply; only those are confirmed
 * (injection-rules.ts). A match that exists only inside a decoded run is reported as
 * `encoded_payload`, so is a decoded run that reads as a dangerous shell command (`curl … | bash`
 * in base64). Offsets are mapped back to the original string. Bounded by `InjectionLimits`; a
 * value past them is scanned up to them and reported with a `too_large` finding.
 */

export type InjectionDirection = 'results' | 'arguments';

export interface InjectionLimits {
  /** UTF-16 units of string content scanned per value. */
  maxText: number;
  /** Nesting depth of arrays and objects walked. */
  maxDepth: number;
}

const DEFAULT_LIMITS: InjectionLimits = { maxText: 1024 * 1024, maxDepth: 64 };
/** Strings shorter than this hold no instruction worth the pass. */
const MIN_TEXT = 8;
const MAX_FINDINGS = 64;
const SHELL_RULES = new Set(['remote_code', 'destructive_command', 'file_exfiltration']);

interface CompiledRule {
  id: string;
  description: string;
  confirm(text: string): RuleSpan[];
}

function policyRule(pattern: InjectionPattern): CompiledRule {
  const global = new RE2(pattern.regex.source, 'giu');
  return {
    id: 'policy_pattern',
    description: `Text matches the policy's injection pattern "${pattern.name}"`,
    confirm(text) {
      const out: RuleSpan[] = [];
      global.lastIndex = 0;
      for (let m = global.exec(text); m !== null && out.length < 16; m = global.exec(text)) {
        out.push({ start: m.index, end: m.index + m[0].length, why: `pattern "${pattern.name}"` });
        if (m[0].length === 0) global.lastIndex += 1;
      }
      return out;
    },
  };
}

/** The changed stretch of a decoded view: its common prefix and suffix with the original removed. */
function changedRegion(original: string, view: string): { start: number; end: number } {
  let start = 0;
  const max = Math.min(original.length, view.length);
  while (start < max && original.charCodeAt(start) === view.charCodeAt(start)) start += 1;
  let tail = 0;
  while (tail < max - start && original.charCodeAt(original.length - 1 - tail) === view.charCodeAt(view.length - 1 - tail)) tail += 1;
  return { start, end: view.length - tail };
}

export class InjectionDetector {
  private readonly rules: CompiledRule[] = [];
  /** Set pattern index → rule index. */
  private readonly owner: number[] = [];
  private readonly set: RE2Set;
  private readonly limits: InjectionLimits;

  constructor(
    readonly direction: InjectionDirection,
    extra: readonly InjectionPattern[] = [],
    limits: Partial<InjectionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    const sources: string[] = [];
    const add = (rule: CompiledRule, prefilter: readonly string[]): void => {
      const index = this.rules.push(rule) - 1;
      for (const source of prefilter) {
        sources.push(source);
        this.owner.push(index);
      }
    };
    for (const rule of BUILT_IN_RULES) add(rule, rule.prefilter);
    for (const pattern of extra) if (pattern.appliesTo === 'all' || pattern.appliesTo === direction) add(policyRule(pattern), [pattern.regex.source]);
    this.set = new RE2.Set(sources, 'iu');
  }

  /** Findings in every string of a JSON value (keys not scanned), with JSON paths like `content[0].text`; never throws. */
  scanValue(value: unknown): DetectorFinding[] {
    const findings: DetectorFinding[] = [];
    let budget = this.limits.maxText;
    let truncated: { path: string; text: string } | null = null;
    const walk = (node: unknown, path: string, depth: number): void => {
      if (findings.length >= MAX_FINDINGS) return;
      if (typeof node === 'string') {
        if (budget <= 0) {
          truncated ??= { path, text: node };
          return;
        }
        if (node.length > budget) truncated ??= { path, text: node };
        const text = node.length > budget ? node.slice(0, budget) : node;
        budget -= text.length;
        this.scanString(text, node, path, findings);
        return;
      }
      if (node === null || typeof node !== 'object') return;
      if (depth >= this.limits.maxDepth) {
        truncated ??= { path, text: '' };
        return;
      }
      if (Array.isArray(node)) node.forEach((child, i) => walk(child, `${path}[${i}]`, depth + 1));
      else for (const [key, child] of Object.entries(node as Record<string, unknown>)) walk(child, path === '' ? key : `${path}.${key}`, depth + 1);
    };
    try {
      walk(value, '', 0);
    } catch {
      // A hostile shape (a getter that throws) ends the walk; it is reported like a cut-off value.
      truncated ??= { path: '', text: '' };
    }
    if (truncated !== null) {
      const { path, text } = truncated as { path: string; text: string };
      findings.push({ detector: 'injection', rule: 'too_large', description: `The content is larger than the injection scan covers (${this.limits.maxText} characters, depth ${this.limits.maxDepth}); the rest was not scanned.`, path, start: 0, end: 0, excerpt: excerptOf(text, 0, 80) });
    }
    return findings;
  }

  /** Findings in one string, path ''. */
  scanText(text: string): DetectorFinding[] {
    return this.scanValue(text);
  }

  private scanString(text: string, original: string, path: string, findings: DetectorFinding[]): void {
    if (text.length < MIN_TEXT) return;
    const views: TextView[] = mayBeDisguised(text) ? textViews(text).views : [{ text, layers: [], toOriginal: (start, end) => ({ start, end }) }];
    const seen = new Set<string>();
    const push = (rule: string, description: string, start: number, end: number): void => {
      const key = `${rule}:${start}:${end}`;
      if (seen.has(key) || findings.length >= MAX_FINDINGS) return;
      seen.add(key);
      findings.push({ detector: 'injection', rule, description, path, start, end, excerpt: excerptOf(original, start, end) });
    };
    for (const view of views) {
      const decoded = view.layers.filter((layer) => layer !== 'fold');
      const hits = new Set(this.set.match(view.text).map((i) => this.owner[i]!));
      for (const index of hits) {
        const rule = this.rules[index]!;
        for (const span of rule.confirm(view.text)) {
          const mapped = view.toOriginal(span.start, span.end);
          const encoded = decoded.length > 0 && view.text.slice(span.start, span.end) !== text.slice(mapped.start, mapped.end);
          if (encoded) push('encoded_payload', `Encoded text (${decoded.join(', ')}) decodes to: ${rule.description.toLowerCase()} (${span.why}).`, mapped.start, mapped.end);
          else push(rule.id, `${rule.description}: ${span.why}.`, mapped.start, mapped.end);
        }
      }
      if (decoded.length > 0) {
        // A decoded run that is a dangerous command line: nobody encodes `curl … | bash` for a reader.
        const region = changedRegion(text, view.text);
        for (const f of analyzeShellCommand(view.text.slice(region.start, region.end))) {
          if (!SHELL_RULES.has(f.rule)) continue;
          const mapped = view.toOriginal(region.start + f.start, region.start + f.end);
          push('encoded_payload', `Encoded text (${decoded.join(', ')}) decodes to a shell command: ${f.description.charAt(0).toLowerCase()}${f.description.slice(1)}`, mapped.start, mapped.end);
        }
      }
    }
  }
}
