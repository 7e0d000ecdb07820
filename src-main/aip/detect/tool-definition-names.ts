import RE2 from 're2';

/*
 * cross_tool_shadowing by name: a definition that gives instructions about one of the other tools
 * the proxy knows ("when send_email is called, …", "instead of read_file …", "do not use
 * github.create_issue"). Mentioning another tool is ordinary ("use list_tables to find the names"),
 * so a name counts only inside an instruction about it: a trigger or prohibition right before it
 * (only filler words between), or a modal right after it ("send_email must always …").
 *
 * Names are looked up, not compiled into a regex: the text's tokens are matched against a Set, so
 * a thousand announced names cost nothing extra and no hostile name reaches a pattern. A name that
 * is an ordinary word ("search", "fetch", "read") is taken only when it reads as a tool name —
 * quoted, in backticks or followed by "tool" — so "do not read the file" is not about a tool `read`.
 */

const MAX_NAMES = 2000;
const MAX_NAME_LENGTH = 128;
const MAX_TOKENS = 20_000;


/**
 * What must come right before the name, at the end of the text before it. "if" and "after" are
 * left out: "if list_tables returns nothing, …" and "after create_branch, …" are how a server's
 * own tools are explained; "before", "when" and prohibitions are how another tool is hijacked.
 */
const BEFORE = new RE2(
  String.raw`\b(?:when(?:ever)?|before|each\s+time|every\s+time|instead\s+of|rather\s+than|in\s+place\s+of|do\s+not|don'?t|never)(?:\s+(?:the|user|agent|assistant|model|you|asks?|wants?|tries|decides?|needs?|to|is|are|about|using|calling|invoking|running|executing|use|call|calls|invoke|run|execute|any|of|trust|rely|on))*\s+['"\x60\u2018\u201c]?$`,
  'iu',
);

/** What may come right after the name instead: the other tool as the subject of an order. */
const AFTER = new RE2(
  String.raw`^['"\x60\u2019\u201d]?\s*(?:tool\s+|function\s+)?(?:(?:is|are|gets)\s+(?:called|used|invoked|run|executed)\b|(?:must|should|shall)\s+(?:always|never|only|not|first|also)\b|(?:must|should)\s+be\s+(?:called|used|invoked)\s+(?:only|never|after|with)\b)`,
  'iu',
);

/** After a plain-word name: quoted, or "tool" right after it. */
const QUOTED_AFTER = new RE2(String.raw`^(?:['"\x60\u2019\u201d]|\s+tool\b)`, 'iu');
const QUOTED_BEFORE = new RE2(String.raw`['"\x60\u2018\u201c]$`, 'u');
const PLAIN_WORD = new RE2('^[a-z]+$', 'u');

export interface ToolNameIndex {
  /** Lower-cased names. */
  names: ReadonlySet<string>;
  /** Their lengths: most tokens of a text are skipped on length alone. */
  lengths: ReadonlySet<number>;
}

/** The proxy passes one list for every tool of a tools/list: built once per list. */
const indexes = new WeakMap<readonly unknown[], ToolNameIndex>();

/** The other tools' names as a lookup, bounded; non-strings and oversized names ignored. */
export function toolNameIndex(otherTools: readonly unknown[]): ToolNameIndex {
  const cached = indexes.get(otherTools);
  if (cached) return cached;
  const names = new Set<string>();
  const lengths = new Set<number>();
  for (const name of otherTools.slice(0, MAX_NAMES)) {
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_LENGTH) continue;
    names.add(name.toLowerCase());
    lengths.add(name.length);
  }
  const index = { names, lengths };
  indexes.set(otherTools, index);
  return index;
}

function isWordUnit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isJoinUnit(c: number): boolean {
  return c === 0x2e || c === 0x2f || c === 0x3a || c === 0x2d;
}

/**
 * The spans of `text` that are known tool names. Tokens that can be tool names: MCP names are
 * `[A-Za-z0-9_.-]`, some hosts add `/` or `:` prefixes; a token starts and ends with a letter,
 * digit or `_` ("read_file." ends a sentence). A plain loop, one pass: a regex exec per token would
 * convert the text again on every call.
 */
function knownNames(text: string, index: ToolNameIndex, exclude: ReadonlySet<string>): { start: number; end: number; name: string }[] {
  const found: { start: number; end: number; name: string }[] = [];
  let count = 0;
  let i = 0;
  const n = text.length;
  while (i < n && count < MAX_TOKENS) {
    if (!isWordUnit(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    const start = i;
    let end = i + 1;
    let j = i + 1;
    for (; j < n; j += 1) {
      const c = text.charCodeAt(j);
      if (isWordUnit(c)) end = j + 1;
      else if (!isJoinUnit(c)) break;
    }
    count += 1;
    i = j;
    if (!index.lengths.has(end - start)) continue;
    const name = text.slice(start, end).toLowerCase();
    if (index.names.has(name) && !exclude.has(name)) found.push({ start, end, name });
  }
  return found;
}

export interface NamedReference {
  name: string;
  start: number;
  end: number;
}

/** Every instruction about another known tool (not one of `exclude`) in `text` (a folded view), with its span (from the trigger word to the name or the modal). */
export function namedToolInstructions(text: string, index: ToolNameIndex, exclude: ReadonlySet<string>): NamedReference[] {
  if (index.names.size === 0 || text.length === 0) return [];
  const found: NamedReference[] = [];
  for (const { start, end, name: token } of knownNames(text, index, exclude)) {
    const before = text.slice(Math.max(0, start - 120), start);
    const after = text.slice(end, end + 60);
    if (PLAIN_WORD.test(token) && !QUOTED_BEFORE.test(before) && !QUOTED_AFTER.test(after)) continue;
    const lead = BEFORE.exec(before);
    if (lead !== null) {
      found.push({ name: token, start: start - before.length + lead.index, end });
      continue;
    }
    const tail = AFTER.exec(after);
    if (tail !== null) found.push({ name: token, start, end: end + tail[0].length });
  }
  return found;
}
