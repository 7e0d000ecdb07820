/*
 * Name normalisation, spec 001 §4.1. Tool names and method names are compared only in this
 * form, on both sides: as written in the policy and as sent by the agent.
 *
 *   1. NFKC            fullwidth ｄｅｌｅｔｅ → delete, ligature ﬁ → fi, superscript ² → 2
 *   2. lowercase       per code point, Unicode simple case mapping (as Go's strings.ToLower)
 *   3./4. remove every code point that is not printable, then trim spaces
 *
 * Decisions (recorded in docs/conformance.md, "AIP policy loading"):
 *
 * - "Printable" is Go's unicode.IsPrint, the reference implementation's test: letters (L),
 *   marks (M), numbers (N), punctuation (P), symbols (S) and the ASCII space. Everything else
 *   is removed: controls (Cc), format characters (Cf: zero-width space/joiners U+200B–U+200D,
 *   word joiner U+2060, BOM U+FEFF, bidi controls U+202A–U+202E and U+2066–U+2069, tag
 *   characters), surrogates (Cs), private use (Co), unassigned code points (Cn), line and
 *   paragraph separators (Zl, Zp) and every space other than U+0020 (NFKC already maps most
 *   of them, e.g. NBSP and U+3000, to U+0020).
 * - Removal happens before trimming, not after as the spec lists it: with the spec's order,
 *   "read_file\u200B " keeps its trailing space (trim sees the zero-width character last,
 *   then removal exposes the space), so a padded name would not match its clean form.
 * - The steps repeat until the result no longer changes (at most a few rounds): removing a
 *   zero-width character can bring a base letter next to a combining mark that NFKC then
 *   composes. So normalizeName(normalizeName(x)) === normalizeName(x) always holds.
 * - Lowercasing is per code point with the simple mapping, like Go and unlike
 *   String.prototype.toLowerCase: no final-sigma context ("ΟΔΟΣ" → "οδοσ", and "ς" stays "ς"),
 *   and "İ" (U+0130) → "i", not "i̇". It is locale-independent (no Turkish or Lithuanian
 *   rules).
 * - Look-alikes from other scripts are NOT folded (Cyrillic "а" stays distinct from Latin
 *   "a"), as spec §10.3 acknowledges. A look-alike name is a different tool: it is not in
 *   allowed_tools, so it is denied by default.
 */

const NOT_PRINTABLE = /[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/gu;
const MAX_ROUNDS = 4;

function lowerSimple(text: string): string {
  let out = '';
  for (const ch of text) {
    // U+0130 is the only code point whose full lowercase mapping has two code points
    // ("i" + U+0307); its simple mapping, the one Go uses, is "i".
    out += ch === '\u0130' ? 'i' : ch.toLowerCase();
  }
  return out;
}

function round(text: string): string {
  return lowerSimple(text.normalize('NFKC')).replace(NOT_PRINTABLE, '').replace(/^ +| +$/g, '');
}

/** §4.1 NORMALIZE: the form in which tool and method names are compared. */
export function normalizeName(input: string): string {
  let current = input;
  for (let i = 0; i < MAX_ROUNDS; i++) {
    const next = round(current);
    if (next === current) return next;
    current = next;
  }
  return current;
}
