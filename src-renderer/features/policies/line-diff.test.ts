import { describe, expect, it } from 'vitest';
import { diffCounts, diffLineText, lineDiff, MAX_DIFF_EDITS, splitLines } from './line-diff.js';

const render = (before: string, after: string) => lineDiff(before, after).map(diffLineText);

describe('lineDiff', () => {
  it('splits lines without an empty last line for a final newline, and reads CRLF', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\r\nb')).toEqual(['a', 'b']);
    expect(splitLines('a\n\n')).toEqual(['a', '']);
  });

  it('reports identical texts as unchanged lines', () => {
    expect(render('a\nb\n', 'a\nb\n')).toEqual(['  a', '  b']);
    expect(diffCounts(lineDiff('a\nb', 'a\nb'))).toEqual({ removed: 0, added: 0 });
  });

  it('marks a changed line as removed then added, keeping the lines around it', () => {
    const before = 'spec:\n  mode: enforce\n  allowed_tools:\n    - read_file\n';
    const after = 'spec:\n  mode: monitor\n  allowed_tools:\n    - read_file\n';
    expect(render(before, after)).toEqual(['  spec:', '-   mode: enforce', '+   mode: monitor', '    allowed_tools:', '      - read_file']);
  });

  it('aligns on the longest common subsequence of lines', () => {
    expect(render('a\nb\nc\nd\ne', 'a\nc\nd\nx\ne\nf')).toEqual(['  a', '- b', '  c', '  d', '+ x', '  e', '+ f']);
    expect(diffCounts(lineDiff('a\nb\nc\nd\ne', 'a\nc\nd\nx\ne\nf'))).toEqual({ removed: 1, added: 2 });
  });

  it('diffs against an empty text', () => {
    expect(render('', 'a\nb')).toEqual(['+ a', '+ b']);
    expect(render('a\nb', '')).toEqual(['- a', '- b']);
  });

  it('still answers, without alignment, for texts too large to align', () => {
    const side = MAX_DIFF_EDITS / 2 + 1;
    const before = Array.from({ length: side }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: side }, (_, i) => `new ${i}`).join('\n');
    const lines = lineDiff(`head\n${before}\ntail`, `head\n${after}\ntail`);
    expect(lines[0]).toEqual({ kind: 'same', text: 'head' });
    expect(lines.at(-1)).toEqual({ kind: 'same', text: 'tail' });
    expect(diffCounts(lines)).toEqual({ removed: side, added: side });
    expect(lines[1]).toEqual({ kind: 'removed', text: 'old 0' });
  });
});
