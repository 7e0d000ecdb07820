import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { ILP_LIMITS } from '../../ilp/protocol/limits.js';
import type { IlpMessage, IlpSyntaxError } from '../../ilp/protocol/message.js';
import { parseIlpMessage } from '../../ilp/protocol/parse.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand } from '../io.js';
import { terminalSafe } from './plan.js';

const usage = `Usage: silas ilp parse FILE [--json]

  silas ilp parse FILE [--json]
      Read one ILP/1.0 message (spec 004 §5: a request line or status line, header fields whose
      JSON values may run over several lines, a blank line and a JSON body). Exit 0 when it is a
      valid message, 1 when it is not (the 400 it would get, naming the field).

Options:
  --json       print {"kind","method","path","version","status","reason","headers":{NAME: VALUE},"body"},
               or {"error":{"status":400,"field","message"}}
  -h, --help   show this help`;

/** The most a message file may be: one message's headers and body, and the blank line between. */
const FILE_MAX = ILP_LIMITS.headerSection + ILP_LIMITS.body + 4;

/** The file's bytes, or why it cannot be a message; a FIFO or device is refused before it is read. */
function readMessageFile(file: string): Uint8Array | string {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO to read would otherwise wait for a writer that never comes.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return `cannot read ${file}: no such file`;
    if (code === 'EACCES') return `cannot read ${file}: permission denied`;
    return `cannot read ${file}: ${(error as Error).message}`;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return `${file} is not a regular file; name a file holding one ILP message`;
    if (stat.size > FILE_MAX) return `${file} is ${stat.size} bytes; one ILP message is at most ${FILE_MAX}`;
    const bytes = new Uint8Array(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** The message as `--json` prints it: every key present, null where the kind has none. */
function asJson(message: IlpMessage) {
  return {
    kind: message.kind,
    method: message.kind === 'request' ? message.method : null,
    path: message.kind === 'request' ? message.path : null,
    version: message.version,
    status: message.kind === 'response' ? message.status : null,
    reason: message.kind === 'response' ? message.reason : null,
    headers: Object.fromEntries(message.headers.map((h) => [h.name, h.value])),
    body: message.body,
  };
}

function printMessage(io: CliIo, message: IlpMessage): void {
  const s = (text: string) => terminalSafe(text);
  io.out(message.kind === 'request' ? `request ${message.method} ${s(message.path)} (ILP/${message.version})` : `response ${message.status} ${s(message.reason)} (ILP/${message.version})`);
  for (const header of message.headers) io.out(`  ${s(header.name)}: ${s(typeof header.value === 'string' ? header.value : JSON.stringify(header.value))}`);
  io.out(message.body === null ? 'no body' : `body: ${terminalSafe(JSON.stringify(message.body, null, 2), true)}`);
}

function printError(io: CliIo, error: IlpSyntaxError, json: boolean | undefined): number {
  if (json) io.out(JSON.stringify({ error }));
  else io.err(`not a valid ILP message (${error.status}): ${terminalSafe(error.field)}: ${terminalSafe(error.message)}`);
  return 1;
}

async function parse(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('ilp parse: name one message file, e.g. silas ilp parse request.ilp', usage);
  const bytes = readMessageFile(positionals[0]!);
  if (typeof bytes === 'string') {
    if (values.json) io.out(JSON.stringify({ error: { status: 400, field: 'file', message: bytes } }));
    else io.err(bytes);
    return 1;
  }
  const parsed = parseIlpMessage(bytes);
  if (!parsed.ok) return printError(io, parsed.error, values.json);
  if (values.json) io.out(JSON.stringify(asJson(parsed.message)));
  else printMessage(io, parsed.message);
  return 0;
}

export const ilpCommand: Command = {
  name: 'ilp',
  usage,
  run: (argv, io, open) => runSubcommand('ilp', usage, { parse }, argv, io, open),
};
