import { describe, expect, it } from 'vitest';
import { DEFAULT_NORMALIZE_LIMITS, foldText, mayBeDisguised, textViews, type TextView } from './normalize.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const hex = (s: string): string => Buffer.from(s).toString('hex');
const pct = (s: string): string => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');

/** The view whose layers are exactly `layers`. */
function view(text: string, ...layers: string[]): TextView {
  const found = textViews(text).views.find((v) => v.layers.join('/') === layers.join('/'));
  if (found === undefined) throw new Error(`no view ${layers.join('/')} of ${JSON.stringify(text)}: ${textViews(text).views.map((v) => v.layers.join('/')).join(', ')}`);
  return found;
}

/** Where `needle` in the view reads in the original text. */
function original(text: string, v: TextView, needle: string): string {
  const at = v.text.indexOf(needle);
  expect(at).toBeGreaterThanOrEqual(0);
  const range = v.toOriginal(at, at + needle.length);
  return text.slice(range.start, range.end);
}

describe('fold', () => {
  it('drops invisible, bidi, tag and format characters and maps back across them', () => {
    const text = `id Z\u200BQ\u2060W\u202EX\uFEFFY\u00ADV\u{E0041}U\u2066T end`;
    const v = foldText(text);
    expect(v.text).toBe('id ZQWXYVUT end');
    expect(v.layers).toEqual(['fold']);
    expect(original(text, v, 'ZQWXYVUT')).toBe(text.slice(3, text.indexOf(' end')));
    expect(original(text, v, 'end')).toBe('end');
  });

  it('applies NFKC per code point (fullwidth, ligatures, math letters) and maps Cyrillic and Greek look-alikes', () => {
    expect(foldText('ＰＡＳＳＷＯＲＤ＝１２３').text).toBe('PASSWORD=123');
    expect(foldText('ﬁle 𝐬𝐞𝐜𝐫𝐞𝐭').text).toBe('file secret');
    expect(foldText('раssword ΑΡΙ кеу').text).toBe('password API key');
  });

  it('maps a one-for-one replacement exactly and an expansion to its whole source', () => {
    const text = 'x ＡＢＣ ﬃ y';
    const v = foldText(text);
    expect(v.text).toBe('x ABC ffi y');
    expect(v.toOriginal(3, 4)).toEqual({ start: 3, end: 4 });
    expect(v.toOriginal(7, 8)).toEqual({ start: 6, end: 7 }); // 'f' inside 'ffi' → the ligature
    expect(v.toOriginal(0, 11)).toEqual({ start: 0, end: text.length });
  });

  it('leaves ordinary prose in any script alone', () => {
    for (const prose of ['naïve café, Straße', '日本語のテキストです', 'مرحبا بالعالم']) expect(foldText(prose).layers).toEqual([]);
    expect(foldText('plain ascii').text).toBe('plain ascii');
  });

  it('bounds expansion and survives lone surrogates', () => {
    const hostile = '\uFDFA'.repeat(10_000); // 18 units each under NFKC
    const v = foldText(hostile);
    // Folded up to about twice the input, the rest copied as it is.
    expect(v.text.length).toBeLessThanOrEqual(3 * hostile.length + 64);
    expect(v.text.startsWith('صلى الله عليه وسلم')).toBe(true);
    expect(foldText('a\uD800b\uDC00c').text).toBe('a\uD800b\uDC00c');
  });
});

describe('url layer', () => {
  it('decodes %XX (UTF-8 included), leaves + and invalid sequences, and maps a decoded char to its escape', () => {
    const text = 'q=%41bc+d%zz%C3%A9%FF%e2%82';
    const v = view(text, 'url');
    expect(v.text).toBe('q=Abc+d%zzé%FF%e2%82');
    expect(original(text, v, 'A')).toBe('%41');
    expect(original(text, v, 'é')).toBe('%C3%A9');
    expect(original(text, v, 'bc+d')).toBe('bc+d');
  });

  it('undoes repeated encoding one round per layer', () => {
    const text = `k=${pct(pct('secret'))}`;
    expect(view(text, 'url').text).toBe(`k=${pct('secret')}`);
    const twice = view(text, 'url', 'url');
    expect(twice.text).toBe('k=secret');
    expect(original(text, twice, 'secret')).toBe(pct(pct('secret')));
  });
});

