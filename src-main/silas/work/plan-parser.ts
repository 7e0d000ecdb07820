import { Document, LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';
import type { z } from 'zod';
import { SilasError } from '../../../src-shared/errors.js';
import { RUNTIME_MANAGED_FIELDS, WORK_ITEM_FIELDS, WorkItem } from '../../../src-shared/silas/work.js';
import { locateYamlPath, nodeStart } from '../../../src-shared/yaml/positions.js';

/**
 * PlanParser of spec 002 §4.15: markdown with YAML front matter in, a validated WorkItem out.
 * Pure: no file I/O, no skill lookup, no clock unless the caller passes one. Every refusal
 * names the file, the line and the field, e.g. `plan.md:4: budget.max_tokens: expected a positive integer`.
 */

/** Plans are briefings, not data dumps; anything bigger is refused before YAML sees it. */
export const MAX_PLAN_BYTES = 256 * 1024;
/** Aliases can multiply a small document into a huge one; a plan never needs many. */
const MAX_YAML_ALIASES = 20;

export const PLAN_INVALID = 'E_PLAN_INVALID';

export interface PlanIssue {
  /** 1-based line in the plan file. */
  line: number;
  /** Dotted field path such as `verify[0].expect`, or `(front matter)` / `(plan)` for structure. */
  field: string;
  message: string;
}

export interface ParsePlanOptions {
  /** Shown in errors; defaults to `plan.md`. */
  file?: string;
  /** The project or goal this plan is a child of: supplies `parent` and, when `skills` is absent, the skills. */
  parent?: Pick<WorkItem, 'id' | 'skills'>;
  /** Clock for `created_at` (excluded from the plan hash); defaults to the current time. */
  now?: () => Date;
}

export class PlanParseError extends SilasError {
  readonly file: string;
  readonly line: number;
  readonly field: string;
  /** The first problem without its `file:line: field:` prefix. */
  readonly detail: string;
  /** Every problem found, ordered by line. */
  readonly issues: readonly PlanIssue[];

  constructor(file: string, issues: PlanIssue[]) {
    const sorted = [...issues].sort((a, b) => a.line - b.line);
    super(PLAN_INVALID, sorted.map((issue) => `${file}:${issue.line}: ${issue.field}: ${issue.message}`).join('\n'));
    this.name = 'PlanParseError';
    const first = sorted[0]!;
    this.file = file;
    this.line = first.line;
    this.field = first.field;
    this.detail = first.message;
    this.issues = sorted;
  }
}

export type PlanParseResult = { ok: true; item: WorkItem } | { ok: false; error: PlanParseError };

const STRUCTURE = '(front matter)';
const DELIMITER = /^---[ \t]*$/;

/** Parses a plan, throwing a PlanParseError that lists every problem found. */
export function parsePlan(markdown: string, options: ParsePlanOptions = {}): WorkItem {
  const result = tryParsePlan(markdown, options);
  if (!result.ok) throw result.error;
  return result.item;
}

/** Like `parsePlan`, but returns the error instead of throwing it. */
export function tryParsePlan(markdown: string, options: ParsePlanOptions = {}): PlanParseResult {
  const file = options.file ?? 'plan.md';
  const fail = (issues: PlanIssue[]): PlanParseResult => ({ ok: false, error: new PlanParseError(file, issues) });

  if (typeof markdown !== 'string') return fail([{ line: 1, field: '(plan)', message: 'expected the plan as text' }]);
  const bytes = Buffer.byteLength(markdown, 'utf8');
  if (bytes > MAX_PLAN_BYTES) {
    return fail([{ line: 1, field: '(plan)', message: `plan is ${bytes} bytes; the limit is ${MAX_PLAN_BYTES} bytes (256 KiB)` }]);
  }
  const text = markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const nul = text.indexOf('\0');
  if (nul >= 0) return fail([{ line: text.slice(0, nul).split('\n').length, field: '(plan)', message: 'plans are text; remove the NUL character' }]);

  const split = splitFrontMatter(text);
  if ('issue' in split) return fail([split.issue]);

  const lineCounter = new LineCounter();
  const doc = parseDocument(split.yaml, { lineCounter, uniqueKeys: true, version: '1.2', schema: 'core', prettyErrors: false });
  // The front matter starts on file line 2; YAML lines are 1-based within it.
  const lineAt = (offset: number) => lineCounter.linePos(offset).line + 1;

  const yamlProblems = [...doc.errors, ...doc.warnings];
  if (yamlProblems.length > 0) {
    return fail(
      yamlProblems.map((problem) => ({
        line: lineAt(problem.pos[0]),
        field: fieldAtOffset(doc.contents, problem.pos[0]) ?? STRUCTURE,
        message: yamlMessage(problem.code, problem.message),
      })),
    );
  }
  if (doc.contents === null) return fail([{ line: 1, field: STRUCTURE, message: 'front matter is empty; it needs at least id, type and title' }]);
  if (!isMap(doc.contents)) {
    const found = isSeq(doc.contents) ? 'a list' : 'a single value';
    return fail([{ line: lineAt(doc.contents.range?.[0] ?? 0), field: STRUCTURE, message: `front matter must be a mapping of fields (key: value), found ${found}` }]);
  }

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    return fail([{ line: 2, field: STRUCTURE, message: `YAML could not be resolved: ${(error as Error).message}` }]);
  }
  const fields = data as Record<string, unknown>;

  const issues = forbiddenFields(doc, lineAt);
  if (options.parent) {
    if (fields.parent === undefined || fields.parent === null) {
      fields.parent = options.parent.id;
    } else if (fields.parent !== options.parent.id) {
      issues.push(issueAt(doc, ['parent'], lineAt, `plan names parent "${String(fields.parent)}" but is being added under "${options.parent.id}"`));
    }
    // §7.2: an absent skills list is inherited; an explicit one (even []) overrides the parent's.
    if (!('skills' in fields)) fields.skills = [...options.parent.skills];
  }
  fields.body = split.body;
  if (options.now) fields.created_at = options.now().toISOString();
  if (issues.length > 0) return fail(issues);

  const parsed = WorkItem.safeParse(fields);
  if (parsed.success) return { ok: true, item: parsed.data };
  return fail(parsed.error.issues.flatMap((issue) => zodIssueToPlanIssues(doc, issue, lineAt)));
}

