import RE2 from 're2';

/*
 * The entropy check (`x-silas-verify: entropy`): a secret is random, a placeholder or a name is
 * not. A match counts when its value (the part a person would have to keep secret) carries
 * enough Shannon entropy per character for its length and alphabet, is not one short block
 * repeated, and is not one of the placeholder or reference shapes documentation is full of.
 * Entropy alone cannot tell `os.environ` from a password, which is why the shape guards exist.
 * Alphabet runs (`ABCDEFGH…`) are not refused: their entropy is that of random text, and test
 * suites (the public egress benchmark among them) use them as stand-ins for real tokens that
 * must be caught.
 */

/** Only this much of a value is measured: a secret is far shorter, and the work stays bounded. */
const MAX_MEASURED = 4096;
/** Below this many characters no statistic separates a secret from a word. */
const MIN_SECRET_LENGTH = 8;
/** A segment shorter than this is not judged alone. */
const MIN_SEGMENT_LENGTH = 16;
/** Repetition is looked for in this prefix only (the check is quadratic in it). */
const MAX_PERIOD_PREFIX = 256;

/** Bits per character: over UTF-16 code units of (at most MAX_MEASURED of) `text`. */
export function shannonEntropy(text: string): number {
  const length = Math.min(text.length, MAX_MEASURED);
  if (length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

// scheme://user:PASSWORD@ — the password is the secret, not the scheme or the user.
const URL_PASSWORD = new RE2('^[A-Za-z][A-Za-z0-9+.-]*://[^:@/\\s]*:([^@\\s]*)@', 'u');
const QUOTES_AND_SPACE = new RE2('^[\\s"\'`]+|[\\s"\'`,;]+$', 'gu');

/**
 * The part of a match that is the secret: the password of a URL's user information, else what
 * follows the first `=` or `:` (a `NAME=value` or `"name": "value"` assignment), quotes and
 * spaces trimmed, else the whole match (a bare token).
 */
export function secretValue(match: string): string {
  const url = URL_PASSWORD.exec(match);
  if (url !== null) return url[1]!;
  // The first `=` or `:` after a name, not base64 padding (`==` or a trailing `=`).
  for (let i = 1; i < match.length; i++) {
    const c = match[i];
    if ((c !== '=' && c !== ':') || match[i + 1] === '=') continue;
    const value = match.slice(i + 1).replace(QUOTES_AND_SPACE, '');
    if (value !== '') return value;
  }
  return match.replace(QUOTES_AND_SPACE, '');
}

const HEX = new RE2('^[0-9A-Fa-f]+$', 'u');
const DIGITS = new RE2('^[0-9]+$', 'u');

/**
 * Bits per character a value of `length` characters must reach. Random text over 64 symbols
 * reaches about 4 bits at 20 characters and 4.7 at 40, so 3.5 and 4.0 leave room; hex and digits
 * cannot reach those at all (log2 16 = 4, log2 10 ≈ 3.3), so they get thresholds of their own.
 * Short values are held to 80% of the most their length allows (a value of n distinct characters
 * has log2 n bits).
 */
export function entropyThreshold(value: string): number {
  const length = Math.min(value.length, MAX_MEASURED);
  const alphabetFloor = DIGITS.test(value) ? 2.5 : HEX.test(value) ? 3.0 : length > 40 ? 4.0 : 3.5;
  return length < 20 ? Math.min(alphabetFloor, 0.8 * Math.log2(length)) : alphabetFloor;
}

/** A value made of one short block repeated (`abcabcabc`, `xxxx`): no secret, whatever its entropy. */
function isRepetition(value: string): boolean {
  const n = Math.min(value.length, MAX_PERIOD_PREFIX);
  for (let period = 1; period <= n / 2; period++) {
    let repeats = true;
    for (let i = period; i < n && repeats; i++) repeats = value.charCodeAt(i) === value.charCodeAt(i - period);
    if (repeats) return true;
  }
  return false;
}

// Templating and environment references, and dotted paths (`os.environ`, `process.env.TOKEN`): the secret lives elsewhere.
// Segments are capped at 32 characters so a JWT (`eyJ….eyJ….sig`) is not taken for a path.
const REFERENCE = new RE2('^(?:\\$|%|<|\\{\\{|\\[\\[)|(?:>|\\}\\}|%|\\]\\])$|^[A-Za-z_$][A-Za-z0-9_$]{0,31}(?:\\.[A-Za-z_$][A-Za-z0-9_$]{0,31})+$', 'u');
const PLACEHOLDER_WORDS = new Set([
  'password', 'passwd', 'secret', 'token', 'apikey', 'changeme', 'changeit', 'example', 'placeholder', 'redacted', 'dummy',
  'sample', 'notasecret', 'null', 'undefined', 'none', 'todo', 'replaceme', 'secretkey', 'privatekey', 'accesstoken',
]);
const PLACEHOLDER_STARTS = ['your', 'insert', 'replace', 'enter'];

/** Documentation's stand-ins: `your_api_key_here`, `<token>`, `${DB_PASSWORD}`, `changeme`. */
function isPlaceholder(value: string): boolean {
  if (REFERENCE.test(value)) return true;
  let letters = '';
  let digits = false;
  for (const c of value.slice(0, MAX_PERIOD_PREFIX).toLowerCase()) {
    if (c >= '0' && c <= '9') digits = true;
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) letters += c;
  }
  if (PLACEHOLDER_WORDS.has(letters) || letters.endsWith('here')) return true;
  return !digits && PLACEHOLDER_STARTS.some((start) => letters.startsWith(start));
}

/**
 * Words, not a secret: letters of one case, either short (`incorrect`, `expired`) or joined by
 * `_`, `-` or `.` (`invalid_signature`, `REFRESH_TOKEN_EXPIRED`). Messages and enum values take
 * this shape after `token:` or `password=`; generated secrets mix case or add digits. A passphrase
 * of lower-case words (`correct-horse-battery-staple`) is given up with them.
 */
function isWords(value: string): boolean {
  let lower = false;
  let upper = false;
  let separated = false;
  for (const c of value.slice(0, MAX_MEASURED)) {
    if (c >= 'a' && c <= 'z') lower = true;
    else if (c >= 'A' && c <= 'Z') upper = true;
    else if (c === '_' || c === '-' || c === '.') separated = true;
    else return false;
  }
  return !(lower && upper) && (separated || value.length < 20);
}

/** The longest run between separators (`-`, `_`, `.`, `/`, `+`, `:`): the random part of `xoxp-<id>-<id>-<hex>`. */
function longestSegment(value: string): string {
  let best = '';
  let start = 0;
  const length = Math.min(value.length, MAX_MEASURED);
  for (let i = 0; i <= length; i++) {
    if (i < length && !'-_./+:'.includes(value[i]!)) continue;
    if (i - start > best.length) best = value.slice(start, i);
    start = i + 1;
  }
  return best;
}

function looksRandom(value: string, minLength: number): boolean {
  if (value.length < minLength || isRepetition(value) || isWords(value)) return false;
  return shannonEntropy(value) >= entropyThreshold(value);
}

/**
 * Whether `match` (or its value part, see secretValue) looks like a real secret rather than a
 * stand-in. Structured tokens (`xoxp-<digits>-<digits>-<32 hex>`) mix a low-entropy frame with a
 * random part, so the longest segment may pass on its own when it is long enough to judge.
 */
export function passesEntropy(match: string): boolean {
  const value = secretValue(match);
  if (value.length < MIN_SECRET_LENGTH || isPlaceholder(value)) return false;
  return looksRandom(value, MIN_SECRET_LENGTH) || looksRandom(longestSegment(value), MIN_SEGMENT_LENGTH);
}
