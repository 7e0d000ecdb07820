/*
 * A line diff for the policy History ("what would this version change in the editor?"). Policies
 * are short, so a plain longest-common-subsequence table over the lines that differ is enough;
 * the common head and tail are cut off first so that a one-line edit of a long file stays cheap.
 */

export type DiffKind = 'same' | 'removed' | 'added';

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

/** Above this many table cells (lines × lines of the part that differs) the diff gives up on alignment. */
export const MAX_DIFF_CELLS = 4_000_000;

/** The lines of a text; a final newline does not make an empty last line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The lines of `before` and `after` in order, each the same in both, only in `before` (removed) or only in `after` (added). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const same = (lines: string[]): DiffLine[] => lines.map((text) => ({ kind: 'same', text }));
  return [...same(a.slice(0, head)), ...middle(a.slice(head, a.length - tail), b.slice(head, b.length - tail)), ...same(a.slice(a.length - tail))];
}

function middle(a: string[], b: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ kind: 'removed', text });
  const added = (text: string): DiffLine => ({ kind: 'added', text });
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_DIFF_CELLS) return [...a.map(removed), ...b.map(added)];
  // lcs[i * width + j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i += 1;
      j += 1;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) {
      out.push(removed(a[i]!));
      i += 1;
    } else {
      out.push(added(b[j]!));
      j += 1;
    }
  }
  return [...out, ...a.slice(i).map(removed), ...b.slice(j).map(added)];
}

/** How many lines a diff removes and adds. */
export function diffCounts(lines: readonly DiffLine[]): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const line of lines) {
    if (line.kind === 'removed') removed += 1;
    else if (line.kind === 'added') added += 1;
  }
  return { removed, added };
}

/** One diff line as text, with the marker a unified diff uses. */
export function diffLineText(line: DiffLine): string {
  return `${line.kind === 'removed' ? '-' : line.kind === 'added' ? '+' : ' '} ${line.text}`;
}
