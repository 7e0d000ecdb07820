/**
 * Text normalisation for the content checks. Attackers hide a phrase or a secret from a naive
 * matcher with zero-width characters ("ig\u200Bnore"), compatibility forms (fullwidth "ＡＫＩＡ",
 * mathematical bold "𝐢𝐠𝐧𝐨𝐫𝐞") and look-alike letters from other scripts (Cyrillic "іgnоrе").
 * Detection runs on a normalised copy; each normalised UTF-16 unit remembers the original range
 * it came from, so a redaction found in the copy is applied to the original text.
 */

const FORMAT = /\p{Cf}/u;
/** Invisible code points that are not format characters: grapheme joiner, fillers, variation selectors. */
const INVISIBLE = new Set([0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x3164, 0xffa0]);

/** Code points that render as nothing (or nearly) and are dropped before matching. */
function isIgnorable(cp: string): boolean {
  const code = cp.codePointAt(0)!;
  return (
    INVISIBLE.has(code) ||
    (code >= 0x180b && code <= 0x180f) ||
    (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xe0100 && code <= 0xe01ef) ||
    FORMAT.test(cp)
  );
}

export interface MappedText {
  text: string;
  /** For each UTF-16 unit of `text`: start offset of the original code point it came from. */
  starts: Uint32Array;
  /** For each UTF-16 unit of `text`: end offset (exclusive) of that original code point. */
  ends: Uint32Array;
}

/** NFKC per code point, ignorable characters removed, with the offset map back to `input`. */
export function normaliseMapped(input: string): MappedText {
  const parts: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  let asciiOnly = true;
  for (let i = 0; i < input.length; i++) {
    if (input.charCodeAt(i) > 0x7e || input.charCodeAt(i) < 0x09) {
      asciiOnly = false;
      break;
    }
  }
  if (asciiOnly) {
    const identity = Uint32Array.from({ length: input.length }, (_, i) => i);
    return { text: input, starts: identity, ends: identity.map((i) => i + 1) };
  }
  let offset = 0;
  for (const cp of input) {
    const end = offset + cp.length;
    if (!isIgnorable(cp)) {
      const folded = cp.normalize('NFKC');
      parts.push(folded);
      for (let k = 0; k < folded.length; k++) {
        starts.push(offset);
        ends.push(end);
      }
    }
    offset = end;
  }
  return { text: parts.join(''), starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

/** Maps a half-open range of the normalised text back to the original text. */
export function originalRange(mapped: MappedText, start: number, end: number): [number, number] {
  return [mapped.starts[start]!, mapped.ends[end - 1]!];
}

/**
 * Latin look-alikes from Cyrillic, Greek and a few other blocks that NFKC leaves alone, plus the
 * digit/symbol substitutions of "l33t" spelling. Used only for phrase matching, never for redaction.
 */
const CONFUSABLES: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x',
  ѕ: 's', і: 'i', ї: 'i', ј: 'j', ԁ: 'd', ԛ: 'q', ԝ: 'w', ɡ: 'g', һ: 'h', ո: 'n', ս: 'u', ց: 'g', օ: 'o',
  // Greek
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', γ: 'y', ω: 'w',
  // Latin extensions and IPA that look like ASCII letters
  ı: 'i', ł: 'l', ø: 'o', ð: 'd', đ: 'd', ħ: 'h', ŀ: 'l', ɑ: 'a', ɩ: 'i', ɪ: 'i', ʟ: 'l', ɴ: 'n', ʀ: 'r', ꜱ: 's', ᴀ: 'a', ᴄ: 'c', ᴅ: 'd', ᴇ: 'e', ᴋ: 'k', ᴍ: 'm', ᴏ: 'o', ᴘ: 'p', ᴛ: 't', ᴜ: 'u', ᴠ: 'v', ᴡ: 'w', ᴢ: 'z',
  // l33t
  '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's',
};

/**
 * The skeleton used for phrase matching: compatibility-decomposed, accents and ignorable
 * characters removed, lower-cased, look-alikes folded to ASCII, and everything that is not a
 * letter dropped — so spacing and punctuation tricks ("i.g.n.o.r.e", "ignore\nprevious") do not
 * separate the words of a phrase either.
 */
export function phraseSkeleton(input: string): string {
  const out: string[] = [];
  for (const cp of input.normalize('NFKD')) {
    if (isIgnorable(cp) || /\p{M}/u.test(cp)) continue;
    const lower = cp.toLowerCase();
    for (const ch of lower) {
      const folded = CONFUSABLES[ch] ?? ch;
      if (folded >= 'a' && folded <= 'z') out.push(folded);
    }
  }
  return out.join('');
}
