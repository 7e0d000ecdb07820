import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a byte stream into newline-delimited lines (the MCP stdio framing). A trailing "\r"
 * is dropped and blank lines are skipped. A line longer than `maxLine` is reported through
 * `onOverflow` and discarded up to its newline, so one huge line cannot exhaust memory.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private discarding = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 64 * 1024 * 1024,
    private readonly onOverflow: () => void = () => undefined,
  ) {}

  push(chunk: Buffer | string): void {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
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
    const rest = this.buffer + this.decoder.end();
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
