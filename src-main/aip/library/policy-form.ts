import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';

/*
 * The policy editor's form view (docs/policy-editor.md "Form view and standing approvals as rules")
 * edits the same YAML document the person sees, so every change is a splice of the source text at
 * the node it touches: comments, anchors, quoting, key order and blank lines elsewhere stay byte
 * for byte. The document is parsed to find where a node is; it is never re-serialised. Standing
 * approvals become rules the same way.
 */

export type FormChange =
  | { kind: 'mode'; mode: 'enforce' | 'monitor' }
  | { kind: 'add_item'; list: 'allowed_tools' | 'protected_paths'; value: string }
  | { kind: 'tool_action'; tool: string; action: 'allow' | 'ask' | 'block' }
  | { kind: 'rule_from_standing'; tool: string; args: Record<string, unknown> }
  | { kind: 'dlp_pattern'; name: string; regex: string };

export interface FormEdit {
  text: string;
  /** What could not be expressed, e.g. a non-string argument of a standing approval. */
  notes: string[];
}

interface Located {
  text: string;
  eol: string;
  column: (offset: number) => number;
  spec: YAMLMap;
  specIndent: number;
}

const PLAIN = /^[A-Za-z0-9_./~*@-][A-Za-z0-9_./~*@ -]*$/;
const YAML_WORDS = /^(?:true|false|null|yes|no|on|off|~)$/i;

/** A scalar as YAML: plain when that is unambiguous, otherwise JSON's double quotes (valid YAML). */
export function yamlScalar(value: string): string {
  return PLAIN.test(value) && !YAML_WORDS.test(value) && !/^[-.]?\d/.test(value) && !value.endsWith(' ') ? value : JSON.stringify(value);
}

function locate(text: string): Located {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { version: '1.2', lineCounter, uniqueKeys: true, keepSourceTokens: true });
  if (doc.errors.length > 0) throw new SilasError(ErrorCode.InvalidArgs, `the draft is not valid YAML (line ${lineCounter.linePos(doc.errors[0]!.pos[0]).line}); fix it in the editor first`);
  const root = doc.contents;
  const specPair = isMap(root) ? root.items.find((pair) => isScalar(pair.key) && pair.key.value === 'spec') : undefined;
  const spec = specPair?.value;
  if (!isMap(spec) || spec.flow || spec.items.length === 0 || !isScalar(specPair!.key)) {
    throw new SilasError(ErrorCode.InvalidArgs, 'the form edits a block-style spec: mapping with at least one key; edit this policy as text');
  }
  const column = (offset: number) => lineCounter.linePos(offset).col - 1;
  const firstKey = spec.items[0]!.key as Node;
  return { text, eol: text.includes('\r\n') ? '\r\n' : '\n', column, spec, specIndent: column(firstKey.range![0]) };
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key) as Pair | undefined;
}

/** The offset just after the line on which `node` ends (a trailing comment stays on its line). */
function afterLineOf(text: string, end: number): number {
  const newline = end > 0 && text[end - 1] === '\n' ? end - 1 : text.indexOf('\n', end);
  return newline === -1 ? text.length : newline + 1;
}

function splice(text: string, at: number, remove: number, insert: string): string {
  return `${text.slice(0, at)}${insert}${text.slice(at + remove)}`;
}

/** New lines appended as the last keys of `spec:`, at its indentation. */
function appendToSpec(located: Located, lines: string[]): string {
  const { text, eol, spec } = located;
  const last = spec.items[spec.items.length - 1]!;
  const node = (last.value ?? last.key) as Node;
  const at = afterLineOf(text, node.range![1]);
  const lead = at === text.length && !text.endsWith('\n') ? eol : '';
  return splice(text, at, 0, `${lead}${lines.join(eol)}${eol}`);
}

function pad(n: number): string {
  return ' '.repeat(n);
}

function setMode(located: Located, mode: string): string {
  const pair = pairOf(located.spec, 'mode');
  if (pair && isScalar(pair.value) && pair.value.range) {
    const [start, end] = pair.value.range;
    return splice(located.text, start, end - start, mode);
  }
  return appendToSpec(located, [`${pad(located.specIndent)}mode: ${mode}`]);
}

