import { diffArrays } from 'diff';

/*
 * The unified diff `silas clients wrap` shows a person before it changes anything. The `diff`
 * library finds the changes; this module keeps that bounded on large files and the preview short.
 *
 * Myers' algorithm costs O(lines × changes): wrapping 5,000 servers in a 2 MB file took over a
 * minute in one piece. Lines that occur exactly once in each text and keep their order
 * (patience-style anchors: server names, mostly) cut the texts into small gaps, and the library
 * diffs each gap on its own. A gap the library cannot finish within MAX_EDIT_LENGTH is shown as
 * its old lines, then its new lines: still a correct diff, only a longer one.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

const CONTEXT = 3;
const MAX_EDIT_LENGTH = 2000;
/** The preview shows at most this many lines; the rest is summarised in its last line. */
export const MAX_PREVIEW_LINES = 2000;

function splitLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Indices [i in a, j in b] of lines unique in both texts, the longest run increasing in both. */
function anchors(a: string[], b: string[]): [number, number][] {
  const count = (lines: string[]) => {
    const seen = new Map<string, number>();
    lines.forEach((line, i) => seen.set(line, seen.has(line) ? -1 : i));
    return seen;
  };
  const inA = count(a);
  const inB = count(b);
  const pairs: [number, number][] = [];
  for (const [line, i] of inA) {
    const j = inB.get(line);
    if (i >= 0 && j !== undefined && j >= 0) pairs.push([i, j]);
  }
  pairs.sort((x, y) => x[0] - y[0]);
  // Longest increasing subsequence of j (patience sorting), kept as back-links.
  const tails: number[] = [];
  const back = new Int32Array(pairs.length).fill(-1);
  pairs.forEach(([, j], k) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < j) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[k] = tails[lo - 1]!;
    tails[lo] = k;
  });
  const chain: [number, number][] = [];
  for (let k = tails.length > 0 ? tails[tails.length - 1]! : -1; k >= 0; k = back[k]!) chain.push(pairs[k]!);
  return chain.reverse();
}

function diffGap(a: string[], b: string[], ops: Op[]): void {
  if (a.length === 0 || b.length === 0) {
    for (const line of a) ops.push({ kind: '-', line });
    for (const line of b) ops.push({ kind: '+', line });
    return;
  }
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDIT_LENGTH });
  if (!changes) {
    for (const line of a) ops.push({ kind: '-', line });
    for (const line of b) ops.push({ kind: '+', line });
    return;
  }
  for (const change of changes) {
    const kind = change.added ? '+' : change.removed ? '-' : ' ';
    for (const line of change.value) ops.push({ kind, line });
  }
}

function diffLines(a: string[], b: string[]): Op[] {
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj] of [...anchors(a, b), [a.length, b.length] as [number, number]]) {
    diffGap(a.slice(i, ai), b.slice(j, bj), ops);
    if (ai < a.length) ops.push({ kind: ' ', line: a[ai]! });
    i = ai + 1;
    j = bj + 1;
  }
  return ops;
}

/**
 * A unified diff of two texts with three lines of context; '' when they are equal. At most
 * `maxLines` lines (headers included) are shown, whole hunks only, then one line saying how many
 * hunks were left out.
 */
export function unifiedDiff(before: string, after: string, fromLabel: string, toLabel: string, maxLines = MAX_PREVIEW_LINES): string {
  if (before === after) return '';
  const ops = diffLines(splitLines(before), splitLines(after));
  const out = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  // Positions (1-based line numbers) of each op in the old and new text.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let o = 1;
  let n = 1;
  for (const op of ops) {
    oldAt.push(o);
    newAt.push(n);
    if (op.kind !== '+') o++;
    if (op.kind !== '-') n++;
  }
  let left = 0;
  let k = 0;
  while (k < ops.length) {
    if (ops[k]!.kind === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - CONTEXT);
    let end = k;
    // Extend the hunk while the next change is within 2×CONTEXT unchanged lines.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * CONTEXT) {
        end = next;
        continue;
      }
      end = Math.min(ops.length, end + CONTEXT);
      break;
    }
    const slice = ops.slice(start, end);
    k = end;
    if (left > 0 || out.length + slice.length + 1 > maxLines) {
      left++;
      continue;
    }
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    const oldStart = oldCount === 0 ? oldAt[start]! - 1 : oldAt[start]!;
    const newStart = newCount === 0 ? newAt[start]! - 1 : newAt[start]!;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of slice) out.push(`${op.kind}${op.line}`);
  }
  if (left > 0) out.push(`# ${left} more ${left === 1 ? 'hunk' : 'hunks'} not shown: a preview shows at most ${maxLines} lines; applying writes every change`);
  return out.join('\n');
}
