import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';

/**
 * "line L, column C: not valid JSON (what)" for text JSON.parse refused. Node's own message does not
 * always carry a position and may quote the text, so the position comes from a second, strict
 * parse (jsonc-parser with comments and trailing commas refused) and the text is never quoted.
 * Used wherever a person's JSON is read: policy suites, Alignment Cards, AAP files.
 */
export function jsonErrorAt(text: string): string {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return 'not valid JSON; check the end of the file';
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}: not valid JSON (${printParseErrorCode(first.error)})`;
}