function addItem(located: Located, list: string, value: string): string {
  const { text, eol, specIndent } = located;
  const pair = pairOf(located.spec, list);
  const rendered = yamlScalar(value);
  if (!pair || pair.value === null || pair.value === undefined) return appendToSpec(located, [`${pad(specIndent)}${list}:`, `${pad(specIndent + 2)}- ${rendered}`]);
  const seq = pair.value as YAMLSeq;
  if (!isSeq(seq)) throw new SilasError(ErrorCode.InvalidArgs, `spec.${list} is not a list; edit it as text`);
  if (seq.items.some((item) => isScalar(item) && item.value === value)) return text;
  if (seq.flow) {
    // `[a, b]` → `[a, b, value]`: insert before the closing bracket, keeping everything else.
    const close = text.lastIndexOf(']', seq.range![1]);
    const empty = seq.items.length === 0;
    return splice(text, close, 0, `${empty ? '' : ', '}${rendered}`);
  }
  const lastItem = seq.items[seq.items.length - 1] as Node;
  const itemStart = lastItem.range![0];
  const lineStart = text.lastIndexOf('\n', itemStart) + 1;
  // The new item goes at the column of the last item's dash (an anchor or tag may sit after it).
  const lead = text.slice(lineStart, itemStart);
  const indent = lead.slice(0, Math.max(0, lead.indexOf('-')));
  return splice(text, afterLineOf(text, lastItem.range![1]), 0, `${indent}- ${rendered}${eol}`);
}

function toolRules(located: Located): { seq: YAMLSeq | null; pair: Pair | undefined } {
  const pair = pairOf(located.spec, 'tool_rules');
  const seq = pair?.value;
  if (pair && seq !== null && seq !== undefined && !isSeq(seq)) throw new SilasError(ErrorCode.InvalidArgs, 'spec.tool_rules is not a list; edit it as text');
  return { seq: (seq as YAMLSeq | null | undefined) ?? null, pair };
}

/** Appends one tool rule (its lines without the leading dash) to spec.tool_rules, creating it when absent. */
function appendRule(located: Located, ruleLines: string[]): string {
  const { specIndent } = located;
  const { seq } = toolRules(located);
  if (seq === null || seq.items.length === 0) {
    const itemIndent = specIndent + 2;
    return appendToSpec(located, [`${pad(specIndent)}tool_rules:`, ...ruleLines.map((line, i) => `${pad(itemIndent)}${i === 0 ? '- ' : '  '}${line}`)]);
  }
  if (seq.flow) throw new SilasError(ErrorCode.InvalidArgs, 'spec.tool_rules is written in flow style ([…]); edit it as text');
  return appendBlockItem(located, seq, ruleLines);
}

function setToolAction(located: Located, tool: string, action: string): string {
  const { seq } = toolRules(located);
  const existing = seq?.items.find((item) => isMap(item) && pairOf(item, 'tool') && isScalar(pairOf(item, 'tool')!.value) && (pairOf(item, 'tool')!.value as { value: unknown }).value === tool) as YAMLMap | undefined;
  if (!existing) return appendRule(located, [`tool: ${yamlScalar(tool)}`, `action: ${action}`]);
  const actionPair = pairOf(existing, 'action');
  if (actionPair && isScalar(actionPair.value) && actionPair.value.range) {
    const [start, end] = actionPair.value.range;
    return splice(located.text, start, end - start, action);
  }
  // A rule without an action: add one after its `tool:` line, at the same indentation.
  const toolPair = pairOf(existing, 'tool')!;
  const keyStart = (toolPair.key as Node).range![0];
  return splice(located.text, afterLineOf(located.text, (toolPair.value as Node).range![1]), 0, `${pad(located.column(keyStart))}action: ${action}${located.eol}`);
}

