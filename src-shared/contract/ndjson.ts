/**
 * Newline-delimited framing, the one used by MCP stdio and by both ends of the local control
 * socket. A trailing "\r" is dropped and blank lines are skipped. A line longer than `maxLine`
 * characters is reported through `onOverflow` and discarded up to its newline, so one huge line
 * cannot exhaust memory. Bytes are decoded as a stream (a character split across chunks stays
 * whole; a byte-order mark is kept, as it is data).
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private buffer = '';
  private discarding = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 64 * 1024 * 1024,
    private readonly onOverflow: () => void = () => undefined,
  ) {}

  push(chunk: Uint8Array | string): void {
    let text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    for (;;) {
      const nl = text.indexOf('\n');
      if (nl === -1) break;
      const head = text.slice(0, nl);
      text = text.slice(nl + 1);
      if (this.discarding) {
        this.discarding = false;
        this.buffer = '';
        continue;
      }
      const line = this.buffer.length > 0 ? this.buffer + head : head;
      this.buffer = '';
      this.emit(line);
    }
    if (this.discarding) return;
    this.buffer += text;
    if (this.buffer.length > this.maxLine) {
      this.buffer = '';
      this.discarding = true;
      this.onOverflow();
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    const rest = this.buffer + this.decoder.decode();
    this.buffer = '';
    if (!this.discarding && rest.length > 0) this.emit(rest);
  }

  /** Text buffered without a newline yet (stderr flushing). */
  takePartial(): string {
    const rest = this.buffer;
    this.buffer = '';
    return rest;
  }

  private emit(line: string): void {
    const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (trimmed.trim().length > 0) this.onLine(trimmed);
  }
}

/** One frame of newline-delimited JSON: JSON.stringify never emits a raw newline. */
export function ndjsonFrame(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
