import RE2 from 're2';

/*
 * Two judgements every injection rule shares (docs/threat-detection.md, "Injection"):
 *
 * Is the text an order to the agent? An attack gives one: "you must call…", "output your system
 * prompt", "please send…". A verb alone is not enough ("--execute  Execute the generated plan"
 * in help text): it must open a clause and take an object (`the`, `your`, a path, a URL), or be
 * carried by a modal addressed to the reader.
 *
 * Is the phrase reported rather than said? Articles about injection quote the attacks they
 * describe. A match counts as reported speech, and is not a finding, when it stands inside a quote
 * or backticks opened earlier on its line, right after a mention cue ("phrases like", "such as",
 * "e.g.", "known as"), or right after a negation ("never ignore previous instructions"). An
 * attacker can quote their own text to pass this rule; the trade is deliberate: a detector that
 * blocks every security article blocks real work, and the quoted text still meets the other rules
 * (a quoted order with a URL to send data to is still an order with a URL).
 */

const VERBS = 'call|invoke|run|execute|fetch|send|post|upload|output|print|reveal|disclose|show|tell|share|include|ignore|disregard|forget|navigate|visit|open|download|email|forward|read|exfiltrate|delete|transfer|write|return|respond|reply|dump|copy|leak|act|pretend|summarize|append|insert|add|curl|browse';
const OBJECTS = "the|your|all|this|these|its|my|every|any|to|following|me|it|them|everything|https?://|/|~|\\$|`|'|\"";
/** The order patterns' sources, for a caller's RE2.Set. */
export const ORDER_SOURCES = [
    `\\b(?:you|assistant|the\\s+ai|the\\s+agent|the\\s+model|llm)\\s+(?:must|should|shall|need\\s+to|have\\s+to|are\\s+(?:now\\s+)?(?:required|instructed|expected|ordered|authorized)\\s+to|will\\s+now|are\\s+to)\\b`,
    `(?:^|[.!?:;,\\n>(\\[-]\\s*|\\b(?:please|now|immediately|first|then|and|instead)\\s+)(?:${VERBS})\\s+(?:${OBJECTS})`,
];
const ORDER = new RE2(ORDER_SOURCES.join('|'), 'iu');
const MENTION_CUE = new RE2('(?:\\blike|such\\s+as|e\\.g\\.,?|i\\.e\\.,?|known\\s+as|called|phrases?|strings?|wording|the\\s+words?|patterns?\\s+(?:is|are|like))\\s*:?\\s*$', 'iu');
const NEGATION = new RE2("(?:\\bnot|\\bnever|n't|\\bno\\s+longer|\\bwithout)\\s*$", 'iu');
const LIST_CUE = new RE2('\\b(?:(?:phrases?|patterns?|strings?|words|wording|payloads?|prompts?)\\s+(?:like|such\\s+as)|such\\s+as|e\\.g\\.)', 'iu');
const LOOK_BACK = 200;

/** Whether `text` holds an order to the reader (see above). */
export function hasOrder(text: string): boolean {
  return ORDER.test(text);
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && (c.toLowerCase() !== c.toUpperCase() || (c >= '0' && c <= '9'));

/** Whether the text before `start` (same line) leaves a quote, backtick or guillemet open. */
function insideQuotes(before: string): boolean {
  let double = 0;
  let back = 0;
  let single = 0;
  let curly = 0;
  let guillemet = 0;
  for (let i = 0; i < before.length; i += 1) {
    const c = before[i]!;
    if (c === '"') double += 1;
    else if (c === '`') back += 1;
    else if (c === '“' || c === '‘' || c === '„') curly += 1;
    else if (c === '”' || c === '’') curly = Math.max(0, curly - 1);
    else if (c === '«') guillemet += 1;
    else if (c === '»') guillemet = Math.max(0, guillemet - 1);
    else if (c === "'") {
      // An apostrophe between letters (don't, agent's) is not a quote.
      const prev = before[i - 1];
      const next = before[i + 1];
      if (!isWordChar(prev) && (next === undefined || isWordChar(next))) single += 1;
      else if (isWordChar(prev) && !isWordChar(next)) single = Math.max(0, single - 1);
    }
  }
  return (double % 2 === 1 && !opensDataString(before)) || back % 2 === 1 || single > 0 || curly > 0 || guillemet > 0;
}

/**
 * Whether the last `"` of `before` opens a data string rather than a quotation: a JSON value
 * (`"key": "…`, `["…`, `, "…`) or a markup attribute (`content="…`). Tool results are often JSON
 * as text; its values are what the server says, not something it quotes.
 */
function opensDataString(before: string): boolean {
  let i = before.lastIndexOf('"') - 1;
  while (i >= 0 && (before[i] === ' ' || before[i] === '\t')) i -= 1;
  const c = before[i];
  if (c === '[' || c === '{') return true;
  if (c === '=') return isWordChar(before[i - 1]);
  if (c !== ':' && c !== ',') return false;
  // `"key": "…` and `1, "…` are JSON; `is: "…` and `said, "…` are prose.
  let j = i - 1;
  while (j >= 0 && (before[j] === ' ' || before[j] === '\t')) j -= 1;
  const p = before[j];
  return p === '"' || (c === ',' && p !== undefined && (p === ']' || p === '}' || (p >= '0' && p <= '9')));
}

/** Whether the match at [start, …) of `text` is reported speech: quoted, mentioned or negated. */
export function isReported(text: string, start: number): boolean {
  const window = text.slice(Math.max(0, start - LOOK_BACK), start);
  const before = window.slice(window.lastIndexOf('\n') + 1);
  if (insideQuotes(before)) return true;
  const near = before.slice(-40);
  if (MENTION_CUE.test(near) || NEGATION.test(near)) return true;
  // A list of mentioned phrases: "phrases like X or Y" — the cue opened the sentence's list.
  const sentence = before.slice(Math.max(before.lastIndexOf('. '), before.lastIndexOf('! '), before.lastIndexOf('? ')) + 1);
  return LIST_CUE.test(sentence) && (near.trimEnd().endsWith(' or') || near.trimEnd().endsWith(' and') || near.trimEnd().endsWith(','));
}

/** The end of the sentence (or line) that `from` is in, at most `max` characters on. */
export function sentenceEnd(text: string, from: number, max = 300): number {
  const limit = Math.min(text.length, from + max);
  for (let i = from; i < limit; i += 1) {
    const c = text[i];
    if (c === '\n' || ((c === '.' || c === '!' || c === '?') && (i + 1 >= text.length || text[i + 1] === ' ' || text[i + 1] === '\n'))) return i + 1;
  }
  return limit;
}

/** The end of the paragraph (blank line) that `from` is in, at most `max` characters on. */
export function paragraphEnd(text: string, from: number, max = 400): number {
  const blank = text.slice(from, from + max).indexOf('\n\n');
  return blank < 0 ? Math.min(text.length, from + max) : from + blank;
}