/** Appends an item (its lines without the dash) to a block sequence, at its items' indentation. */
function appendBlockItem(located: Located, seq: YAMLSeq, itemLines: string[]): string {
  const lastItem = seq.items[seq.items.length - 1] as Node;
  const itemIndent = located.column(lastItem.range![0]) - 2;
  const lines = itemLines.map((line, i) => `${pad(itemIndent)}${i === 0 ? '- ' : '  '}${line}`);
  return splice(located.text, afterLineOf(located.text, lastItem.range![1]), 0, `${lines.join(located.eol)}${located.eol}`);
}

/** A DLP pattern (request scanning on, matches blocked when the policy had no dlp: yet). */
function addDlpPattern(located: Located, name: string, regex: string): string {
  const item = [`name: ${JSON.stringify(name)}`, `regex: ${JSON.stringify(regex)}`];
  const { specIndent, text, eol } = located;
  const dlpPair = pairOf(located.spec, 'dlp');
  if (!dlpPair || dlpPair.value === null || dlpPair.value === undefined) {
    const at = pad(specIndent + 2);
    return appendToSpec(located, [`${pad(specIndent)}dlp:`, `${at}scan_requests: true`, `${at}on_request_match: block`, `${at}patterns:`, ...item.map((line, i) => `${at}  ${i === 0 ? '- ' : '  '}${line}`)]);
  }
  const dlp = dlpPair.value as YAMLMap;
  if (!isMap(dlp) || dlp.flow) throw new SilasError(ErrorCode.InvalidArgs, 'spec.dlp is not a block mapping; edit it as text');
  const patternsPair = pairOf(dlp, 'patterns');
  const patterns = patternsPair?.value as YAMLSeq | null | undefined;
  if (isSeq(patterns) && !patterns.flow && patterns.items.length > 0) return appendBlockItem(located, patterns, item);
  if (patternsPair) throw new SilasError(ErrorCode.InvalidArgs, 'spec.dlp.patterns is empty, in flow style or not a list; edit it as text');
  // No patterns yet: a patterns: key as the last key of dlp:, at its keys' indentation.
  const firstKey = dlp.items[0]!.key as Node;
  const keyIndent = located.column(firstKey.range![0]);
  const last = dlp.items[dlp.items.length - 1]!;
  const end = ((last.value ?? last.key) as Node).range![1];
  const lines = [`${pad(keyIndent)}patterns:`, ...item.map((line, i) => `${pad(keyIndent + 2)}${i === 0 ? '- ' : '  '}${line}`)];
  return splice(text, afterLineOf(text, end), 0, `${lines.join(eol)}${eol}`);
}

function escapeRegex(value: string): string {
  return value.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** A standing "always allow" (one tool, exact arguments) as an allow rule pinned to those arguments. */
function ruleFromStanding(located: Located, tool: string, args: Record<string, unknown>): FormEdit {
  const notes: string[] = [];
  const argLines: string[] = [];
  for (const [name, value] of Object.entries(args)) {
    if (typeof value !== 'string') {
      notes.push(`argument "${name}" is not text (${JSON.stringify(value)?.slice(0, 80)}); allow_args constrains text arguments only, so the rule does not pin it`);
      continue;
    }
    argLines.push(`  ${yamlScalar(name)}: ${JSON.stringify(`^${escapeRegex(value)}$`)}`);
  }
  const lines = [`tool: ${yamlScalar(tool)}`, 'action: allow', ...(argLines.length > 0 ? ['allow_args:', ...argLines] : [])];
  if (argLines.length === 0) notes.push('no text argument to pin: the rule allows every call of the tool; narrow it before saving');
  return { text: appendRule(located, lines), notes };
}

/** Applies one form change to the draft's text; only the touched lines change. */
export function applyFormChange(text: string, change: FormChange): FormEdit {
  const located = locate(text);
  switch (change.kind) {
    case 'mode':
      return { text: setMode(located, change.mode), notes: [] };
    case 'add_item':
      return { text: addItem(located, change.list, change.value), notes: [] };
    case 'tool_action':
      return { text: setToolAction(located, change.tool, change.action), notes: [] };
    case 'rule_from_standing':
      return ruleFromStanding(located, change.tool, change.args);
    case 'dlp_pattern':
      return { text: addDlpPattern(located, change.name, change.regex), notes: [] };
  }
}
