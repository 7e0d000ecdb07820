import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { locateYamlPath, nodeStart, yamlPosition } from '../../../src-shared/yaml/positions.js';
import { scanSlice, type SliceFinding } from './slice-scan.js';

/*
 * A slice file (spec 004 §1.2 "Slice": concepts, principles, examples), in the navigator format of
 * the reference: a `metadata` block, then `knowledge`, `examples`, `formulas`, `principles` and
 * `references`. Pure: text in, a checked slice or every problem out, each with its line, column
 * and field, and a message that says what to write instead. A file with any problem is not
 * indexed at all: a slice is read into an agent's context as trusted knowledge, so half of one
 * (its instruction removed, say) is not offered either.
 */

/** Slices are knowledge, not data dumps; a larger file is refused before YAML reads it. */
export const MAX_SLICE_BYTES = 256 * 1024;
/** Aliases can multiply a small document into a huge one; a slice never needs many. */
const MAX_YAML_ALIASES = 20;

const NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;
/** An id names the slice in connects_to, search results and traces (§6.3 `slices_loaded`); never a path. */
export function isSliceId(value: string): boolean {
  return NAME.test(value) && !value.includes('..');
}

export const NAME_RULE = 'use 1 to 128 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, with no ".."; it is a name, never a path';
const SliceId = z.string().superRefine((value, ctx) => {
  if (!isSliceId(value)) ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 80)}" is not a slice id: ${NAME_RULE}` });
});
const DomainName = z.string().superRefine((value, ctx) => {
  if (!isSliceId(value)) ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 80)}" is not a domain name: ${NAME_RULE} (e.g. biology)` });
});
const Concept = z
  .string()
  .max(128)
  .superRefine((value, ctx) => {
    if (!/[\p{L}\p{N}]/u.test(value)) ctx.addIssue({ code: 'custom', message: 'a concept needs a letter or a digit, e.g. negative_feedback' });
  });

const SliceMetadata = z.strictObject({
  id: SliceId,
  domain: DomainName,
  title: z.string().min(1).max(200),
  description: z.string().max(4000).optional(),
  concepts: z.array(Concept).min(1).max(64),
  connects_to: z.record(DomainName, SliceId),
  tags: z.array(z.string().min(1).max(64)).max(64),
  version: z.string().min(1).max(32),
  author: z.string().max(200).optional(),
});

const SliceDocument = z.strictObject({
  metadata: SliceMetadata,
  knowledge: z.string().min(1),
  examples: z.array(z.string()).max(256).default([]),
  formulas: z.record(z.string().min(1).max(128), z.string()).default({}),
  principles: z.array(z.string()).max(256).default([]),
  references: z.array(z.string()).max(256).default([]),
});
export type Slice = z.infer<typeof SliceDocument>;

/** One reason a slice file is not indexed. `line` and `column` are 1-based. */
export interface SliceProblem {
  file: string;
  line: number;
  column: number;
  /** `metadata.id`, `examples[1]`, or `(file)` for the file as a whole. */
  field: string;
  message: string;
}

/** A checked slice, with where its id is written (for a later duplicate), or every problem found. */
export type ParsedSlice = { ok: true; slice: Slice; idAt: { line: number; column: number } } | { ok: false; problems: SliceProblem[] };

const WHOLE_FILE = '(file)';
/** How to write each field, for the messages; looked up without list indices. */
const HINTS: Record<string, string> = {
  metadata: 'a block of id, domain, title, concepts, connects_to, tags and version',
  'metadata.id': 'e.g. id: cellular-homeostasis',
  'metadata.domain': 'e.g. domain: biology',
  'metadata.title': 'e.g. title: Cellular Homeostasis',
  'metadata.description': 'one or a few sentences of text',
  'metadata.concepts': 'a list of words, e.g. concepts: [homeostasis, negative_feedback]',
  'metadata.connects_to': 'domain: slice id pairs, e.g. connects_to: {systems: feedback-loops}, or connects_to: {} for none',
  'metadata.tags': 'a list, e.g. tags: [biology], or tags: [] for none',
  'metadata.version': 'quoted text, e.g. version: "1.0"',
  'metadata.author': 'text, e.g. author: Jane Doe',
  knowledge: 'the slice\'s text: knowledge: | and indented lines below it',
  examples: 'a list of texts',
  formulas: 'name: text pairs, e.g. formulas: {gap: "set point - current"}',
  principles: 'a list of texts',
  references: 'a list of texts, e.g. references: ["Cannon (1932), The Wisdom of the Body"]',
};
const KNOWN: Record<string, string[]> = { '': Object.keys(SliceDocument.shape), metadata: Object.keys(SliceMetadata.shape) };

type Path = ReadonlyArray<PropertyKey>;

function fieldOf(path: Path): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? String(segment) : `.${String(segment)}`;
  return out === '' ? WHOLE_FILE : out;
}

const hintOf = (path: Path): string => HINTS[path.filter((segment) => typeof segment !== 'number').map(String).join('.')] ?? '';

function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return 'text';
  return `a ${typeof value} (${String(value)})`;
}

function valueAt(data: unknown, path: Path): unknown {
  let node = data;
  for (const segment of path) node = node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[segment] : undefined;
  return node;
}

const EXPECTED: Record<string, string> = { string: 'text', array: 'a list', object: 'a mapping', record: 'a mapping' };

