import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { answerStartFailure, PROXY_NOT_STARTED } from './start-failure.js';

// docs/mcp-proxy.md "Starting under any client": a proxy that cannot start answers every request
// with why, answers no notification, and leaves when its client closes stdin.

describe('a proxy that could not start', () => {
  it('answers each request (batches too) with the failure, never a notification, and returns when stdin ends', async () => {
    const input = new PassThrough();
    const lines: string[] = [];
    const done = answerStartFailure({ input, writeClient: (line) => lines.push(line), message: 'the keyring is locked; unlock it' });
    input.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\nnot json\n');
    input.write('[{"jsonrpc":"2.0","id":"a","method":"tools/list"},{"jsonrpc":"2.0","id":2,"result":{}}]\n');
    input.end();
    await done;
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: PROXY_NOT_STARTED, message: 'the keyring is locked; unlock it' } },
      { jsonrpc: '2.0', id: 'a', error: { code: PROXY_NOT_STARTED, message: 'the keyring is locked; unlock it' } },
    ]);
  });

  it('returns when the process is asked to stop', async () => {
    let stop!: (signal: string) => void;
    const stopSignal = new Promise<string>((resolve) => (stop = resolve));
    const done = answerStartFailure({ input: new PassThrough(), writeClient: () => undefined, message: 'x', stopSignal });
    stop('SIGTERM');
    await expect(done).resolves.toBeUndefined();
  });
});
