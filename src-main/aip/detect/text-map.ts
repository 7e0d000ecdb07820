/*
 * The offset maps of normalised views (normalize.ts): every view of a text keeps a map back to the
 * input, so a match found in the view is redacted where it was written.
 */

export interface TextView {
  /** The text as it reads once the layers are undone. */
  text: string;
  /** What was undone, outermost first: 'fold', 'url', 'base64', 'hex'. [] for the input itself. */
  layers: readonly string[];
  /** The original [start, end) (UTF-16 offsets in the input) that a range [start, end) of `text` came from. For a decoded run: the whole encoded run. */
  toOriginal(start: number, end: number): { start: number; end: number };
}


/** Segment k covers view [v[k], v[k+1]) and parent [o[k], o[k+1]) (the last closes at length / oEnd). */
export class SegmentMap {
  constructor(
    private readonly v: number[],
    private readonly o: number[],
    private readonly exact: boolean[],
    private readonly length: number,
    private readonly oEnd: number,
  ) {}

  /** The last segment starting at or before `pos` (zero-length segments sort before the one they precede). */
  private find(pos: number): number {
    let lo = 0;
    let hi = this.v.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.v[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  map(start: number, end: number): { start: number; end: number } {
    if (this.v.length === 0) return { start: this.oEnd, end: this.oEnd };
    let from = this.oEnd;
    if (start < this.length) {
      const k = this.find(start);
      from = this.exact[k]! ? this.o[k]! + start - this.v[k]! : this.o[k]!;
    }
    if (end <= start) return { start: from, end: from };
    const k = this.find(end - 1);
    const to = this.exact[k]! ? this.o[k]! + end - this.v[k]! : k + 1 < this.o.length ? this.o[k + 1]! : this.oEnd;
    return { start: from, end: to };
  }
}

/** Writes a view left to right from its parent text, recording where each piece came from. */
export class ViewBuilder {
  private readonly parts: string[] = [];
  private readonly v: number[] = [];
  private readonly o: number[] = [];
  private readonly exact: boolean[] = [];
  length = 0;
  private oEnd = 0;

  constructor(private readonly source: string) {}

  /** Copies source[from, to) unchanged. */
  copy(from: number, to: number): void {
    if (to <= from) return;
    this.parts.push(this.source.slice(from, to));
    this.segment(from, to, to - from, true);
  }

  /** Writes `text` in place of source[from, to). */
  put(text: string, from: number, to: number): void {
    if (text.length > 0) this.parts.push(text);
    this.segment(from, to, text.length, text.length === to - from);
  }

  private segment(from: number, to: number, units: number, exact: boolean): void {
    const k = this.v.length - 1;
    const extend = exact && k >= 0 && this.exact[k]! && this.oEnd === from && this.v[k]! < this.length;
    if (!extend) {
      this.v.push(this.length);
      this.o.push(from);
      this.exact.push(exact);
    }
    this.length += units;
    this.oEnd = to;
  }

  finish(): { text: string; map: SegmentMap } {
    return { text: this.parts.join(''), map: new SegmentMap(this.v, this.o, this.exact, this.length, this.oEnd) };
  }
}

export class View implements TextView {
  constructor(
    readonly text: string,
    readonly layers: readonly string[],
    private readonly map: SegmentMap | null,
    private readonly parent: View | null,
  ) {}

  toOriginal(start: number, end: number): { start: number; end: number } {
    const clamp = (n: number): number => (Number.isFinite(n) ? Math.min(Math.max(Math.trunc(n), 0), this.text.length) : 0);
    let range = { start: clamp(start), end: Math.max(clamp(start), clamp(end)) };
    if (this.map === null) return range;
    range = this.map.map(range.start, range.end);
    for (let view = this.parent; view !== null && view.map !== null; view = view.parent) range = view.map.map(range.start, range.end);
    return range;
  }
}
