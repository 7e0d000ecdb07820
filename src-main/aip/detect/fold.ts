import RE2 from 're2';
import { SegmentMap, View, ViewBuilder, type TextView } from './text-map.js';

/*
 * The fold layer of normalised views (normalize.ts): NFKC per code point, invisible, bidi and
 * other format characters dropped, common confusables mapped to the Latin letter they imitate.
 */


/** Look-alikes NFKC leaves alone (Cyrillic, Greek, Armenian, a few Latin letters), mapped to the Latin letter they imitate. */
const CONFUSABLES = new Map<number, string>(
  Object.entries({
    а: 'a', в: 'B', е: 'e', к: 'k', о: 'o', р: 'p', с: 'c', у: 'y', х: 'x', і: 'i', ј: 'j', ѕ: 's', ԁ: 'd', һ: 'h', ӏ: 'l', ԛ: 'q', ԝ: 'w', ѵ: 'v',
    А: 'A', В: 'B', Е: 'E', К: 'K', М: 'M', Н: 'H', О: 'O', Р: 'P', С: 'C', Т: 'T', Х: 'X', І: 'I', Ј: 'J', Ѕ: 'S', Ԁ: 'd', Ү: 'Y', Һ: 'h', Ӏ: 'I', Ԛ: 'Q', Ԝ: 'W', Ѵ: 'V',
    α: 'a', ο: 'o', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ϲ: 'c', ϳ: 'j',
    Α: 'A', Β: 'B', Ε: 'E', Ζ: 'Z', Η: 'H', Ι: 'I', Κ: 'K', Μ: 'M', Ν: 'N', Ο: 'O', Ρ: 'P', Τ: 'T', Υ: 'Y', Χ: 'X', Ϲ: 'C',
    օ: 'o', ս: 'u', ɑ: 'a', ɡ: 'g', ı: 'i',
  }).map(([from, to]) => [from.codePointAt(0)!, to]),
);

const FORMAT = new RE2('^\\p{Cf}$', 'u');

/** Characters that render as nothing: zero-width, bidi controls, soft hyphen, tags, variation selectors, fillers, every other format character. */
function isInvisible(cp: number): boolean {
  if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp === 0xfeff || cp === 0xad) return true;
  if ((cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180f)) return true;
  if (cp === 0x34f || cp === 0x115f || cp === 0x1160 || cp === 0x17b4 || cp === 0x17b5 || cp === 0x3164 || cp === 0xffa0) return true;
  return cp >= 0x80 && FORMAT.test(String.fromCodePoint(cp));
}

const FOLD_CACHE_MAX = 16 * 1024;
const foldCache = new Map<number, string | null>();

/** What one code point folds to, or null when it stays as it is. */
function foldCodePoint(cp: number): string | null {
  const hit = foldCache.get(cp);
  if (hit !== undefined) return hit;
  let out: string | null;
  if (isInvisible(cp)) out = '';
  else {
    const ch = String.fromCodePoint(cp);
    let mapped = '';
    for (const c of ch.normalize('NFKC')) {
      const code = c.codePointAt(0)!;
      mapped += code >= 0x80 && isInvisible(code) ? '' : (CONFUSABLES.get(code) ?? c);
    }
    out = mapped === ch ? null : mapped;
  }
  if (foldCache.size < FOLD_CACHE_MAX) foldCache.set(cp, out);
  return out;
}

/** The fold of `text`, or null when nothing changes; `capped` when the expansion bound stopped it (the rest copied as is). */
export function folded(text: string): { text: string; map: SegmentMap; capped: boolean } | null {
  const cap = 2 * text.length + 64;
  let b: ViewBuilder | null = null;
  let from = 0;
  let capped = false;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      i += 1;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const out = foldCodePoint(cp);
    if (out !== null) {
      b ??= new ViewBuilder(text);
      if (b.length + (i - from) + out.length > cap) {
        capped = true;
        break;
      }
      b.copy(from, i);
      b.put(out, i, i + width);
      from = i + width;
    }
    i += width;
  }
  if (b === null) return null;
  b.copy(from, text.length);
  return { ...b.finish(), capped };
}

/** Only the fold layer (cheap; what the detectors use for matching words). Same offset mapping. */
export function foldText(text: string): TextView {
  const result = folded(text);
  const input = new View(text, [], null, null);
  return result === null ? input : new View(result.text, ['fold'], result.map, input);
}
