import { LineSplitter } from '../../../src-shared/contract/ndjson.js';

/*
 * A proxy that cannot start (no keyring, so no ledger) still owes its client an answer. An MCP
 * client that sees its child exit shows only "Connection closed"; one that gets a JSON-RPC error
 * for `initialize` shows the error's message. So the proxy stays on the line, answers every
 * request with what failed and what to fix, and leaves when the client closes its stdin
 * (docs/mcp-proxy.md "Starting under any client"). Nothing is forwarded and no server is started.
 */

/** JSON-RPC "Internal error": the proxy itself could not start, before any server existed. */
export const PROXY_NOT_STARTED = -32603;
/** Nothing is forwarded, so nothing large needs reading: a request is answered from its id alone. */
const MAX_LINE = 1024 * 1024;
const MAX_BATCH = 100;

export interface StartFailureAnswerOptions {
  input: NodeJS.ReadableStream;
  writeClient(line: string): void;
  /** What failed and what to fix, as the client will show it. */
  message: string;
  /** Resolves when the process is asked to stop. */
  stopSignal?: Promise<string>;
}

/** Answers each request on `input` with the failure until `input` ends (or a stop is asked); notifications get no answer. */
export function answerStartFailure(options: StartFailureAnswerOptions): Promise<void> {
  const { input, writeClient, message } = options;
  return new Promise<void>((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      input.removeListener('data', onData);
      input.removeListener('end', finish);
      input.removeListener('close', finish);
      input.removeListener('error', finish);
      resolve();
    };
    const splitter = new LineSplitter((line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      for (const request of Array.isArray(parsed) ? parsed.slice(0, MAX_BATCH) : [parsed]) answer(request);
    }, MAX_LINE);
    const answer = (request: unknown): void => {
      if (request === null || typeof request !== 'object') return;
      const { id, method } = request as { id?: unknown; method?: unknown };
      if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return;
      writeClient(JSON.stringify({ jsonrpc: '2.0', id, error: { code: PROXY_NOT_STARTED, message } }));
    };
    const onData = (chunk: Buffer | string): void => splitter.push(chunk);
    if ((input as { readableEnded?: boolean }).readableEnded === true) {
      finish();
      return;
    }
    input.on('data', onData);
    input.once('end', finish);
    input.once('close', finish);
    input.once('error', finish);
    void options.stopSignal?.then(finish);
  });
}