describe('base64 and hex layers', () => {
  it('replaces a run that decodes to text in place; a match inside maps to the whole run', () => {
    const run = b64('password=hunter2-correct-horse');
    const text = `cfg ${run} end`;
    const v = view(text, 'base64');
    expect(v.text).toBe('cfg password=hunter2-correct-horse end');
    expect(original(text, v, 'hunter2')).toBe(run);
    expect(original(text, v, 'end')).toBe('end');
    const h = view(`x=${hex('token: abcdefghijkl')}`, 'hex');
    expect(h.text).toBe('x=token: abcdefghijkl');
  });

  it('keeps a prefix glued before a separator as written', () => {
    const text = `/v1/items/${b64('user=alice;secret=s3cr3t')}`;
    expect(view(text, 'base64').text).toBe('/v1/items/user=alice;secret=s3cr3t');
  });

  it('unwraps nested layers: url inside base64, base64 inside url', () => {
    const inner = `a ${b64(`k=${pct('AKIA-like')}`)}`;
    expect(view(inner, 'base64', 'url').text).toBe('a k=AKIA-like');
    const outer = `p=${pct(b64('the hidden instruction'))}`;
    const v = view(outer, 'url', 'base64');
    expect(v.text).toBe('p=the hidden instruction');
    expect(original(outer, v, 'hidden')).toBe(outer.slice(2));
  });

  it('leaves binary alone: digests, UUIDs, images', () => {
    const digest = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(300, 0xff), Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) & 0xff))]);
    for (const text of [`sha256:${digest}`, 'id 123e4567-e89b-12d3-a456-426614174000', `data:image/png;base64,${png.toString('base64')}`]) {
      expect(textViews(text).views.map((v) => v.layers)).toEqual([[]]);
    }
  });
});

describe('textViews', () => {
  it('starts with the input, then distinct views breadth first', () => {
    const text = `a\u200Bb ${pct('c')}`;
    const { views, truncated } = textViews(text);
    expect(views[0]!.text).toBe(text);
    expect(views[0]!.layers).toEqual([]);
    expect(views.map((v) => v.layers.join('/'))).toEqual(['', 'fold', 'url', 'fold/url']);
    expect(new Set(views.map((v) => v.text)).size).toBe(views.length);
    expect(truncated).toBe(false);
  });

  it('returns only the input for plain text, and toOriginal clamps any range', () => {
    const { views } = textViews('nothing to see here');
    expect(views).toHaveLength(1);
    expect(views[0]!.toOriginal(-5, 1e9)).toEqual({ start: 0, end: 19 });
    expect(views[0]!.toOriginal(7, 3)).toEqual({ start: 7, end: 7 });
  });

  it('stops at maxDepth on 50 nested encodings', () => {
    // Percent-encoding the escape itself 50 times (`%252525…41`), and base64 wrapped 12 deep
    // around a url layer (each base64 layer adds a third, so deeper would only test the heap).
    let wrapped = 'the secret at the bottom of the stack';
    for (let i = 0; i < 12; i += 1) wrapped = i === 6 ? pct(wrapped) : b64(wrapped);
    for (const payload of [`x=%${'25'.repeat(49)}41`, wrapped]) {
      const { views, truncated } = textViews(payload);
      expect(truncated).toBe(true);
      for (const v of views) expect(v.layers.filter((l) => l !== 'fold').length).toBeLessThanOrEqual(DEFAULT_NORMALIZE_LIMITS.maxDepth);
      expect(views.length).toBeLessThanOrEqual(DEFAULT_NORMALIZE_LIMITS.maxViews);
    }
    expect(textViews(`x=%${'25'.repeat(49)}41`, { maxDepth: 50, maxViews: 200 }).views.some((v) => v.text === 'x=A')).toBe(true);
  });

  it('passes over what lies beyond maxInput (a 4 MB run), within the decoded budget', () => {
    const huge = b64('A harmless but enormous text. '.repeat(140_000));
    expect(huge.length).toBeGreaterThan(4_000_000);
    const { views, truncated } = textViews(huge);
    expect(truncated).toBe(true);
    const produced = views.slice(1).reduce((n, v) => n + v.text.length, 0);
    expect(produced).toBeLessThanOrEqual(DEFAULT_NORMALIZE_LIMITS.maxInput * 2);
  });

  it('keeps 100k tiny runs within maxDecodedTotal and maxViews', () => {
    const tiny = Array.from({ length: 100_000 }, (_, i) => b64(`word${String(i).padStart(8, '0')}`)).join(' ');
    const limits = { maxInput: 4 * 1024 * 1024, maxDecodedTotal: 64 * 1024, maxViews: 8 };
    const { views, truncated } = textViews(tiny, limits);
    expect(truncated).toBe(true);
    expect(views.length).toBeLessThanOrEqual(8);
    const b = views.find((v) => v.layers.join('/') === 'base64')!;
    const decodedWords = b.text.split(' ').filter((w) => w.startsWith('word')).length;
    expect(decodedWords * 12).toBeLessThanOrEqual(limits.maxDecodedTotal);
    expect(decodedWords).toBeGreaterThan(0);
  });

  it('honours maxViews', () => {
    const text = `a\u200B ${pct('b')} ${b64('some decoded words')} ${hex('more decoded words')}`;
    expect(textViews(text).views.length).toBeGreaterThan(3);
    const { views, truncated } = textViews(text, { maxViews: 3 });
    expect(views).toHaveLength(3);
    expect(truncated).toBe(true);
  });

  it('never throws on hostile strings', () => {
    const hostile = ['%', '%%%%', '%F0%9F', '\uDFFF\uD800', '='.repeat(100), `${'A'.repeat(15)}=`, '\u0000'.repeat(20), 'a'.repeat(16)];
    for (const text of hostile) {
      const { views } = textViews(text);
      for (const v of views) expect(v.toOriginal(0, v.text.length).end).toBeLessThanOrEqual(text.length);
    }
  });
});

