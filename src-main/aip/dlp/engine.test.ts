import RE2 from 're2';
import { describe, expect, it } from 'vitest';
import { DlpEngine } from './engine.js';
import { COMMON_PATTERNS, dlpConfig, pattern, type PatternSpec } from './testing/dlp.js';

const EMAIL: PatternSpec = ['Email', '[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}'];
const AWS: PatternSpec = ['AWS Key', 'AKIA[0-9A-Z]{16}'];
const SSN: PatternSpec = ['SSN', '\\b\\d{3}-\\d{2}-\\d{4}\\b'];

function scan(patterns: PatternSpec[], text: string, direction: 'request' | 'response' = 'response') {
  return new DlpEngine(dlpConfig(patterns, { scanRequests: true })).scanText(text, direction);
}

describe('scanText: markers and events', () => {
  it('replaces each match with [REDACTED:<name>] and counts per rule in policy order', () => {
    const result = scan([EMAIL, SSN, AWS], 'ssn 123-45-6789, mail a@b.io, key AKIAIOSFODNN7EXAMPLE, again c@d.org');
    expect(result.output).toBe('ssn [REDACTED:SSN], mail [REDACTED:Email], key [REDACTED:AWS Key], again [REDACTED:Email]');
    expect(result.redacted).toBe(true);
    expect(result.events).toEqual([
      { rule: 'Email', count: 2 },
      { rule: 'SSN', count: 1 },
      { rule: 'AWS Key', count: 1 },
    ]);
  });

  it('returns [] events and the same text when nothing matches', () => {
    const text = 'nothing to see here';
    const result = scan([EMAIL, AWS], text);
    expect(result).toEqual({ output: text, redacted: false, events: [], warnings: [] });
  });

  it('finds the same matches in long texts whether the prefilter is the set or literal-prefixed patterns one by one', () => {
    const GH: PatternSpec = ['GitHub Token', 'ghp_[a-zA-Z0-9]{36}'];
    const prose = 'the quick brown fox jumps over a lazy dog '.repeat(200);
    const key = 'AKIAIOSFODNN7EXAMPLE';
    const token = `ghp_${'a'.repeat(36)}`;
    // Non-ASCII and a lone surrogate before the secrets: the members test one UTF-8 copy of the text, the set the string itself.
    const wide = `${prose}é 東京 🚀 \ud800 `;
    for (const text of [prose, `${prose}${key}${prose}`, `${token}${prose}${key}`, `${prose.slice(0, 4000)} ${key}`, `${wide}${key} ${wide}${token}`]) {
      const literal = scan([AWS, GH], text);
      const mixed = scan([AWS, GH, EMAIL], text);
      expect(literal.output).toBe(mixed.output);
      expect(literal.events).toEqual(mixed.events);
      expect(literal.output.includes(key) || literal.output.includes(token)).toBe(false);
    }
    expect(scan([AWS, GH], `${prose}${key}`).events).toEqual([{ rule: 'AWS Key', count: 1 }]);
  });

  it('writes rule names verbatim, even with replacement-pattern characters', () => {
    const result = scan([['$& $1 $$ [x]', 'secret']], 'a secret b');
    expect(result.output).toBe('a [REDACTED:$& $1 $$ [x]] b');
  });

  it('sums patterns that share a name into one event', () => {
    const result = scan([['Key', 'AKIA[0-9A-Z]{16}'], EMAIL, ['Key', 'ghp_[a-zA-Z0-9]{36}']], `AKIAIOSFODNN7EXAMPLE x@y.io ghp_${'a'.repeat(36)}`);
    expect(result.output).toBe('[REDACTED:Key] [REDACTED:Email] [REDACTED:Key]');
    expect(result.events).toEqual([
      { rule: 'Key', count: 2 },
      { rule: 'Email', count: 1 },
    ]);
  });

  it('honours inline and RE2 flags', () => {
    const config = dlpConfig([['SQL', '(?i)(DROP|DELETE)\\s+TABLE'], pattern('Word', 'secret', 'all', 'iu')]);
    const result = new DlpEngine(config).scanText('drop  table users; SECRET; Secret', 'response');
    expect(result.output).toBe('[REDACTED:SQL] users; [REDACTED:Word]; [REDACTED:Word]');
  });

  it('never redacts empty matches', () => {
    expect(scan([['Xs', 'x*']], 'abc').output).toBe('abc');
    expect(scan([['Xs', 'x*']], 'axxb').output).toBe('a[REDACTED:Xs]b');
    expect(scan([['Xs', 'x*']], 'abc').events).toEqual([]);
  });

  it('keeps characters around matches intact (astral, lone surrogates)', () => {
    const text = '😀 a@b.io \ud800 é c@d.io 😀';
    expect(scan([EMAIL], text).output).toBe('😀 [REDACTED:Email] \ud800 é [REDACTED:Email] 😀');
  });
});

