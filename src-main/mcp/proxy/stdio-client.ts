import { LineSplitter } from '../../../src-shared/contract/ndjson.js';
import { coalesce } from './coalesce.js';
import type { ClientSide } from './transport.js';

/**
 * The MCP client over the proxy's stdin and stdout, newline-delimited as MCP stdio frames it.
 * Each chunk of input is one batch (transport.ts `onBatch`); stdout has one request in flight
 * at a time, so `relatedRequestId` routes nothing here.
 */
export class StdioClient implements ClientSide {
  onLine?: (line: string) => void;
  onBatch?: (deliver: () => void) => void;
  onFramingError?: (reason: string) => void;
  onClose?: () => void;

  private readonly lines = new LineSplitter(
    (line) => this.onLine?.(line),
    undefined,
    () => this.onFramingError?.('line too long'),
  );
  private readonly write: (line: string) => void;
  private ended = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    /** One line out, without its newline. */
    writeLine: (line: string) => void,
  ) {
    this.write = coalesce(writeLine);
  }

  start(): void {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
  }

  send(line: string): void {
    this.write(line);
  }

  close(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    (this.input as NodeJS.ReadableStream & { pause?: () => void }).pause?.();
  }

  private readonly onData = (chunk: Buffer | string) => this.batch(() => this.lines.push(chunk));

  private readonly onEnd = () => {
    if (this.ended) return;
    this.ended = true;
    // A last line without a newline still counts.
    this.batch(() => this.lines.end());
    this.onClose?.();
  };

  private batch(deliver: () => void): void {
    if (this.onBatch) this.onBatch(deliver);
    else deliver();
  }
}