/** Splits `---\n<yaml>\n---\n<body>`; the body loses leading blank lines and trailing whitespace. */
export function splitFrontMatter(text: string): { yaml: string; body: string } | { issue: PlanIssue } {
  const lines = text.split('\n');
  if (!DELIMITER.test(lines[0] ?? '')) {
    return { issue: { line: 1, field: STRUCTURE, message: 'a plan starts with YAML front matter: a line "---", the fields (id, type, title, ...), then a closing "---"' } };
  }
  const close = lines.findIndex((line, index) => index > 0 && DELIMITER.test(line));
  if (close < 0) return { issue: { line: 1, field: STRUCTURE, message: 'front matter is not closed; add a line "---" after the last field' } };
  const body = lines
    .slice(close + 1)
    .join('\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  return { yaml: lines.slice(1, close).join('\n'), body };
}

const BODY_MESSAGE = 'the body is the markdown after the closing "---"; remove body from the front matter';
const RUNTIME_MESSAGE = 'is managed by the runtime and cannot be set in a plan; remove it';

/** Fields a plan must not carry: the body has its own place, and runtime state is never planned. */
function forbiddenFields(doc: Document, lineAt: (offset: number) => number): PlanIssue[] {
  const issues: PlanIssue[] = [];
  if (!isMap(doc.contents)) return issues;
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : null;
    if (key === null) continue;
    const line = lineAt((pair.key as YamlNode).range?.[0] ?? 0);
    if (key === 'body') issues.push({ line, field: key, message: BODY_MESSAGE });
    if ((RUNTIME_MANAGED_FIELDS as readonly string[]).includes(key)) issues.push({ line, field: key, message: `${key} ${RUNTIME_MESSAGE}` });
  }
  return issues;
}

function yamlMessage(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'this key is given twice; keep one';
  if (code === 'TAG_RESOLVE_FAILED') return `${message}; plans use plain YAML values (no custom tags)`;
  return `invalid YAML: ${message.split('\n')[0]}`;
}

type Path = ReadonlyArray<PropertyKey>;

/** `verify[0].expect` style, as a person would write the field. */
function formatFieldPath(path: Path): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? STRUCTURE : out;
}

const TOP_LEVEL_FIELDS = WORK_ITEM_FIELDS.filter((field) => !(RUNTIME_MANAGED_FIELDS as readonly string[]).includes(field) && field !== 'body');

function zodIssueToPlanIssues(doc: Document, issue: z.core.$ZodIssue, lineAt: (offset: number) => number): PlanIssue[] {
  if (issue.code === 'unrecognized_keys') {
    const hint = issue.path.length === 0 ? `; known fields: ${TOP_LEVEL_FIELDS.join(', ')}` : '';
    return issue.keys.map((key) => issueAt(doc, [...issue.path, key], lineAt, `unknown field; check the spelling${hint}`));
  }
  const missing = issue.code === 'invalid_type' && !doc.hasIn(issue.path as unknown[]) && issue.path.length > 0;
  return [issueAt(doc, issue.path, lineAt, missing ? 'required field is missing' : issue.message)];
}

/** Points at the key of `path` when it exists, else at the deepest ancestor that does. */
function issueAt(doc: Document, path: Path, lineAt: (offset: number) => number, message: string): PlanIssue {
  const location = locateYamlPath(doc, path);
  return { line: lineAt(nodeStart(location.key) ?? nodeStart(location.node) ?? 0), field: formatFieldPath(path), message };
}

/** The field path of the node at a source offset, for YAML syntax errors. */
function fieldAtOffset(node: unknown, offset: number, path: Array<string | number> = []): string | null {
  const within = (n: unknown) => {
    const range = (n as YamlNode | null)?.range;
    return range !== undefined && range !== null && offset >= range[0] && offset < Math.max(range[1], range[0] + 1);
  };
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      if (within(pair.value)) return fieldAtOffset(pair.value, offset, [...path, key]) ?? formatFieldPath([...path, key]);
      // Between the key and its value sit the ":" and any tag or anchor: still this field.
      const start = pair.key.range?.[0] ?? Infinity;
      const end = (pair.value as YamlNode | null)?.range?.[1] ?? pair.key.range?.[1] ?? -Infinity;
      if (offset >= start && offset < Math.max(end, start + 1)) return formatFieldPath([...path, key]);
    }
  } else if (isSeq(node)) {
    for (const [index, item] of node.items.entries()) {
      if (within(item)) return fieldAtOffset(item, offset, [...path, index]) ?? formatFieldPath([...path, index]);
    }
  }
  return path.length > 0 ? formatFieldPath(path) : null;
}
