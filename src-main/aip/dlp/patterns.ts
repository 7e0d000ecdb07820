import RE2 from 're2';
import type { DlpPattern, DlpVerifier } from '../policy/types.js';
import { verifyMatch } from './verify/index.js';

/*
 * Compiled DLP patterns for one direction (request or response), and the span logic every
 * scan ends in.
 *
 * Matching is two-stage. Stage one is a single RE2.Set pass that answers "which of these
 * patterns match anywhere in this text?". Stage two runs only those patterns, each on its own,
 * to find where they match. Both stages are RE2, so both are linear in the text (§10.2).
 *
 * The set is used as a *prefilter*, so it only has to over-approximate: every pattern is added to
 * it wrapped as `(?m<flags>:…)`. Multi-line mode lets `^`/`$` match at the `\n` that separates the
 * strings the scanner joins into one batch, so joining never hides a match. `\A`, `\z` and an
 * explicit `-m` are not relaxed by that wrapper; patterns using them (and any pattern the set
 * cannot compile) skip the prefilter and always run on their own ("always-run" patterns).
 */

export type RE2Set = InstanceType<typeof RE2.Set>;

/** One redaction candidate: a half-open UTF-16 range of the scanned text and the pattern (view index) it belongs to. */
export interface Span {
  start: number;
  end: number;
  pattern: number;
}

export interface CompiledPattern {
  name: string;
  /** Position in the policy's pattern list. */
  policyIndex: number;
  /** The policy regex with the global flag, used only to enumerate matches. */
  global: RE2;
}

