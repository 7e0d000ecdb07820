/**
 * Streams the text of the `"message"` field of a JSON answer while the model is still writing it
 * (docs/silas/stream.md "Streamed tokens"). The Proxy and the Planner answer with one JSON object
 * (§5.1.0); the person should see the message as it is written, not the JSON around it. This
 * decoder follows the text piece by piece, finds the first `"message": "` outside any string, and
 * emits the string's decoded characters until its closing quote. It never emits anything that is
 * not inside that string, so a draft can never show raw JSON; the validated answer replaces the
 * draft at the end of the turn either way.
 */
export class MessageFieldStreamer {
  private state: 'seeking' | 'inside' | 'done' = 'seeking';
  /** Text not yet decided on: a key in progress, or an escape sequence cut by a chunk boundary. */
  private pending = '';
  private inString = false;
  private escaped = false;
  private currentKey = '';
  private lastKey: string | null = null;
  private afterColon = false;

  constructor(private readonly field = 'message') {}

  /** Feeds the next piece of the answer; returns the message text it completes (possibly empty). */
  push(chunk: string): string {
    if (this.state === 'done') return '';
    let out = '';
    let text = this.pending + chunk;
    this.pending = '';
    let i = 0;
    while (i < text.length) {
      if (this.state === 'inside') {
        const ch = text[i]!;
        if (ch === '"') {
          this.state = 'done';
          return out;
        }
        if (ch !== '\\') {
          out += ch;
          i += 1;
          continue;
        }
        const decoded = decodeEscape(text, i);
        if (decoded === null) {
          // The escape continues in the next chunk.
          this.pending = text.slice(i);
          return out;
        }
        out += decoded.text;
        i = decoded.next;
        continue;
      }
      const ch = text[i]!;
      i += 1;
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          this.currentKey += ch;
        } else if (ch === '\\') {
          this.escaped = true;
        } else if (ch === '"') {
          this.inString = false;
          this.lastKey = this.currentKey;
        } else {
          this.currentKey += ch;
        }
        continue;
      }
      if (ch === '"') {
        if (this.afterColon && this.lastKey === this.field) {
          this.state = 'inside';
          this.afterColon = false;
          continue;
        }
        this.inString = true;
        this.currentKey = '';
        this.afterColon = false;
        continue;
      }
      if (ch === ':') {
        this.afterColon = true;
        continue;
      }
      if (/\s/.test(ch)) continue;
      // A value that is not a string (null, a number, an object): the key it followed is spent.
      this.afterColon = false;
      this.lastKey = null;
    }
    text = '';
    return out;
  }
}

const SIMPLE: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The escape at `text[at]` (a backslash): its text and where the next character starts, or null when cut short. */
function decodeEscape(text: string, at: number): { text: string; next: number } | null {
  const kind = text[at + 1];
  if (kind === undefined) return null;
  if (kind !== 'u') return { text: SIMPLE[kind] ?? kind, next: at + 2 };
  const hex = text.slice(at + 2, at + 6);
  if (hex.length < 4) return null;
  const code = Number.parseInt(hex, 16);
  if (!Number.isFinite(code)) return { text: '', next: at + 6 };
  // A high surrogate waits for its low half so a draft never carries half a character.
  if (code >= 0xd800 && code <= 0xdbff) {
    if (text.length < at + 12) return null;
    if (text[at + 6] === '\\' && text[at + 7] === 'u') {
      const low = Number.parseInt(text.slice(at + 8, at + 12), 16);
      if (low >= 0xdc00 && low <= 0xdfff) return { text: String.fromCharCode(code, low), next: at + 12 };
    }
    return { text: '', next: at + 6 };
  }
  return { text: String.fromCharCode(code), next: at + 6 };
}
