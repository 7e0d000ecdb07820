import { describe, expect, it } from 'vitest';
import { INVALID_REQUEST, PARSE_ERROR, parseClientLine } from './client-message.js';
import { parseStrictJson } from './strict-json.js';

describe('parseStrictJson', () => {
  it('parses what JSON.parse parses, to the same value', () => {
    for (const text of ['{"a":[1,2.5,-3e2,true,false,null,"x\\u00e9\\n"],"b":{}}', '[]', '"s"', ' 0 ', '{"__proto__":{"x":1}}']) {
      const result = parseStrictJson(text);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.value).toEqual(JSON.parse(text));
    }
    const proto = parseStrictJson('{"__proto__":{"polluted":1}}');
    expect(proto.ok && Object.getPrototypeOf(proto.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects what JSON.parse rejects', () => {
    for (const text of ['', '{', '{"a":1,}', '[1,]', "{'a':1}", '{"a":01}', '{"a":1} x', '"\u0001"', 'NaN', '{"a" 1}', '"\\x"']) {
      expect(parseStrictJson(text).ok, text).toBe(false);
      expect(() => JSON.parse(text), text).toThrow();
    }
  });

  it('reads long strings (skipped natively past their first characters) exactly as JSON.parse does', () => {
    const long = 'x'.repeat(40);
    for (const text of [`"${long}"`, `"${long}\\"${long}\\\\"`, `{"${long}":"${long}\\n${long}é🙂${long}"}`, `"${long}\\u0041${long}"`]) {
      const result = parseStrictJson(text);
      expect(result.ok, text).toBe(true);
      if (result.ok) expect(result.value).toEqual(JSON.parse(text));
    }
    for (const text of [`"${long}\u0001${long}"`, `"${long}\n"`, `"${long}`, `"${long}\\`, `"${long}\\x${long}"`]) {
      expect(parseStrictJson(text).ok, text).toBe(false);
      expect(() => JSON.parse(text), text).toThrow();
    }
  });

  it('reports duplicate keys, also when one is written with an escape, at any depth', () => {
    const result = parseStrictJson('{"params":{"name":"read","na\\u006de":"delete"}}');
    expect(result.ok && result.problems).toEqual(['duplicate key "name" at /params']);
  });

  it('reports keys differing only in case, unless asked not to', () => {
    const result = parseStrictJson('{"method":"a","Method":"b"}');
    expect(result.ok && result.problems[0]).toMatch(/"method" and "Method" differ only in case/);
    expect(result.ok && [...result.ambiguousTopLevel].sort()).toEqual(['Method', 'method']);
    const lax = parseStrictJson('{"method":"a","Method":"b"}', { caseVariants: false });
    expect(lax.ok && lax.problems).toEqual([]);
  });

  it('refuses nesting deeper than the limit instead of overflowing the stack', () => {
    expect(parseStrictJson('['.repeat(100_000)).ok).toBe(false);
  });
});

describe('parseClientLine', () => {
  const req = (body: string) => parseClientLine(`{"jsonrpc":"2.0",${body}}`);

  it('classifies requests, notifications and responses', () => {
    expect(req('"id":1,"method":"tools/list"')).toMatchObject({ kind: 'request', id: 1, method: 'tools/list' });
    expect(req('"method":"notifications/initialized"')).toMatchObject({ kind: 'notification' });
    expect(req('"id":"s1","result":{}')).toMatchObject({ kind: 'response', id: 's1' });
  });

  it('answers non-JSON with a parse error and a batch with invalid request, id null', () => {
    expect(parseClientLine('{not json')).toMatchObject({ kind: 'invalid', code: PARSE_ERROR, id: null });
    expect(parseClientLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toMatchObject({ kind: 'invalid', code: INVALID_REQUEST, id: null, reason: expect.stringMatching(/batch/) });
  });

  it('refuses duplicate and case-variant keys, keeping the id when it is unambiguous', () => {
    expect(req('"id":7,"method":"tools/list","method":"tools/call"')).toMatchObject({ kind: 'invalid', code: INVALID_REQUEST, id: 7 });
    expect(req('"id":7,"id":8,"method":"ping"')).toMatchObject({ kind: 'invalid', id: null });
    expect(req('"id":9,"method":"ping","Method":"tools/call"')).toMatchObject({ kind: 'invalid', id: 9 });
    expect(req('"id":9,"method":"tools/call","params":{"name":"a","Name":"b"}')).toMatchObject({ kind: 'invalid', id: 9 });
  });

  it('marks malformed notifications so they are never answered', () => {
    expect(req('"method":"notifications/x","Method":"y"')).toMatchObject({ kind: 'invalid', notification: true });
    expect(req('"method":5')).toMatchObject({ kind: 'invalid', notification: true });
  });

  it('refuses a non-string method or tool name, and a null id on a request', () => {
    expect(req('"id":1,"method":5')).toMatchObject({ kind: 'invalid', id: 1, notification: false });
    expect(req('"id":1,"method":"tools/call","params":{"name":5}')).toMatchObject({ kind: 'invalid', id: 1, reason: expect.stringMatching(/params.name/) });
    expect(req('"id":1,"method":"tools/call","params":[]')).toMatchObject({ kind: 'invalid', id: 1 });
    expect(req('"id":null,"method":"ping"')).toMatchObject({ kind: 'invalid', id: null });
  });
});