describe('scanText: overlapping patterns', () => {
  it('a later pattern never rewrites an earlier marker (a name or "REDACTED" matching it)', () => {
    const result = scan([AWS, ['Key word', 'Key'], ['Caps', '[A-Z]{5,}']], 'id AKIAIOSFODNN7EXAMPLE');
    expect(result.output).toBe('id [REDACTED:AWS Key]');
    expect(result.events).toEqual([{ rule: 'AWS Key', count: 1 }]);
  });

  it('merges overlapping matches into one marker named after the first pattern in policy order', () => {
    // Pair matches 1111-2222; Tail matches 2222-3333: their union is redacted as one region.
    const result = scan([['Pair', '\\d{4}-\\d{4}'], ['Tail', '2222-3333']], 'x 1111-2222-3333 y');
    expect(result.output).toBe('x [REDACTED:Pair] y');
    expect(result.events).toEqual([{ rule: 'Pair', count: 1 }]);
  });

  it('labels by policy order even when the later pattern starts first', () => {
    const result = scan([['Late', '2222-3333'], ['Early', '1111-2222']], 'x 1111-2222-3333 y');
    expect(result.output).toBe('x [REDACTED:Late] y');
    expect(result.events).toEqual([{ rule: 'Late', count: 1 }]);
  });

  it('keeps touching (non-overlapping) matches as separate markers', () => {
    expect(scan([['A', 'aaa'], ['B', 'bbb']], 'aaabbb').output).toBe('[REDACTED:A][REDACTED:B]');
  });

  it('chains overlaps transitively', () => {
    const result = scan([['A', 'abc'], ['B', 'cde'], ['C', 'efg']], '-abcdefg-');
    expect(result.output).toBe('-[REDACTED:A]-');
  });

  it('a pattern contained in another is absorbed', () => {
    const result = scan([['Email', EMAIL[1]], ['Domain', 'example\\.com']], 'to alice@example.com and example.com');
    expect(result.output).toBe('to [REDACTED:Email] and [REDACTED:Domain]');
    expect(result.events).toEqual([
      { rule: 'Email', count: 1 },
      { rule: 'Domain', count: 1 },
    ]);
  });
});

describe('anchored patterns', () => {
  it('anchors apply per string, also when strings are batched together', () => {
    const engine = new DlpEngine(dlpConfig([['Start', '^secret'], ['End', 'token$'], ['Abs', '\\Aabs'], ['AbsEnd', 'zed\\z']]));
    const strings = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? `secret ${i} token` : `x secret ${i} token x`));
    strings.push('abs one', 'x abs', 'one zed', 'zed two');
    const result = engine.redactResponse({ structuredContent: { strings } });
    const out = (result.value as { structuredContent: { strings: string[] } }).structuredContent.strings;
    expect(out[0]).toBe('[REDACTED:Start] 0 [REDACTED:End]');
    expect(out[1]).toBe('x secret 1 token x');
    expect(out[198]).toBe('[REDACTED:Start] 198 [REDACTED:End]');
    expect(out.slice(200)).toEqual(['[REDACTED:Abs] one', 'x abs', 'one [REDACTED:AbsEnd]', 'zed two']);
  });

  it('multi-line anchors match at line starts inside one string', () => {
    expect(scan([['Line', '(?m)^pw=\\w+']], 'a\npw=hunter2\nb pw=x').output).toBe('a\n[REDACTED:Line]\nb pw=x');
  });
});

