import RE2 from 're2';
import { foldText } from './normalize.js';

/*
 * The character rules of the tool-definition scan: invisible characters anywhere in a definition,
 * and names or titles written with look-alike letters.
 *
 * Invisible characters are how instructions hide from the person approving a tool while the model
 * still reads them (Unicode tag characters spell ASCII invisibly; bidi controls reorder what is
 * shown; zero-width characters split words past a keyword filter). The word rules already see
 * through them (they run on the folded text), so this rule is about the disguise itself. Uses that
 * real text needs are left alone: a zero-width joiner or non-joiner between two non-ASCII
 * characters (emoji sequences, Persian and Indic scripts), a single variation selector (emoji
 * presentation), a soft hyphen inside a word, a left-to-right or right-to-left mark beside a
 * right-to-left letter.
 */

const INVISIBLE_RUN = new RE2(
  String.raw`[\x{00AD}\x{034F}\x{061C}\x{115F}\x{1160}\x{17B4}\x{17B5}\x{180B}-\x{180F}\x{200B}-\x{200F}\x{202A}-\x{202E}\x{2060}-\x{206F}\x{3164}\x{FE00}-\x{FE0F}\x{FEFF}\x{FFA0}\x{FFF9}-\x{FFFB}\x{1BCA0}-\x{1BCA3}\x{1D173}-\x{1D17A}\x{E0000}-\x{E007F}\x{E0100}-\x{E01EF}]+`,
  'gu',
);
const RTL_LETTER = new RE2(String.raw`^[\p{Hebrew}\p{Arabic}\p{Syriac}\p{Thaana}\p{Nko}]`, 'u');
const LETTER = new RE2(String.raw`^\p{L}`, 'u');
const MAX_RUNS_PER_STRING = 8;

export interface CharFinding {
  start: number;
  end: number;
  description: string;
}

function codePoints(run: string): number[] {
  return Array.from(run, (ch) => ch.codePointAt(0)!);
}