/** Each problem a zod issue stands for; `atKey` when it is shown at the key rather than the value. */
function issueMessage(issue: z.core.$ZodIssue, data: unknown): { path: Path; message: string; atKey?: boolean }[] {
  const field = fieldOf(issue.path);
  const hint = hintOf(issue.path);
  const fix = hint === '' ? '' : `; ${hint}`;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = KNOWN[issue.path.map(String).join('.')] ?? [];
      return issue.keys.map((key) => ({ path: [...issue.path, key], atKey: true, message: `${fieldOf([...issue.path, key])} is not a field of a slice${issue.path.length > 0 ? `'s ${field}` : ''}; check the spelling (known: ${known.join(', ')})` }));
    }
    case 'invalid_type': {
      const found = valueAt(data, issue.path);
      if (found === undefined) return [{ path: issue.path, message: `${field} is missing; add it${fix}` }];
      return [{ path: issue.path, message: `${field} must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${kindOf(found)}${fix}` }];
    }
    case 'too_small':
      return [{ path: issue.path, message: issue.origin === 'array' ? `${field} needs at least ${String(issue.minimum)} item${fix}` : `${field} is empty${fix}` }];
    case 'too_big':
      return [{ path: issue.path, message: `${field} is too long: at most ${String(issue.maximum)} ${issue.origin === 'array' ? 'items' : 'characters'}; split it or shorten it` }];
    case 'invalid_key': {
      const parent = fieldOf(issue.path.slice(0, -1));
      const name = JSON.stringify(String(issue.path.at(-1)).slice(0, 80));
      return issue.issues.map((inner) => ({ path: issue.path, atKey: true, message: `${parent}: ${inner.code === 'custom' ? inner.message : `the name ${name} is not allowed: 1 to 128 characters`}` }));
    }
    default:
      return [{ path: issue.path, message: `${field}: ${issue.message}${fix}` }];
  }
}

/**
 * Where a finding sits: the line of the offending text itself when it can be found in the node's
 * source (a line deep inside a `knowledge: |` block), else the node's start.
 */
function findingPosition(source: string, doc: Document, lines: LineCounter, finding: SliceFinding): { line: number; column: number } {
  const location = locateYamlPath(doc, finding.path);
  const node = finding.inKey ? location.key : location.node;
  const range = (node as { range?: [number, number, number] } | null)?.range;
  const head = (finding.excerpt.split('\n').find((line) => line.trim() !== '') ?? '').trim().slice(0, 60);
  if (range && head !== '') {
    const at = source.indexOf(head, range[0]);
    if (at >= 0 && at < range[1]) return yamlPosition(lines, at);
  }
  return yamlPosition(lines, nodeStart(node) ?? 0);
}

function yamlMessage(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'this key is given twice; keep one';
  if (code === 'TAG_RESOLVE_FAILED') return `${message.split('\n')[0]}; slices use plain YAML values (no custom tags)`;
  return `invalid YAML: ${message.split('\n')[0]}`;
}

/** Reads one slice file's text: the slice, or every problem found (`file` is only shown). */
export function parseSlice(text: string, file: string): ParsedSlice {
  const at = (line: number, column: number, field: string, message: string): SliceProblem => ({ file, line, column, field, message });
  const fail = (problems: SliceProblem[]): ParsedSlice => ({ ok: false, problems: problems.sort((a, b) => a.line - b.line || a.column - b.column) });
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SLICE_BYTES) return fail([at(1, 1, WHOLE_FILE, `the file is ${bytes} bytes; a slice holds at most ${MAX_SLICE_BYTES} (256 KiB): split it into slices that connect to each other`)]);
  const nul = text.indexOf('\0');
  if (nul >= 0) return fail([at(text.slice(0, nul).split('\n').length, 1, WHOLE_FILE, 'a slice is text; remove the NUL character')]);

  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, version: '1.2', schema: 'core', prettyErrors: false });
  const yamlProblems = [...doc.errors, ...doc.warnings];
  if (yamlProblems.length > 0) {
    return fail(yamlProblems.map((problem) => {
      const { line, column } = yamlPosition(lines, problem.pos[0]);
      return at(line, column, WHOLE_FILE, yamlMessage(problem.code, problem.message));
    }));
  }
  if (!isMap(doc.contents)) return fail([at(1, 1, WHOLE_FILE, 'a slice is a mapping: metadata: (id, domain, title, concepts, connects_to, tags, version), then knowledge:, examples:, formulas:, principles:, references:')]);
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    return fail([at(1, 1, WHOLE_FILE, `the YAML could not be resolved (${(error as Error).message}); write the values out instead of aliasing them`)]);
  }

  // A wrong value is shown where the value is written; a missing or unknown field at its key (or
  // the deepest key that exists).
  const place = (path: Path, atKey = false) => {
    const location = locateYamlPath(doc, path);
    const value = location.depth === path.length && !atKey ? nodeStart(location.node) : undefined;
    return yamlPosition(lines, value ?? nodeStart(location.key) ?? nodeStart(location.node) ?? 0);
  };
  const problems: SliceProblem[] = [];
  const parsed = SliceDocument.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      for (const { path, message, atKey } of issueMessage(issue, data)) {
        const { line, column } = place(path, atKey);
        problems.push(at(line, column, fieldOf(path), message));
      }
    }
  }
  // Every string is scanned, valid or not, so one reading reports everything that is wrong.
  for (const finding of scanSlice(data)) {
    const { line, column } = findingPosition(text, doc, lines, finding);
    const excerpt = JSON.stringify(finding.excerpt.slice(0, 120));
    problems.push(at(line, column, fieldOf(finding.path), `${fieldOf(finding.path)} is refused as an injected instruction: ${finding.description.replace(/\.$/, '')} (${excerpt}); a slice holds knowledge, never orders or hidden text for the agent that reads it: remove it (spec 004 §10.3)`));
  }
  if (problems.length > 0 || !parsed.success) return fail(problems);
  return { ok: true, slice: parsed.data, idAt: place(['metadata', 'id']) };
}
