import { describe, expect, it } from 'vitest';
import { LineSplitter, ndjsonFrame } from './ndjson.js';

function split(maxLine?: number) {
  const lines: string[] = [];
  let overflows = 0;
  const splitter = new LineSplitter((line) => lines.push(line), maxLine, () => overflows++);
  return { splitter, lines, overflows: () => overflows };
}

describe('newline-delimited framing', () => {
  it('joins partial lines across chunks and drops "\\r" and blank lines', () => {
    const { splitter, lines } = split();
    splitter.push('{"a"');
    splitter.push(':1}\r\n\n  \n{"b":2}\n{"c"');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c"']);
  });

  it('keeps a character whose bytes are split across chunks', () => {
    const { splitter, lines } = split();
    const bytes = new TextEncoder().encode('"é📝"\n');
    for (const byte of bytes) splitter.push(Uint8Array.of(byte));
    expect(lines).toEqual(['"é📝"']);
  });

  it('discards a line over the cap up to its newline, once, and carries on', () => {
    const { splitter, lines, overflows } = split(8);
    splitter.push('{"ok":1}\n0123456');
    splitter.push('789abc');
    splitter.push('def\n{"ok":2}\n');
    expect(lines).toEqual(['{"ok":1}', '{"ok":2}']);
    expect(overflows()).toBe(1);
  });

  it('hands out the partial line on request', () => {
    const { splitter, lines } = split();
    splitter.push('done\npart');
    expect(splitter.takePartial()).toBe('part');
    splitter.end();
    expect(lines).toEqual(['done']);
  });

  it('frames a value as one line', () => {
    expect(ndjsonFrame({ text: 'a\nb' })).toBe('{"text":"a\\nb"}\n');
  });
});
