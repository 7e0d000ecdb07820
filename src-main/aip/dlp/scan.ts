import { decodeRun, findRuns } from './encoding.js';
import { disguisedIndexes, JOIN_TOTAL_MAX, JOIN_VALUE_MAX, joinedSpans, viewSpans, type JoinedValue } from './normalized.js';
import { applySpans, type PatternView, type Span } from './patterns.js';

/*
 * One scan of one request or response: the max_scan_size budget, batching, and the two-stage
 * match of patterns.ts.
 *
 * Strings arrive in document order (`add`). Plain-text strings are gathered into batches of about
 * BATCH_UNITS UTF-16 units and joined with `\n`; one RE2.Set pass over the joined batch decides
 * whether anything in it can match. A batch that can is bisected (join each half, test again)
 * down to single strings, and only those strings run the individual patterns the set reported.
 * With few matches this costs about one set pass over the content plus a few small re-scans,
 * instead of one native call per string per pattern.
 *
 * Budget (max_scan_size): the UTF-8 bytes of the string values scanned, in document order (keys,
 * numbers and JSON punctuation are not content; fields that are not scanned do not count). The
 * string that crosses the limit is scanned up to the last whole character that fits (never
 * splitting a UTF-8 sequence or a surrogate pair) and the rest of it, and everything after it, is
 * passed through unscanned, with one warning (§3.6.3).
 *
 * With normalize (x-silas-normalize, normalized.ts) disguised strings are also matched in their
 * normalised views, and the message's string values are matched once more joined. Spans are
 * therefore gathered per string and written out at `finish`, when the joined scan has added its
 * parts.
 */

const BATCH_UNITS = 16 * 1024;

export interface ScanSlot {
  /** The string as found. */
  text: string;
  /** A known base64 payload (MCP image/audio `data`, resource `blob`): only decoded and scanned, never matched as text. */
  encoded: boolean;
  /** The redacted string, when it changed. */
  out: string | null;
  /** A string value (not a key or a number) that may take part in the joined scan. */
  joinable?: boolean;
}

export interface ScanOptions {
  view: PatternView;
  names: readonly string[];
  limit: number;
  detectEncoding: boolean;
  normalize: boolean;
  direction: 'request' | 'response';
  warn: (message: string) => void;
}

/** The longest prefix of `text` (in UTF-16 units) whose UTF-8 encoding fits in `maxBytes`, never splitting a surrogate pair. */
export function utf16PrefixForBytes(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let width = 3;
    let step = 1;
    if (c < 0x80) width = 1;
    else if (c < 0x800) width = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      width = 4;
      step = 2;
    }
    if (bytes + width > maxBytes) break;
    bytes += width;
    i += step;
  }
  return i;
}

export class ScanSession<S extends ScanSlot> {
  readonly counts: number[];
  readonly warnings: string[] = [];
  readonly changed: S[] = [];
  private pending: S[] = [];
  private pendingUnits = 0;
  private used = 0;
  private stopped = false;
  private finished = false;
  /** Per string with matches: what was scanned of it and its spans, written out at finish. */
  private readonly found = new Map<S, { scanned: string; spans: Span[] }>();
  private readonly joinable: { slot: S; group: number }[] = [];
  private joinUnits = 0;
  private joinGroup = 0;

  constructor(private readonly options: ScanOptions) {
    this.counts = new Array<number>(options.names.length).fill(0);
  }

  /** Whether the budget ran out (the caller may stop walking). */
  get exhausted(): boolean {
    return this.stopped;
  }

  /** Queues a string; returns false once the budget is exhausted and nothing more will be scanned. */
  add(slot: S): boolean {
    if (this.stopped) return false;
    if (slot.text.length === 0) return true;
    if (slot.encoded) {
      if (!this.options.detectEncoding) return true;
      this.flush();
      this.process([slot], true);
      return !this.stopped;
    }
    this.pending.push(slot);
    this.pendingUnits += slot.text.length;
    if (this.pendingUnits >= BATCH_UNITS) this.flush();
    return !this.stopped;
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.flush();
    if (this.options.normalize && this.joinable.length >= 2) this.joinScan();
    for (const [slot, { scanned, spans }] of this.found) {
      const redacted = applySpans(scanned, spans, this.options.names, this.counts);
      slot.out = scanned.length === slot.text.length ? redacted : redacted + slot.text.slice(scanned.length);
      this.changed.push(slot);
    }
  }

  private joinScan(): void {
    const values: JoinedValue[] = this.joinable.map(({ slot, group }) => ({ text: slot.text, group, own: this.found.get(slot)?.spans }));
    const parts = joinedSpans(this.options.view, values);
    parts.forEach((spans, k) => {
      if (spans !== undefined) this.record(this.joinable[k]!.slot, this.joinable[k]!.slot.text, spans);
    });
  }

  private record(slot: S, scanned: string, spans: Span[]): void {
    const existing = this.found.get(slot);
    if (existing === undefined) this.found.set(slot, { scanned, spans: spans.slice() });
    else existing.spans.push(...spans);
  }

