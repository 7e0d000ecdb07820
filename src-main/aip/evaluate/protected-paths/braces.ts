import { LimitReached } from './scan.js';

// Bash brace expansion of one candidate word (docs/protected-paths.md "How candidates are read").

/** Bash brace expansion (`{a,b}`, `{a..c}`, `{1..3}`); throws past `max` words. */
export function braceExpand(word: string, max: number): string[] {
  const results: string[] = [];
  const queue = [word];
  while (queue.length > 0) {
    const w = queue.pop()!;
    const group = findBraceGroup(w);
    if (!group) {
      results.push(w);
      if (results.length > max) throw new LimitReached('too_large', `brace expansion of more than ${max} words`);
      continue;
    }
    const { start, end, options } = group;
    for (const o of options) {
      queue.push(w.slice(0, start) + o + w.slice(end + 1));
      if (queue.length + results.length > max) throw new LimitReached('too_large', `brace expansion of more than ${max} words`);
    }
  }
  return results;
}

/**
 * One expandable group of `w` (`{a,b}` or `{x..y}`, not `${…}`) in one linear pass: the first
 * to close, so the innermost first; the caller expands the rest in later passes.
 */
function findBraceGroup(w: string): { start: number; end: number; options: string[] } | null {
  const stack: { start: number; commas: number[]; dollar: boolean }[] = [];
  for (let j = 0; j < w.length; j += 1) {
    const c = w.charCodeAt(j);
    if (c === 0x7b /* { */) {
      stack.push({ start: j, commas: [], dollar: j > 0 && w[j - 1] === '$' });
    } else if (c === 0x2c /* , */) {
      stack[stack.length - 1]?.commas.push(j);
    } else if (c === 0x7d /* } */) {
      const group = stack.pop();
      if (!group || group.dollar) continue;
      if (group.commas.length > 0) {
        const options: string[] = [];
        let from = group.start + 1;
        for (const k of group.commas) {
          options.push(w.slice(from, k));
          from = k + 1;
        }
        options.push(w.slice(from, j));
        return { start: group.start, end: j, options };
      }
      if (j - group.start <= 48) {
        const seq = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])$/.exec(w.slice(group.start + 1, j));
        if (seq) return { start: group.start, end: j, options: sequence(seq[1]!, seq[2]!) };
      }
    }
  }
  return null;
}

function sequence(a: string, b: string): string[] {
  const numeric = /^-?\d+$/.test(a) && /^-?\d+$/.test(b);
  const from = numeric ? Number(a) : a.charCodeAt(0);
  const to = numeric ? Number(b) : b.charCodeAt(0);
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let v = from; step > 0 ? v <= to : v >= to; v += step) {
    out.push(numeric ? String(v) : String.fromCharCode(v));
    if (out.length > 1024) break;
  }
  return out;
}
