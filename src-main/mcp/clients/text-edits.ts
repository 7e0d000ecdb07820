import type { JsonObjectNode, JsonProp } from './jsonc.js';

/* Splicing a client configuration's text: every byte outside an edit stays as it was. */

export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Splices every edit in one pass: thousands of entries in a large file stay linear. */
export function applyEdits(text: string, edits: Edit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const edit of sorted) {
    parts.push(text.slice(at, edit.start), edit.text);
    at = edit.end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

export function lineIndent(text: string, offset: number): string {
  const indent = /[ \t]*/y;
  indent.lastIndex = text.lastIndexOf('\n', offset - 1) + 1;
  return indent.exec(text)![0];
}

export function newlineOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}


/** `, "key": value`, on its own line when the object spreads over lines, placed after `after`. */
export function insertedProp(text: string, nl: string, object: JsonObjectNode, after: JsonProp, key: string, valueText: string): string {
  const colon = text.slice(after.keyEnd, after.value.start);
  const separator = /^\s*:\s*$/.test(colon) && !colon.includes('\n') ? colon : ': ';
  const multiline = text.slice(object.start, object.end).includes('\n');
  const lead = multiline ? `,${nl}${lineIndent(text, after.keyStart)}` : ', ';
  return `${lead}${JSON.stringify(key)}${separator}${valueText}`;
}

/** Removes a property together with the comma that joins it to its neighbour. */
export function removePropEdit(object: JsonObjectNode, prop: JsonProp): Edit {
  const index = object.props.indexOf(prop);
  if (index > 0) return { start: object.props[index - 1]!.value.end, end: prop.value.end, text: '' };
  const next = object.props[index + 1];
  if (next) return { start: prop.keyStart, end: next.keyStart, text: '' };
  return { start: prop.keyStart, end: prop.value.end, text: '' };
}
