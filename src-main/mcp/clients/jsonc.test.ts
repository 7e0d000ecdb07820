import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, parseJsonText, toValue } from './jsonc.js';

function fails(text: string, jsonc = false): JsonSyntaxError {
  try {
    parseJsonText(text, { jsonc });
  } catch (error) {
    expect(error).toBeInstanceOf(JsonSyntaxError);
    return error as JsonSyntaxError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('position-tracking JSON parser', () => {
  it('agrees with JSON.parse on ordinary documents', () => {
    const samples = [
      '{"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {"c": {}}, "d": []}',
      '  {\n\t"é 📝": "\\"quoted\\" \\\\ \\/"\r\n}\n',
      '[]',
      '"just a string"',
      '0',
    ];
    for (const text of samples) expect(toValue(parseJsonText(text, { jsonc: false }))).toEqual(JSON.parse(text));
  });

  it('records where each value and key sits', () => {
    const text = '{\n  "a": [1, "two"],\n  "b": {"c": null}\n}';
    const root = parseJsonText(text, { jsonc: false });
    if (root.kind !== 'object') throw new Error('object expected');
    const [a, b] = root.props;
    expect(text.slice(a!.keyStart, a!.keyEnd)).toBe('"a"');
    expect(text.slice(a!.value.start, a!.value.end)).toBe('[1, "two"]');
    expect(text.slice(b!.value.start, b!.value.end)).toBe('{"c": null}');
    expect([root.start, root.end]).toEqual([0, text.length]);
  });

  it('skips a leading byte-order mark', () => {
    expect(toValue(parseJsonText('\uFEFF{"a": 1}', { jsonc: false }))).toEqual({ a: 1 });
  });

  it('refuses what JSON does not allow, with line and column', () => {
    expect(fails('{\n  "a": 1,\n}')).toMatchObject({ line: 3, column: 1, message: expect.stringContaining('trailing comma') });
    expect(fails('{"a": 1} // note').message).toContain('comments are not allowed');
    expect(fails('{"a": 1 "b": 2}').message).toContain('expected "," or "}"');
    expect(fails("{'a': 1}").message).toContain('quoted');
    expect(fails('{"a": 01}').message).toContain('expected "," or "}"');
    expect(fails('{"a": "tab\there"}').message).toContain('control character');
    expect(fails('{"a": "\\x"}').message).toContain('invalid escape');
    expect(fails('{"a": 1}}').message).toContain('after the end');
    expect(fails('').message).toContain('empty');
    expect(fails('{"a": NaN}').message).toContain('expected a JSON value');
    expect(fails('{"a": "open').message).toContain('unterminated string');
    expect(fails('['.repeat(300) + ']'.repeat(300)).message).toContain('nested deeper');
  });

  it('refuses duplicate keys, which a client would resolve silently', () => {
    expect(fails('{"mcpServers": {"a": {}, "a": {}}}')).toMatchObject({ line: 1, column: 26, message: expect.stringContaining('duplicate key "a"') });
    expect(fails('{"a": 1, "a": 1}', true).message).toContain('duplicate key');
  });

  it('accepts comments and trailing commas in JSONC mode', () => {
    const text = '// user MCP servers\n{\n  /* block */ "servers": {\n    "a": {"command": "x", "args": ["1",],}, // trailing\n  },\n}\n';
    expect(toValue(parseJsonText(text, { jsonc: true }))).toEqual({ servers: { a: { command: 'x', args: ['1'] } } });
    expect(fails('{"a": 1 /* open', true).message).toContain('unterminated /* comment');
    expect(fails('{,}', true).message).toContain('quoted');
  });
});
