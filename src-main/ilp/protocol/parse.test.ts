import { describe, expect, it } from 'vitest';
import { ILP_LIMITS } from './limits.js';
import { headerOf } from './message.js';
import { parseIlpMessage } from './parse.js';
import { serializeIlpMessage } from './serialize.js';

const HEADER = 'Constitutional-Header: {"domain":"finance","depth":1,"max_depth":5,"budget_usd":0,"max_budget_usd":0.1}';
const think = (body = '{"query":"q"}', extra = '') => `THINK /insight ILP/1.0\n${HEADER}\n${extra}Content-Type: application/json\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}`;

function refusal(text: string | Uint8Array) {
  const parsed = parseIlpMessage(text);
  if (parsed.ok) throw new Error('expected a 400');
  return parsed.error;
}

describe('parseIlpMessage', () => {
  it('reads a request with CRLF line ends as with LF', () => {
    const parsed = parseIlpMessage(think().replace(/\n/g, '\r\n'));
    expect(parsed).toMatchObject({ ok: true, message: { kind: 'request', method: 'THINK', body: { query: 'q' } } });
  });

  it('reads a response, its status, reason and typed headers', () => {
    const parsed = parseIlpMessage('ILP/1.0 207 Multi-Status\nConstitutional-Status: WARNING\nAttention-Enabled: false\n');
    expect(parsed).toMatchObject({ ok: true, message: { kind: 'response', status: 207, reason: 'Multi-Status', body: null } });
    if (parsed.ok) expect(headerOf(parsed.message, 'attention-enabled')?.value).toBe(false);
  });

  it('names the field of a start line it cannot read', () => {
    expect(refusal('FETCH /insight ILP/1.0\n')).toMatchObject({ field: 'method', message: expect.stringMatching(/THINK, COMPOSE, VALIDATE, TRANSLATE, TRACE/) });
    expect(refusal('THINK /insight ILP/2.0\n')).toMatchObject({ field: 'version' });
    expect(refusal('ILP/1.0 404 Not Found\n')).toMatchObject({ field: 'status' });
    expect(refusal('THINK insight ILP/1.0\n')).toMatchObject({ field: 'path' });
    expect(refusal('THINK /a\u0000b ILP/1.0\n')).toMatchObject({ field: 'path' });
    expect(refusal(`THINK /${'a'.repeat(ILP_LIMITS.path)} ILP/1.0\n`)).toMatchObject({ field: 'path' });
    expect(refusal('GET / HTTP/1.1\n')).toMatchObject({ field: 'start-line' });
    expect(refusal('hello\n')).toMatchObject({ field: 'start-line' });
  });

  it('refuses header values of the wrong type, naming the header', () => {
    expect(refusal(think(undefined, 'Attention-Enabled: yes\n'))).toMatchObject({ field: 'Attention-Enabled' });
    expect(refusal('THINK /insight ILP/1.0\nConstitutional-Header: "finance"\n')).toMatchObject({ field: 'Constitutional-Header', message: /JSON object/ });
    expect(refusal('THINK /insight ILP/1.0\nConstitutional-Header: [1, 2]\n')).toMatchObject({ field: 'Constitutional-Header' });
    expect(refusal('THINK /insight ILP/1.0\nConstitutional-Header: {"depth": 1,}\n')).toMatchObject({ field: 'Constitutional-Header', message: /not valid JSON/ });
    expect(refusal('ILP/1.0 200 OK\nConstitutional-Status: FINE\n')).toMatchObject({ field: 'Constitutional-Status' });
    expect(refusal('THINK /insight ILP/1.0\nContent-Type: text/html\n\n{}')).toMatchObject({ field: 'Content-Type' });
    expect(refusal('THINK /insight ILP/1.0\nContent-Length: -1\n')).toMatchObject({ field: 'Content-Length' });
    expect(refusal('THINK /insight ILP/1.0\nQuery-ID: a\u001bb\n')).toMatchObject({ field: 'Query-ID' });
  });

  it('a body must be JSON and say so', () => {
    expect(refusal('THINK /insight ILP/1.0\n\n{"query":"q"}')).toMatchObject({ field: 'Content-Type' });
    expect(refusal(think('{"query":'))).toMatchObject({ field: 'body' });
    // Deep nesting is an answer, not a crash.
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(() => parseIlpMessage(think(deep))).not.toThrow();
  });

  it('accepts the §11.3 media types, with version 1.0 only', () => {
    expect(parseIlpMessage('THINK /insight ILP/1.0\nContent-Type: application/vnd.ilp+json; version=1.0\n\n{}').ok).toBe(true);
    expect(refusal('THINK /insight ILP/1.0\nContent-Type: application/vnd.ilp+json; version=2.0\n\n{}')).toMatchObject({ field: 'Content-Type' });
  });
});