  /** Queues a fully scanned string value for the joined scan; a value too long to join breaks the sequence. */
  private queueJoin(slot: S, scannedUnits: number): void {
    if (slot.joinable !== true) return;
    if (slot.text.length > JOIN_VALUE_MAX || scannedUnits < slot.text.length || this.joinUnits + slot.text.length > JOIN_TOTAL_MAX) {
      this.joinGroup += 1;
      return;
    }
    this.joinable.push({ slot, group: this.joinGroup });
    this.joinUnits += slot.text.length;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const slots = this.pending;
    this.pending = [];
    this.pendingUnits = 0;
    this.process(slots, false);
  }

  private overflow(): void {
    this.stopped = true;
    const { limit, direction } = this.options;
    const message = `DLP: ${direction} content exceeds max_scan_size (${limit} bytes); only the first ${limit} bytes were scanned`;
    this.warnings.push(message);
    this.options.warn(message);
  }

  private process(slots: S[], encoded: boolean): void {
    if (this.stopped) return;
    const { limit } = this.options;
    if (this.used >= limit) {
      this.overflow();
      return;
    }
    const texts = slots.map((slot) => slot.text);
    let joined = texts.length === 1 ? texts[0]! : texts.join('\n');
    const bytes = Buffer.byteLength(joined) - (texts.length - 1);
    if (this.used + bytes > limit) {
      let remaining = limit - this.used;
      let k = 0;
      for (; k < texts.length; k += 1) {
        const size = Buffer.byteLength(texts[k]!);
        if (size > remaining) break;
        remaining -= size;
      }
      const cut = utf16PrefixForBytes(texts[k]!, remaining);
      const keep = cut > 0 ? k + 1 : k;
      slots.length = keep;
      texts.length = keep;
      if (cut > 0) texts[k] = texts[k]!.slice(0, cut);
      this.used = limit;
      this.overflow();
      if (keep === 0) return;
      joined = texts.join('\n');
    } else {
      this.used += bytes;
    }
    this.scan(slots, texts, joined, encoded);
  }

  private scan(slots: S[], texts: string[], joined: string, encoded: boolean): void {
    const { view, detectEncoding } = this.options;
    const n = texts.length;
    const spans: (Span[] | undefined)[] = new Array<Span[] | undefined>(n);

    if (!encoded) {
      if (view.set !== null) {
        const hits: (number[] | undefined)[] = new Array<number[] | undefined>(n);
        const leaf = (i: number): void => {
          const found = view.setHits(texts[i]!);
          if (found.length > 0) hits[i] = found;
        };
        const bisect = (lo: number, hi: number): void => {
          if (hi - lo === 1) return leaf(lo);
          if (!view.setMayMatch(texts.slice(lo, hi).join('\n'))) return;
          const mid = (lo + hi) >>> 1;
          bisect(lo, mid);
          bisect(mid, hi);
        };
        if (n === 1) leaf(0);
        else if (view.setMayMatch(joined)) {
          const mid = n >>> 1;
          bisect(0, mid);
          bisect(mid, n);
        }
        for (let i = 0; i < n; i += 1) {
          const found = hits[i];
          if (found !== undefined) spans[i] = view.spans(texts[i]!, found);
        }
      }
      if (view.alwaysRun.length > 0) {
        for (let i = 0; i < n; i += 1) {
          const extra = view.spans(texts[i]!, view.alwaysRun);
          if (extra.length > 0) spans[i] = (spans[i] ?? []).concat(extra);
        }
      }
    }

    if (detectEncoding) this.encodedSpans(texts, joined, encoded, spans);

    if (this.options.normalize && !encoded) {
      for (const i of disguisedIndexes(texts, joined)) viewSpans(view, texts[i]!, (spans[i] ??= []));
      for (let i = 0; i < n; i += 1) this.queueJoin(slots[i]!, texts[i]!.length);
    }

    for (let i = 0; i < n; i += 1) {
      const found = spans[i];
      if (found !== undefined && found.length > 0) this.record(slots[i]!, texts[i]!, found);
    }
  }

  /** Spans for encoded runs whose decoded text matches a pattern; the span covers the whole run. */
  private encodedSpans(texts: string[], joined: string, wholeField: boolean, spans: (Span[] | undefined)[]): void {
    if (wholeField) {
      const text = texts[0]!;
      const label = this.labelDecoded(decodeRun(text, true));
      if (label >= 0) (spans[0] ??= []).push({ start: 0, end: text.length, pattern: label });
      return;
    }
    const runs = findRuns(joined);
    if (runs.length === 0) return;
    const starts = new Array<number>(texts.length);
    let offset = 0;
    for (let i = 0; i < texts.length; i += 1) {
      starts[i] = offset;
      offset += texts[i]!.length + 1;
    }
    let index = 0;
    for (const run of runs) {
      // Runs come in ascending order and never cross the `\n` separators.
      while (index + 1 < texts.length && starts[index + 1]! <= run.start) index += 1;
      const label = this.labelDecoded(decodeRun(joined.slice(run.start, run.end)));
      if (label < 0) continue;
      const base = starts[index]!;
      (spans[index] ??= []).push({ start: run.start - base, end: run.end - base, pattern: label });
    }
  }

  /** The first pattern (policy order) with a non-empty match in any decoding, or -1. */
  private labelDecoded(decodings: string[]): number {
    const { view } = this.options;
    let best = -1;
    for (const text of decodings) {
      for (const candidate of view.candidates(text)) {
        if (best >= 0 && candidate >= best) break;
        const found = view.spans(text, [candidate]);
        if (found.length > 0) {
          best = candidate;
          break;
        }
      }
    }
    return best;
  }
}
