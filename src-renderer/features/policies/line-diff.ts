/*
 * A line diff for the policy History ("what would this version change in the editor?"), computed
 * by `diff` (Myers' algorithm, the one git uses) over the lines of both texts.
 */
import { diffArrays } from 'diff';

type DiffKind = 'same' | 'removed' | 'added';

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

/**
 * Above this many removed plus added lines the diff gives up on alignment: Myers' cost grows with
 * the edit length, and two texts this different are read as one replaced by the other anyway.
 */
export const MAX_DIFF_EDITS = 1_000;

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
  const changes = diffArrays(a, b, { maxEditLength: MAX_DIFF_EDITS });
  if (!changes) return unaligned(a, b);
  return changes.flatMap((change) => {
    const kind: DiffKind = change.removed ? 'removed' : change.added ? 'added' : 'same';
    return change.value.map((text) => ({ kind, text }));
  });
}

/** Too different to align: the common head and tail stay, everything between is removed, then added. */
function unaligned(a: string[], b: string[]): DiffLine[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const lines = (kind: DiffKind, texts: string[]): DiffLine[] => texts.map((text) => ({ kind, text }));
  return [
    ...lines('same', a.slice(0, head)),
    ...lines('removed', a.slice(head, a.length - tail)),
    ...lines('added', b.slice(head, b.length - tail)),
    ...lines('same', a.slice(a.length - tail)),
  ];
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
