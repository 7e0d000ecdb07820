import { describe, expect, it } from 'vitest';
import { diagnosticRange } from './editor-positions.js';

const TEXT = 'apiVersion: aip.io/v1alpha2\nspec:\n  alowed_tools: [a]\n  mode: "x"\n\n';
const slice = (line: number, column: number) => {
  const { from, to } = diagnosticRange(TEXT, line, column);
  return TEXT.slice(from, to);
};

describe('diagnosticRange', () => {
  it('underlines the key or value that starts at the 1-based line and column', () => {
    expect(slice(3, 3)).toBe('alowed_tools');
    expect(slice(1, 13)).toBe('aip.io/v1alpha2');
    expect(slice(1, 1)).toBe('apiVersion');
  });

  it('underlines a quoted scalar whole, and one character where no token starts', () => {
    expect(slice(4, 9)).toBe('"x"');
    expect(slice(3, 17)).toBe('[');
    expect(slice(3, 15)).toBe(':');
  });

  it('clamps positions outside the text', () => {
    expect(diagnosticRange(TEXT, 2, 80)).toEqual({ from: TEXT.indexOf('spec:') + 5, to: TEXT.indexOf('spec:') + 5 });
    expect(diagnosticRange(TEXT, 0, 0)).toEqual({ from: 0, to: 'apiVersion'.length });
    expect(diagnosticRange(TEXT, 99, 1)).toEqual({ from: TEXT.length, to: TEXT.length });
    expect(diagnosticRange('', 1, 1)).toEqual({ from: 0, to: 0 });
  });
});
