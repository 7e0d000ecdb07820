import { excerptOf, type DetectorFinding } from './finding.js';
import { foldText, mayBeDisguised, textViews, type TextView } from './normalize.js';
import { homoglyphName, homoglyphTitle, invisibleRuns } from './tool-definition-chars.js';
import { namedToolInstructions, toolNameIndex, type ToolNameIndex } from './tool-definition-names.js';
import { candidateRules, type CompiledTextRule } from './tool-definition-rules.js';

/*
 * Tool definitions judged at first sight (docs/threat-detection.md): every string of an announced
 * tool — name, title, description, input and output schemas, annotations, `_meta`, anything else
 * the server put there — and the server's `instructions`, scanned before the client sees them.
 * A pin only notices a *change*; a definition poisoned from the start would pass it.
 *
 * Where a string sits decides what it is checked for: the name is an identifier (invisible and
 * look-alike characters); titles and prose get the word rules too; schema text (descriptions,
 * titles, defaults, examples, enum values, property names) gets the word rules reported as
 * schema_injection, since the model reads those as faithfully as the description; structural
 * schema keywords (`type`, `format`, `pattern`, `$ref`, `required`) only the character check, as a
 * regex or a type name is not read as prose (a `pattern` excluding `.env` is a guard, not a lure).
 *
 * Bounded: 512 KiB of text, 20 000 strings, nesting 64 deep, 200 findings; past a bound the scan
 * stops with a `too_large` finding, so an oversized definition is held for a person rather than
 * passed unread. Nothing here throws: an internal failure becomes an `unscannable` finding.
 */

export interface ToolDefinitionContext {
  /** The other tool names the same server announces, and those of other servers known to the proxy, as announced. */
  otherTools: readonly string[];
  /**
   * Optional: which of `otherTools` this same server announces. A server's instructions about its
   * own tools ("before browser_click, take a snapshot") cannot shadow anything it does not already
   * control, so those names are not shadowing targets; without this list every name counts.
   */
  sameServerTools?: readonly string[];
}

const MAX_TEXT = 512 * 1024;
const MAX_STRINGS = 20_000;
const MAX_DEPTH = 64;
const MAX_FINDINGS = 200;
const MAX_PER_RULE = 3;
/** Decoded views of one string: a definition's text is small, so a tight budget loses nothing real. */
const VIEW_LIMITS = { maxInput: 64 * 1024, maxDepth: 3, maxDecodedTotal: 64 * 1024, maxViews: 12 };

type Place = 'name' | 'title' | 'prose' | 'schema' | 'schema-key' | 'structural' | 'key';

/** Schema keywords whose strings are machine values, not text for the model. */
const STRUCTURAL = new Set(['type', 'format', 'pattern', '$ref', '$id', '$schema', '$anchor', '$dynamicRef', '$dynamicAnchor', 'required', 'contentEncoding', 'contentMediaType', 'dependentRequired']);
/** Schema keywords under which every string is a value the model may copy into a call. */
const LITERAL = new Set(['default', 'examples', 'example', 'enum', 'const']);
/** Schema keywords whose keys are property names (read by the model as parameter names). */
const NAMED_MEMBERS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

class Scan {
  readonly findings: DetectorFinding[] = [];
  private readonly seen = new Set<string>();
  private text = 0;
  private strings = 0;
  stopped = false;

  constructor(
    readonly names: ToolNameIndex,
    readonly ownNames: ReadonlySet<string>,
  ) {}