const ANCHOR_SENSITIVE = /\\[Az]|\(\?[A-Za-z]*-[A-Za-z]*m/;

/**
 * Prefilter members that start with a literal (`AKIA…`, `ghp_…`, `-----BEGIN`) and hold no
 * alternation: RE2 runs such a pattern alone by searching for its first bytes, a hundred times
 * faster than a set's DFA over prose, which cannot. When every member is one of these (and there
 * are few), long texts are tested member by member; short ones, where a native call costs more
 * than the scan, still go through the set. Either way the answer is the set's.
 */
const LITERAL_START = /^[A-Za-z0-9_-]{3}/;
const MAX_LITERAL_MEMBERS = 4;
const LITERAL_SCAN_UNITS = 4096;

/**
 * The text as RE2 reads it, converted once for several members: each RE2 converts a string to
 * UTF-8 on its own, so four members over a joined text of 4 MB converted it four times, which
 * cost more than the set's one pass (bench `dlp.request.literal_patterns_*`).
 */
function utf8Once(text: string | Buffer, members: number): string | Buffer {
  return typeof text === 'string' && members > 1 ? Buffer.from(text, 'utf8') : text;
}

/**
 * Calls `fn(start, end)` (UTF-16 offsets) for every match of the global `re` in `text`.
 *
 * An exec() loop: node-re2 caches the UTF-8 form of the last string, so this is linear in the
 * text. (replace() with a callback is not: it recomputes each UTF-16 offset from the start of
 * the string, quadratic in the number of matches.) After an empty match, lastIndex advances by
 * one whole code point, never into the middle of a surrogate pair.
 */
export function forEachMatch(re: RE2, text: string, fn: (start: number, end: number) => void): void {
  re.lastIndex = 0;
  for (;;) {
    const match = re.exec(text);
    if (match === null) break;
    const start = match.index;
    const end = start + match[0].length;
    fn(start, end);
    if (end === start) {
      if (start >= text.length) break;
      const c = text.charCodeAt(start);
      const pair = c >= 0xd800 && c <= 0xdbff && start + 1 < text.length && (text.charCodeAt(start + 1) & 0xfc00) === 0xdc00;
      re.lastIndex = start + (pair ? 2 : 1);
    } else {
      re.lastIndex = end;
    }
  }
  re.lastIndex = 0;
}

function markerFor(name: string): string {
  return `[REDACTED:${name}]`;
}

export function compileGlobal(regex: RE2): RE2 {
  let flags = 'gu';
  if (regex.ignoreCase) flags += 'i';
  if (regex.multiline) flags += 'm';
  if (regex.dotAll) flags += 's';
  return new RE2(regex.source, flags);
}

function prefilterSource(regex: RE2): string {
  let inline = 'm';
  if (regex.ignoreCase) inline += 'i';
  if (regex.dotAll) inline += 's';
  return `(?${inline}:${regex.source})`;
}

/** The patterns that apply to one direction, in policy order, with their prefilter set. */
export class PatternView {
  readonly patterns: CompiledPattern[];
  /** Set member index → view index. */
  readonly setMembers: number[];
  /** View indexes that the set does not cover; they run on every scanned string. */
  readonly alwaysRun: number[];
  readonly set: RE2Set | null;
  /** The set's members on their own, in member order, when all of them start with a literal; else null. */
  private readonly literalMembers: RE2[] | null;
  /** Per view index: the check a match must pass (`x-silas-verify`), or null. */
  private readonly verifiers: (DlpVerifier | null)[];

  /** What the view scans is sent (a request, or the audit copy), not returned: see verify/documented.ts. */
  private readonly sent: boolean;

  constructor(patterns: CompiledPattern[], sources: DlpPattern[], sent = false) {
    this.patterns = patterns;
    this.sent = sent;
    this.verifiers = sources.map((pattern) => pattern.verify ?? null);
    const members: number[] = [];
    const setSources: string[] = [];
    const always: number[] = [];
    sources.forEach((pattern, i) => {
      const source = pattern.regex.source;
      if (ANCHOR_SENSITIVE.test(source)) {
        always.push(i);
        return;
      }
      const wrapped = prefilterSource(pattern.regex);
      try {
        new RE2(wrapped, 'u');
      } catch {
        always.push(i);
        return;
      }
      members.push(i);
      setSources.push(wrapped);
    });
    let set: RE2Set | null = null;
    if (setSources.length > 0) {
      try {
        set = new RE2.Set(setSources, 'u');
      } catch {
        set = null;
        always.push(...members);
        members.length = 0;
        always.sort((a, b) => a - b);
      }
    }
    this.set = set;
    this.setMembers = members;
    this.alwaysRun = always;
    const literal = set !== null && members.length <= MAX_LITERAL_MEMBERS && members.every((i) => LITERAL_START.test(sources[i]!.regex.source) && !sources[i]!.regex.source.includes('|'));
    this.literalMembers = literal ? setSources.map((source) => new RE2(source, 'u')) : null;
  }

  get size(): number {
    return this.patterns.length;
  }

  /**
   * View indexes that may match `text` (set hits plus always-run patterns), ascending. If the set
   * fails at run time (RE2 reports DFA memory exhaustion by throwing), every pattern is returned:
   * failing over to more scanning, never less.
   */
  candidates(text: string | Buffer): number[] {
    if (this.set === null) return this.alwaysRun;
    let hits: number[];
    try {
      hits = this.set.match(text);
    } catch {
      return this.all();
    }
    if (hits.length === 0) return this.alwaysRun;
    const out = hits.map((h) => this.setMembers[h]!);
    if (this.alwaysRun.length > 0) out.push(...this.alwaysRun);
    return out.sort((a, b) => a - b);
  }

  /** Whether the prefilter says any set member matches; true when the set fails (fail towards scanning). */
  setMayMatch(text: string | Buffer): boolean {
    if (this.set === null) return false;
    try {
      const literal = this.literalMembers;
      if (literal !== null && text.length >= LITERAL_SCAN_UNITS) {
        const bytes = utf8Once(text, literal.length);
        return literal.some((member) => member.test(bytes));
      }
      return this.set.test(text);
    } catch {
      return true;
    }
  }

  /** Set hits only (no always-run patterns), as view indexes; every member when the set fails. */
  setHits(text: string | Buffer): number[] {
    if (this.set === null) return [];
    try {
      const literal = this.literalMembers;
      if (literal !== null && text.length >= LITERAL_SCAN_UNITS) {
        const bytes = utf8Once(text, literal.length);
        const hits: number[] = [];
        literal.forEach((member, h) => {
          if (member.test(bytes)) hits.push(this.setMembers[h]!);
        });
        return hits;
      }
      return this.set.match(text).map((h) => this.setMembers[h]!);
    } catch {
      return this.setMembers.slice();
    }
  }

  all(): number[] {
    return this.patterns.map((_, i) => i);
  }

  /** Appends the non-empty matches of pattern `view` in `text` that pass its check to `out`. Empty matches never redact. */
  collect(text: string, view: number, out: Span[]): void {
    const verifier = this.verifiers[view] ?? null;
    forEachMatch(this.patterns[view]!.global, text, (start, end) => {
      if (end > start && (verifier === null || verifyMatch(verifier, text.slice(start, end), this.sent))) out.push({ start, end, pattern: view });
    });
  }

  /** Spans of every given pattern in `text`. */
  spans(text: string, views: readonly number[]): Span[] {
    const out: Span[] = [];
    for (const view of views) this.collect(text, view, out);
    return out;
  }
}

/**
 * Merges overlapping spans and writes the redacted text.
 *
 * Overlap rule: spans of different patterns are all found on the *original* text (no pattern
 * ever sees another pattern's marker). Spans that overlap (share at least one character) are
 * merged into one redacted region covering their union; the region's marker names the pattern
 * that comes first in policy order among the merged spans, and only that pattern's count goes
 * up (one per marker). Spans that merely touch stay separate markers. So every matched character
 * is redacted, markers are never nested or altered, and each event count equals the number of
 * markers with that name in the output.
 */
export function applySpans(text: string, spans: Span[], names: readonly string[], counts: number[]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start || a.pattern - b.pattern);
  const parts: string[] = [];
  let cursor = 0;
  let current = { ...spans[0]! };
  const emit = (region: Span): void => {
    parts.push(text.slice(cursor, region.start), markerFor(names[region.pattern]!));
    counts[region.pattern]! += 1;
    cursor = region.end;
  };
  for (let i = 1; i < spans.length; i += 1) {
    const span = spans[i]!;
    if (span.start < current.end) {
      if (span.end > current.end) current.end = span.end;
      if (span.pattern < current.pattern) current.pattern = span.pattern;
    } else {
      emit(current);
      current = { ...span };
    }
  }
  emit(current);
  parts.push(text.slice(cursor));
  return parts.join('');
}