describe('scopes', () => {
  const config = dlpConfig(
    [
      ['Req', 'REQSECRET', 'request'],
      ['Resp', 'RESPSECRET', 'response'],
      ['Both', 'BOTHSECRET', 'all'],
    ],
    { scanRequests: true, onRequestMatch: 'redact' },
  );
  const engine = new DlpEngine(config);
  const text = 'REQSECRET RESPSECRET BOTHSECRET';

  it('a request-scoped pattern never touches responses', () => {
    expect(engine.scanText(text, 'response').output).toBe('REQSECRET [REDACTED:Resp] [REDACTED:Both]');
    expect(engine.redactResponse({ content: [{ type: 'text', text }] }).value).toEqual({ content: [{ type: 'text', text: 'REQSECRET [REDACTED:Resp] [REDACTED:Both]' }] });
    expect(engine.redactError({ code: 1, message: text }).value).toEqual({ code: 1, message: 'REQSECRET [REDACTED:Resp] [REDACTED:Both]' });
  });

  it('a response-scoped pattern never touches requests', () => {
    expect(engine.scanText(text, 'request').output).toBe('[REDACTED:Req] RESPSECRET [REDACTED:Both]');
    const result = engine.scanRequest({ q: text });
    expect(result.value).toEqual({ q: '[REDACTED:Req] RESPSECRET [REDACTED:Both]' });
    expect(result.events).toEqual([
      { rule: 'Req', count: 1 },
      { rule: 'Both', count: 1 },
    ]);
  });

  it('a response with only request-scoped patterns is passed through', () => {
    const only = new DlpEngine(dlpConfig([['Req', 'X', 'request']]));
    const value = { content: [{ type: 'text', text: 'X' }] };
    expect(only.redactResponse(value).value).toBe(value);
  });
});

describe('enabled, scan_requests, scan_responses, filter_stderr', () => {
  const secretResult = { content: [{ type: 'text', text: 'a@b.io' }] };

  it('enabled: false passes everything through unchanged with no events', () => {
    const engine = new DlpEngine(dlpConfig([EMAIL], { enabled: false, scanRequests: true, filterStderr: true }));
    expect(engine.scanText('a@b.io', 'response')).toEqual({ output: 'a@b.io', redacted: false, events: [], warnings: [] });
    expect(engine.redactResponse(secretResult)).toEqual({ value: secretResult, redacted: false, events: [], warnings: [] });
    expect(engine.redactResponse(secretResult).value).toBe(secretResult);
    const error = { code: -1, message: 'a@b.io' };
    expect(engine.redactError(error).value).toBe(error);
    const args = { to: 'a@b.io' };
    expect(engine.scanRequest(args)).toMatchObject({ action: 'forward', errorCode: null, events: [] });
    expect(engine.scanRequest(args).value).toBe(args);
    expect(engine.filterStderr('a@b.io').output).toBe('a@b.io');
  });

  it('scan_responses: false leaves responses alone but still scans requests', () => {
    const engine = new DlpEngine(dlpConfig([EMAIL], { scanResponses: false, scanRequests: true }));
    expect(engine.redactResponse(secretResult).value).toBe(secretResult);
    expect(engine.scanText('a@b.io', 'response').output).toBe('a@b.io');
    expect(engine.scanRequest({ to: 'a@b.io' }).action).toBe('block');
  });

  it('scan_requests defaults to off (v1alpha2 backward compatibility)', () => {
    const engine = new DlpEngine(dlpConfig([EMAIL]));
    const args = { to: 'a@b.io' };
    expect(engine.scanRequest(args)).toMatchObject({ action: 'forward', value: args, events: [] });
    expect(engine.scanText('a@b.io', 'request').output).toBe('a@b.io');
  });

  it('filter_stderr redacts stderr text with response-side patterns only when on', () => {
    const on = new DlpEngine(dlpConfig([EMAIL, ['Req', 'REQ', 'request']], { filterStderr: true }));
    expect(on.filterStderr('err a@b.io REQ').output).toBe('err [REDACTED:Email] REQ');
    const off = new DlpEngine(dlpConfig([EMAIL]));
    expect(off.filterStderr('err a@b.io')).toEqual({ output: 'err a@b.io', redacted: false, events: [], warnings: [] });
  });
});

