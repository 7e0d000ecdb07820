/*
 * Where a runtime diagnostic (1-based line and column, as the loader reports them) sits in the
 * editor's text. Pure, so it is tested without CodeMirror.
 */

export interface TextRange {
  from: number;
  to: number;
}

/** The characters a YAML key or plain scalar is made of, for the underline's extent. */
const TOKEN = /[^\s:,[\]{}#]/;

/**
 * The range to underline for a problem at `line`:`column`: from that character to the end of the
 * token that starts there (at least one character when the line has one). Positions past the end
 * of the text, or line 0 (no position), are clamped into it.
 */
export function diagnosticRange(text: string, line: number, column: number): TextRange {
  let start = 0;
  for (let current = 1; current < Math.max(1, line); current += 1) {
    const next = text.indexOf('\n', start);
    if (next < 0) break;
    start = next + 1;
  }
  const newline = text.indexOf('\n', start);
  const lineEnd = newline < 0 ? text.length : newline;
  const from = Math.min(start + Math.max(0, column - 1), lineEnd);
  let to = from;
  while (to < lineEnd && TOKEN.test(text[to]!)) to += 1;
  if (to === from && from < lineEnd) to = from + 1;
  return { from, to };
}