describe('mayBeDisguised', () => {
  it('is false for plain ASCII prose and short tokens', () => {
    expect(mayBeDisguised('The build finished in 12.5 s; 100% done, see /srv/app/logs.')).toBe(false);
    expect(mayBeDisguised('abc-def_ghi 0123456789abcde')).toBe(false);
  });

  it('is true for non-ASCII, %XX and 16-character runs', () => {
    expect(mayBeDisguised('caf\u00e9')).toBe(true);
    expect(mayBeDisguised('a\u200Bb')).toBe(true);
    expect(mayBeDisguised('x=%41')).toBe(true);
    expect(mayBeDisguised('0123456789abcdef')).toBe(true);
  });

  it('finds a run wherever it starts and ends, as reading every character would', () => {
    // The pre-check reads one position in sixteen; a run straddling those positions must still count.
    // Runs of every length, most of them not encoded-shaped, close to one another.
    const kinds = ['abc', 'ABC', 'ab-c/_', 'aB', 'aB1', '0123', 'ab+'];
    const seeded = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
    const random = seeded(7);
    for (let i = 0; i < 20_000; i += 1) {
      let text = '';
      for (let r = Math.floor(random() * 6); r >= 0; r -= 1) {
        const kind = kinds[Math.floor(random() * (random() < 0.7 ? 3 : kinds.length))]!;
        const length = 1 + Math.floor(random() * 26);
        for (let j = 0; j < length; j += 1) text += kind[Math.floor(random() * kind.length)];
        text += ' .'[Math.floor(random() * 2)];
      }
      expect(mayBeDisguised(text), JSON.stringify(text)).toBe(everyCharacterReads(text));
    }
  });
});

/** The pre-check read character by character: a run of 16 or more whose first 16+ characters mix as encodings do. */
function everyCharacterReads(text: string): boolean {
  const kind = (c: string) => (/[0-9]/.test(c) ? 1 : /[A-Z]/.test(c) ? 2 : /[a-z]/.test(c) ? 4 : c === '+' ? 8 : /[-/_]/.test(c) ? 16 : 0);
  let run = 0;
  let shape = 0;
  for (const c of text) {
    const k = kind(c);
    if (k === 0) {
      run = 0;
      shape = 0;
      continue;
    }
    run += 1;
    shape |= k;
    const encoded = (shape & 9) !== 0 || ((shape & 2) !== 0 && (shape & 4) !== 0 && (shape & 16) === 0);
    if (run >= 16 && encoded) return true;
  }
  return false;
}
