/* A line-based unified diff, enough to show a person what `silas clients wrap` will change. */

type Op = { kind: ' ' | '-' | '+'; line: string };

const CONTEXT = 3;
const MAX_CELLS = 4_000_000;

function diffLines(a: string[], b: string[]): Op[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const ops: Op[] = a.slice(0, prefix).map((line) => ({ kind: ' ', line }));
  if (midA.length * midB.length > MAX_CELLS) {
    ops.push(...midA.map((line): Op => ({ kind: '-', line })), ...midB.map((line): Op => ({ kind: '+', line })));
  } else {
    // Longest common subsequence, walked forwards from the table of suffix lengths.
    const n = midA.length;
    const m = midB.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * (m + 1) + j] = midA[i] === midB[j] ? table[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        ops.push({ kind: ' ', line: midA[i]! });
        i++;
        j++;
      } else if (j >= m || (i < n && table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!)) {
        // On a tie, delete first: a change reads as its old lines, then its new lines.
        ops.push({ kind: '-', line: midA[i]! });
        i++;
      } else {
        ops.push({ kind: '+', line: midB[j]! });
        j++;
      }
    }
  }
  ops.push(...a.slice(a.length - suffix).map((line): Op => ({ kind: ' ', line })));
  return ops;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** A unified diff of two texts with three lines of context; '' when they are equal. */
export function unifiedDiff(before: string, after: string, fromLabel: string, toLabel: string): string {
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
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    const oldStart = oldCount === 0 ? oldAt[start]! - 1 : oldAt[start]!;
    const newStart = newCount === 0 ? newAt[start]! - 1 : newAt[start]!;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of slice) out.push(`${op.kind}${op.line}`);
    k = end;
  }
  return out.join('\n');
}