/** The character before `index` and the one at `index` (whole code points). */
function neighbours(text: string, start: number, end: number): { before: string; after: string } {
  const previous = start > 0 ? text.codePointAt(start - 1 >= 1 && isLowSurrogate(text.charCodeAt(start - 1)) ? start - 2 : start - 1) : undefined;
  const next = end < text.length ? text.codePointAt(end) : undefined;
  return { before: previous === undefined ? '' : String.fromCodePoint(previous), after: next === undefined ? '' : String.fromCodePoint(next) };
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

function isVisibleNonAscii(ch: string): boolean {
  return ch !== '' && ch.codePointAt(0)! >= 0x80 && !/\s/u.test(ch);
}

/** Whether this run is one of the uses real text needs (see the file comment). */
function isOrdinaryUse(text: string, start: number, end: number, cps: number[]): boolean {
  if (cps.length === 1 && (cps[0] === 0xfe0e || cps[0] === 0xfe0f)) return true;
  const { before, after } = neighbours(text, start, end);
  const joiners = cps.every((cp) => cp === 0x200c || cp === 0x200d || cp === 0xfe0f);
  if (joiners && cps.length <= 2 && isVisibleNonAscii(before) && isVisibleNonAscii(after)) return true;
  if (cps.length === 1 && cps[0] === 0xad && LETTER.test(before) && LETTER.test(after)) return true;
  const marks = cps.every((cp) => cp === 0x200e || cp === 0x200f || cp === 0x061c);
  return marks && cps.length <= 2 && (RTL_LETTER.test(before) || RTL_LETTER.test(after));
}

function describeRun(cps: number[]): string {
  const tags = cps.filter((cp) => cp >= 0xe0020 && cp <= 0xe007e).map((cp) => String.fromCharCode(cp - 0xe0000));
  const distinct = [...new Set(cps)].slice(0, 3).map((cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`);
  const what = `${cps.length} invisible character${cps.length === 1 ? '' : 's'} (${distinct.join(', ')}${new Set(cps).size > 3 ? ', …' : ''})`;
  if (tags.length > 0) return `${what} spelling "${tags.join('').slice(0, 80)}" in Unicode tag characters, which the model reads and the person does not see`;
  return `${what}, which the person does not see but the model reads`;
}

/**
 * Where each of `matches` (one native global match, leftmost first, non-overlapping) sits in
 * `text`. One call instead of an exec per match, which would convert the text again every time.
 * Exact for maximal runs of a character class: an earlier occurrence of a match's text after the
 * previous match would itself have been the leftmost match.
 */
function* locate(text: string, matches: string[] | null): Generator<{ start: number; end: number }> {
  let from = 0;
  for (const match of matches ?? []) {
    const start = text.indexOf(match, from);
    if (start < 0) return;
    from = start + match.length;
    yield { start, end: from };
  }
}

/** Runs of invisible characters in `text` (the original string), at most a few per string. */
export function invisibleRuns(text: string): CharFinding[] {
  const found: CharFinding[] = [];
  for (const { start, end } of locate(text, INVISIBLE_RUN.match(text))) {
    if (found.length >= MAX_RUNS_PER_STRING) break;
    const cps = codePoints(text.slice(start, end));
    if (!isOrdinaryUse(text, start, end, cps)) found.push({ start, end, description: describeRun(cps) });
  }
  return found;
}

/*
 * Look-alike names. MCP tool names are ASCII identifiers, so a name with non-ASCII letters that
 * folds to ASCII (`reаd_file` with a Cyrillic а, `ｒｅａｄ` in fullwidth) impersonates the tool it
 * reads as. Titles are prose and may be written in any script, so for them only a *word* mixing
 * Latin with Cyrillic, Greek, Armenian or Cherokee letters counts, or a word whose compatibility
 * form is plain ASCII (fullwidth and mathematical letters): a Greek or Russian title passes.
 */

const NON_ASCII = new RE2('[^\\x00-\\x7F]', 'u');
const LATIN = new RE2('\\p{Latin}', 'u');
const CONFUSABLE_SCRIPT = new RE2('[\\p{Cyrillic}\\p{Greek}\\p{Armenian}\\p{Cherokee}]', 'u');
const WORD = new RE2(String.raw`[\p{L}\p{M}\p{N}_]+`, 'gu');
const MAX_TITLE = 4096;
const STRIP_INVISIBLE = new RE2(INVISIBLE_RUN.source, 'gu');

function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

function mixesScripts(word: string): boolean {
  return LATIN.test(word) && CONFUSABLE_SCRIPT.test(word);
}

/** A tool name written with look-alike characters, or null. */
export function homoglyphName(name: string): CharFinding | null {
  const visible = STRIP_INVISIBLE.replace(name, '');
  if (isAscii(visible)) return null;
  const reads = foldText(visible).text;
  if (isAscii(reads)) return { start: 0, end: name.length, description: `The name reads as "${reads.slice(0, 80)}" but is written with look-alike characters` };
  if (mixesScripts(visible)) return { start: 0, end: name.length, description: 'The name mixes Latin letters with letters of another script that look alike' };
  return null;
}

/** The first word of a title written with look-alike characters, or null. */
export function homoglyphTitle(title: string): CharFinding | null {
  if (isAscii(title)) return null;
  // Titles are a few words; a longer one is judged on its beginning (the word rules read all of it).
  const head = title.slice(0, MAX_TITLE);
  for (const { start, end } of locate(head, WORD.match(head))) {
    const word = head.slice(start, end);
    if (isAscii(word)) continue;
    const compatible = word.normalize('NFKC');
    if (mixesScripts(word) || (compatible !== word && isAscii(compatible))) {
      const reads = foldText(word).text;
      return { start, end, description: `The title word "${reads.slice(0, 80)}" is written with look-alike characters` };
    }
  }
  return null;
}
