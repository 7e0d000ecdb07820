import { closeSync, openSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { ReadStream } from 'node:tty';
import type { ApprovalTerminalSource } from '../io.js';

/*
 * Where `silas chat --approve-here` and `silas run --approve-here` read the person's confirmation
 * (docs/silas/stream.md "Approving at the terminal"): the controlling terminal, `/dev/tty`, never
 * standard input. A process that pipes lines into chat (or holds no terminal at all) can type
 * messages, but cannot answer an approval prompt, so the owner key signs nothing on its word.
 * Standard input and output must be terminals too: the command runs in the person's terminal,
 * not in a pipeline that merely has one somewhere.
 */

export const APPROVE_HERE_NEEDS_TERMINAL = '--approve-here needs a terminal; approve in the cockpit instead';

// The port types live with CliIo (cli/io.ts), which carries a test's injected terminal.
export type { ApprovalTerminal, ApprovalTerminalSource } from '../io.js';

const isTty = (stream: unknown): boolean => (stream as { isTTY?: boolean } | undefined)?.isTTY === true;

export const controllingTerminal: ApprovalTerminalSource = (io) => {
  if (!isTty(io.stdin) || !isTty(io.stdout)) return { refused: 'standard input and output must both be a terminal' };
  try {
    closeSync(openSync('/dev/tty', 'r+'));
  } catch (error) {
    return { refused: `there is no controlling terminal (/dev/tty: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return { ask: askDevTty };
};

/** One question on /dev/tty, opened for it and closed after: nothing reads the terminal in between. */
function askDevTty(prompt: string): Promise<string | null> {
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    return Promise.resolve(null);
  }
  writeSync(fd, prompt);
  const input = new ReadStream(fd);
  const lines = createInterface({ input, terminal: false });
  return new Promise((resolve) => {
    let answered = false;
    const finish = (line: string | null) => {
      if (answered) return;
      answered = true;
      lines.close();
      // Destroying the stream closes the descriptor.
      input.destroy();
      resolve(line);
    };
    lines.once('line', (line) => finish(line));
    lines.once('close', () => finish(null));
  });
}