describe('one message cannot hide another', () => {
  const second = 'THINK /insight ILP/1.0\nConstitutional-Header: {"max_depth":99}\n\n{"query":"raise my limits"}';

  it('a body longer than its Content-Length is refused, not split', () => {
    const text = think('{"query":"q"}').replace(/Content-Length: \d+/, 'Content-Length: 13') + `\n${second}`;
    expect(refusal(text)).toMatchObject({ field: 'Content-Length', message: /one message may not carry another/ });
  });

  it('a JSON header left open does not swallow the blank line and what follows', () => {
    expect(refusal(`THINK /insight ILP/1.0\nConstitutional-Header: {"domain": "x",\n\n${second}`)).toMatchObject({ field: 'Constitutional-Header', message: /not closed/ });
  });

  it('a closing bracket inside a JSON string does not end the value', () => {
    const parsed = parseIlpMessage('THINK /insight ILP/1.0\nReasoning-Trace: {"decision_path": ["a } b",\n  "c ] \\" }"]}\n');
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(headerOf(parsed.message, 'Reasoning-Trace')?.value).toEqual({ decision_path: ['a } b', 'c ] " }'] });
  });

  it('text after a JSON value on its line is refused', () => {
    expect(refusal('THINK /insight ILP/1.0\nConstitutional-Header: {"depth": 1} {"depth": 0}\n')).toMatchObject({ field: 'Constitutional-Header' });
  });

  it('folded lines, a stray carriage return and a repeated header are refused', () => {
    expect(refusal('THINK /insight ILP/1.0\nQuery-ID: a\n b\n')).toMatchObject({ field: 'headers', message: /continues the line before/ });
    expect(refusal('THINK /insight ILP/1.0\rContent-Length: 0\n')).toMatchObject({ field: 'headers', message: /carriage return/ });
    expect(refusal(think(undefined, 'content-length: 2\n'))).toMatchObject({ field: 'Content-Length', message: /appears twice/ });
    expect(refusal(`${think()}`.replace('Content-Type', `${HEADER.split(':')[0]}: {}\nContent-Type`))).toMatchObject({ field: 'Constitutional-Header', message: /twice/ });
  });
});

describe('limits', () => {
  it('an oversized header section, body or message is refused before its JSON is read', () => {
    expect(refusal(`THINK /insight ILP/1.0\nQuery-ID: ${'a'.repeat(ILP_LIMITS.headerSection)}\n`)).toMatchObject({ field: 'headers' });
    expect(refusal(`THINK /insight ILP/1.0\n${Array.from({ length: ILP_LIMITS.headerCount + 1 }, (_, i) => `X-${i}: v`).join('\n')}\n`)).toMatchObject({ field: 'headers', message: /more than/ });
    expect(refusal(`THINK /insight ILP/1.0\nContent-Length: ${ILP_LIMITS.body + 1}\n\n{}`)).toMatchObject({ field: 'Content-Length' });
    expect(refusal(`THINK /insight ILP/1.0\nContent-Type: application/json\n\n"${'a'.repeat(ILP_LIMITS.body)}"`)).toMatchObject({ field: 'body' });
    expect(refusal(new Uint8Array([0x54, 0x48, 0xff, 0xfe]))).toMatchObject({ message: /not UTF-8/ });
  });
});

describe('serializeIlpMessage', () => {
  it('writes each header on one line and the body\'s own length, whatever the message claimed', () => {
    const text = serializeIlpMessage({ kind: 'request', version: '1.0', method: 'THINK', path: '/insight', headers: [{ name: 'Constitutional-Header', value: { domain: 'ünïcode', depth: 0 } }, { name: 'Content-Length', value: 1 }], body: { query: 'é' } });
    expect(text).toBe('THINK /insight ILP/1.0\nConstitutional-Header: {"domain":"ünïcode","depth":0}\nContent-Type: application/json\nContent-Length: 14\n\n{"query":"é"}');
    expect(parseIlpMessage(text).ok).toBe(true);
  });

  it('refuses to write a header value that would start another line', () => {
    expect(() => serializeIlpMessage({ kind: 'response', version: '1.0', status: 200, reason: 'OK', headers: [{ name: 'Query-ID', value: 'a\n\nTHINK / ILP/1.0' }], body: null })).toThrow(/control character/);
  });
});