  add(rule: string, description: string, path: string, source: string, start: number, end: number): void {
    if (this.findings.length >= MAX_FINDINGS) return;
    const key = `${rule}\u0000${path}\u0000${start}\u0000${end}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.findings.push({ detector: 'tool_definition', rule, description, path, start, end, excerpt: excerptOf(source, start, end) });
  }

  /** Takes `length` more units of text; false (and a too_large finding) once a bound is passed. */
  take(length: number, path: string): boolean {
    if (this.stopped) return false;
    this.text += length;
    this.strings += 1;
    if (this.text <= MAX_TEXT && this.strings <= MAX_STRINGS) return true;
    this.stop(path, `The definition holds more than ${MAX_TEXT / 1024} KiB of text or ${MAX_STRINGS} strings; the rest was not scanned`);
    return false;
  }

  stop(path: string, description: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.findings.push({ detector: 'tool_definition', rule: 'too_large', description, path, start: 0, end: 0, excerpt: '' });
  }
}

function memberPath(parent: string, key: string): string {
  const step = IDENTIFIER.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (parent === '') return step;
  return step.startsWith('[') ? `${parent}${step}` : `${parent}.${step}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The [start, end) of a match with the spaces, quotes and punctuation a pattern's edges took trimmed (angle brackets kept: they are the markup found). */
function trimmed(text: string, start: number, end: number): { start: number; end: number } {
  const span = text.slice(start, end);
  const lead = span.length - span.replace(/^[\s'"`([{,;:=]+/, '').length;
  const tail = span.length - span.replace(/[\s'"`)\]},;:]+$/, '').length;
  return lead + tail >= span.length ? { start, end } : { start: start + lead, end: end - tail };
}

/** The name a `the X tool` rule captured (whichever alternative matched). */
function capturedName(match: RegExpExecArray): string | undefined {
  for (let i = 1; i < match.length; i += 1) if (match[i] !== undefined) return match[i]!.toLowerCase();
  return undefined;
}

const NOT_A_TOOL = new Set(['this', 'that', 'same', 'current', 'your', 'a', 'an', 'its', 'our', 'my', 'following', 'above', 'below', 'next', 'previous', 'first', 'second', 'last']);

function ruleFor(place: Place, rule: string): string {
  return place === 'schema' || place === 'schema-key' ? (rule === 'sensitive_file_reference' ? rule : 'schema_injection') : rule;
}

function describe(place: Place, rule: CompiledTextRule | { rule: string; description: string }, layers: readonly string[]): string {
  const decoded = layers.filter((layer) => layer !== 'fold');
  const where = place === 'schema' || place === 'schema-key' ? ` (in the schema, ${rule.rule.replace(/_/g, ' ')})` : '';
  const hidden = decoded.length > 0 ? ` (hidden in ${decoded.join(' inside ')})` : '';
  return `${rule.description}${where}${hidden}`;
}

/** The word rules and named-tool instructions on one view of `source`, findings mapped back to `source`. */
function scanView(scan: Scan, view: TextView, place: Place, path: string, source: string): void {
  const text = view.text;
  for (const rule of candidateRules(text)) {
    rule.regex.lastIndex = 0;
    let hits = 0;
    for (let match = rule.regex.exec(text); match !== null && hits < MAX_PER_RULE; match = rule.regex.exec(text)) {
      if (match[0].length === 0) {
        rule.regex.lastIndex += 1;
        continue;
      }
      if (rule.namesTool === true) {
        const named = capturedName(match);
        if (named === undefined || NOT_A_TOOL.has(named) || scan.ownNames.has(named)) continue;
      }
      hits += 1;
      const inView = trimmed(text, match.index, match.index + match[0].length);
      const original = view.toOriginal(inView.start, inView.end);
      scan.add(ruleFor(place, rule.rule), describe(place, rule, view.layers), path, source, original.start, original.end);
    }
  }
  for (const reference of namedToolInstructions(text, scan.names, scan.ownNames)) {
    const original = view.toOriginal(reference.start, reference.end);
    const rule = { rule: 'cross_tool_shadowing', description: `Gives instructions about another tool, "${reference.name}"` };
    scan.add(ruleFor(place, rule.rule), describe(place, rule, view.layers), path, source, original.start, original.end);
  }
}

/** Every check for one string at `path`, by where it sits. */
function scanString(scan: Scan, text: string, path: string, place: Place): void {
  if (!scan.take(text.length, path)) return;
  // Plain ASCII without %XX or long runs (most definitions) has no invisible or look-alike
  // characters and no other view: one cheap pass decides that.
  const disguised = mayBeDisguised(text);
  if (disguised) for (const run of invisibleRuns(text)) scan.add('invisible_characters', run.description, path, text, run.start, run.end);
  if (place === 'name') {
    const look = disguised ? homoglyphName(text) : null;
    if (look) scan.add('homoglyph_name', look.description, path, text, look.start, look.end);
    return;
  }
  if (place === 'title') {
    const look = disguised ? homoglyphTitle(text) : null;
    if (look) scan.add('homoglyph_name', look.description, path, text, look.start, look.end);
  }
  if (place === 'structural' || place === 'key') return;
  // Property names read as words: `first_read_ssh_key` as "first read ssh key" (same length, same offsets).
  const words = place === 'schema-key' ? text.replace(/[_-]/g, ' ') : text;
  scanView(scan, foldText(words), place, path, text);
  if (place !== 'schema-key' && disguised) {
    for (const view of textViews(text, VIEW_LIMITS).views) {
      if (view.layers.some((layer) => layer !== 'fold')) scanView(scan, view, place, path, text);
    }
  }
}

function checkKey(scan: Scan, key: string, path: string, place: Place): void {
  if (place === 'schema-key') scanString(scan, key, path, 'schema-key');
  else if (!scan.stopped) for (const run of invisibleRuns(key)) scan.add('invisible_characters', `In a member name: ${run.description}`, path, key, run.start, run.end);
}

/** A JSON Schema (input or output) and everything in it. */
function walkSchema(scan: Scan, value: unknown, path: string, depth: number, parentKey: string, literal: boolean): void {
  if (scan.stopped) return;
  if (depth > MAX_DEPTH) return scan.stop(path, `The definition is nested deeper than ${MAX_DEPTH} levels; the rest was not scanned`);
  if (typeof value === 'string') return scanString(scan, value, path, literal || !STRUCTURAL.has(parentKey) ? 'schema' : 'structural');
  if (Array.isArray(value)) {
    value.forEach((item, index) => walkSchema(scan, item, `${path}[${index}]`, depth + 1, parentKey, literal));
    return;
  }
  if (!isRecord(value)) return;
  const names = !literal && NAMED_MEMBERS.has(parentKey);
  for (const [key, child] of Object.entries(value)) {
    const childPath = memberPath(path, key);
    checkKey(scan, key, childPath, names ? 'schema-key' : 'key');
    walkSchema(scan, child, childPath, depth + 1, key, literal || (!names && LITERAL.has(key)));
  }
}

/** Any other part of a definition (annotations, `_meta`, members this code does not know). */
function walkProse(scan: Scan, value: unknown, path: string, depth: number, titleKey: boolean): void {
  if (scan.stopped) return;
  if (depth > MAX_DEPTH) return scan.stop(path, `The definition is nested deeper than ${MAX_DEPTH} levels; the rest was not scanned`);
  if (typeof value === 'string') return scanString(scan, value, path, titleKey ? 'title' : 'prose');
  if (Array.isArray(value)) {
    value.forEach((item, index) => walkProse(scan, item, `${path}[${index}]`, depth + 1, false));
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = memberPath(path, key);
    checkKey(scan, key, childPath, 'key');
    walkProse(scan, child, childPath, depth + 1, path === 'annotations' && key === 'title');
  }
}

function newScan(context: ToolDefinitionContext, ownName: string | undefined): Scan {
  const own = ownName === undefined ? [] : [ownName, foldText(ownName).text];
  const same = Array.isArray(context?.sameServerTools) ? context.sameServerTools.filter((n): n is string => typeof n === 'string') : [];
  const others = Array.isArray(context?.otherTools) ? context.otherTools : [];
  return new Scan(toolNameIndex(others), new Set([...own, ...same].map((name) => name.toLowerCase())));
}

function failed(scan: Scan, path: string): DetectorFinding[] {
  scan.findings.push({ detector: 'tool_definition', rule: 'unscannable', description: 'The definition could not be scanned; it is held for a person to read', path, start: 0, end: 0, excerpt: '' });
  return scan.findings;
}

/** Findings in one announced tool (the raw JSON object from tools/list); every string in it, any depth (bounded), with JSON paths (`description`, `inputSchema.properties.query.description`, `annotations.title`). Never throws. */
export function scanToolDefinition(tool: Record<string, unknown>, context: ToolDefinitionContext): DetectorFinding[] {
  const name = isRecord(tool) && typeof tool.name === 'string' ? tool.name : undefined;
  const scan = newScan(context, name);
  try {
    if (!isRecord(tool)) return scan.findings;
    // The name first, so no bound can stop before the name is judged.
    if (name !== undefined) scanString(scan, name, 'name', 'name');
    for (const [key, value] of Object.entries(tool)) {
      if (key === 'name' && name !== undefined) continue;
      const path = memberPath('', key);
      checkKey(scan, key, path, 'key');
      if (key === 'inputSchema' || key === 'outputSchema') walkSchema(scan, value, path, 1, key, false);
      else walkProse(scan, value, path, 1, key === 'title');
    }
    return scan.findings;
  } catch {
    return failed(scan, '');
  }
}

/** Findings in a server's `instructions` (initialize result), path `instructions`. */
export function scanServerInstructions(instructions: string, context: ToolDefinitionContext): DetectorFinding[] {
  const scan = newScan(context, undefined);
  try {
    if (typeof instructions === 'string') scanString(scan, instructions, 'instructions', 'prose');
    return scan.findings;
  } catch {
    return failed(scan, 'instructions');
  }
}