describe('differential check against a per-string reference', () => {
  // The engine batches strings and bisects on RE2.Set hits; this compares it with the obvious
  // implementation (every pattern over every string, overlaps merged by the same rule).
  const compiled = new Map<string, RE2>();
  function reference(patterns: PatternSpec[], text: string): string {
    const spans: { start: number; end: number; p: number }[] = [];
    patterns.forEach(([, source], p) => {
      let re = compiled.get(source);
      if (re === undefined) compiled.set(source, (re = new RE2(source, 'gu')));
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text)) !== null) {
        if (m[0].length === 0) {
          re.lastIndex = m.index + 1;
          continue;
        }
        spans.push({ start: m.index, end: m.index + m[0].length, p });
      }
    });
    spans.sort((a, b) => a.start - b.start || a.p - b.p);
    let out = '';
    let cursor = 0;
    let i = 0;
    while (i < spans.length) {
      const start = spans[i]!.start;
      let { end, p } = spans[i]!;
      i += 1;
      while (i < spans.length && spans[i]!.start < end) {
        end = Math.max(end, spans[i]!.end);
        p = Math.min(p, spans[i]!.p);
        i += 1;
      }
      out += text.slice(cursor, start) + `[REDACTED:${patterns[p]![0]}]`;
      cursor = end;
    }
    return out + text.slice(cursor);
  }

  it('matches the reference on random documents of many small and a few large strings', () => {
    let seed = 7;
    const rand = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const pieces = ['lorem', 'ipsum', '123-45-6789', 'a.b@example.com', 'AKIAIOSFODNN7EXAMPLE', '10.0.0.1', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3In0.abcdefghijklmnop', '555-123-4567', 'é', '😀', '\n'];
    const engine = new DlpEngine(dlpConfig(COMMON_PATTERNS, { maxScanSize: 64 * 1024 * 1024 }));
    for (let round = 0; round < 8; round += 1) {
      const strings: string[] = [];
      const count = 50 + Math.floor(rand() * 3000);
      for (let i = 0; i < count; i += 1) {
        const words = rand() < 0.01 ? 1500 : Math.floor(rand() * 12);
        let s = '';
        for (let w = 0; w < words; w += 1) s += (rand() < 0.02 ? pieces[2 + Math.floor(rand() * 6)]! : pieces[Math.floor(rand() * pieces.length)]!) + ' ';
        strings.push(s);
      }
      const result = engine.redactResponse({ structuredContent: { strings } });
      expect(result.warnings).toEqual([]);
      const out = (result.value as { structuredContent: { strings: string[] } }).structuredContent.strings;
      const expected = strings.map((s) => reference(COMMON_PATTERNS, s));
      expect(out).toEqual(expected);
      for (let i = 0; i < strings.length; i += 1) if (expected[i] === strings[i]) expect(out[i]).toBe(strings[i]);
    }
  });
});

describe('redactForAudit after scanRequest of the same arguments', () => {
  const fresh = (patterns: PatternSpec[], value: unknown) => new DlpEngine(dlpConfig(patterns, { scanRequests: true, onRequestMatch: 'redact' })).redactForAudit(value);

  it('gives exactly what a fresh audit redaction gives, clean or not', () => {
    for (const args of [{ q: 'plain words' }, { q: 'key AKIAIOSFODNN7EXAMPLE', to: ['a@b.io'] }, 'AKIAIOSFODNN7EXAMPLE']) {
      const engine = new DlpEngine(dlpConfig([EMAIL, AWS], { scanRequests: true, onRequestMatch: 'redact' }));
      engine.scanRequest(args);
      expect(engine.redactForAudit(args)).toEqual(fresh([EMAIL, AWS], args));
    }
  });

  it('still redacts with a response-only pattern the request scan did not run', () => {
    const engine = new DlpEngine(dlpConfig([EMAIL, ['AWS Key', 'AKIA[0-9A-Z]{16}', 'response']], { scanRequests: true, onRequestMatch: 'redact' }));
    const args = { q: 'AKIAIOSFODNN7EXAMPLE and a@b.io' };
    expect(engine.scanRequest(args).events).toEqual([{ rule: 'Email', count: 1 }]);
    expect(engine.redactForAudit(args).value).toEqual({ q: '[REDACTED:AWS Key] and [REDACTED:Email]' });
  });

  it('redacts other arguments on their own, and scans again when the same ones are recorded twice', () => {
    const engine = new DlpEngine(dlpConfig([AWS], { scanRequests: true }));
    const scanned = { q: 'nothing' };
    engine.scanRequest(scanned);
    const other = { q: 'AKIAIOSFODNN7EXAMPLE' };
    expect(engine.redactForAudit(other).value).toEqual({ q: '[REDACTED:AWS Key]' });
    const secret = { q: 'AKIAIOSFODNN7EXAMPLE' };
    engine.scanRequest(secret);
    expect(engine.redactForAudit(secret).value).toEqual({ q: '[REDACTED:AWS Key]' });
    expect(engine.redactForAudit(secret).value).toEqual({ q: '[REDACTED:AWS Key]' });
  });
});
