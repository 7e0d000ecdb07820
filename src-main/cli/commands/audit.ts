import type { Ledger, OpenForCommand } from '../../app/cli-context.js';
import { resolveHome } from '../../home/paths.js';
import { exportLines, writeLines } from '../../audit/export.js';
import { parseFlags, parsePositiveInt } from '../args.js';
import { isSilasError } from '../../../src-shared/errors.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';

const usage = `Usage: silas audit <verify|tail|export|note> [options]

  silas audit verify [--home DIR] [--json] [--from-checkpoint]
      Check the whole keyed chain, every signed checkpoint and the keyring's anchor. Exit 0
      when intact; 1 when broken, or when it cannot be verified (no keyring, no home).
  silas audit tail [-n N] [--home DIR] [--json]
      Show the last N entries (default 20), oldest first.
  silas audit export --format jsonl|aip-jsonl|csv [--since ISO] [--home DIR]
      Write entries to stdout: every entry as JSON lines with its chain fields, only the AIP
      decisions in the exact spec 001 §8 shape (aip-jsonl), or CSV. Streams the ledger as it
      stood when the export began, at the reader's pace; exit 1 if the reader closes early.
  silas audit note TEXT [--home DIR]
      Append an operator note to the ledger.`;

/** The home's ledger for reading: without the keyring, appending and verifying fail closed and say how to unlock it. */
async function openLedgerToRead(values: { home?: string }, io: CliIo, open: OpenForCommand): Promise<Ledger> {
  return (await (await open(resolveHome(values.home, io.env))).database()).openHome({ create: false, keys: 'verify' });
}

/** How often `silas audit verify` reports progress: a few lines for a million entries, none for a small ledger. */
export const VERIFY_PROGRESS_EVERY = 200_000;

async function verify(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { home: { type: 'string' }, json: { type: 'boolean' }, 'from-checkpoint': { type: 'boolean' } }, usage);
  if (values.help) return help(io);
  // With --json every outcome is one JSON object on stdout, including "cannot verify".
  const cannotVerify = (error: unknown): number => {
    if (!values.json || !isSilasError(error)) throw error;
    io.out(JSON.stringify({ valid: false, entries: 0, checkpoints: 0, firstInvalid: null, error: { code: error.code, message: error.message } }));
    io.err(`silas audit: ${error.message}`);
    return 1;
  };
  let ledger: Ledger;
  try {
    ledger = await openLedgerToRead(values, io, open);
  } catch (error) {
    return cannotVerify(error);
  }
  let code: number;
  try {
    // Without the keyring there is nothing to verify against: that is an error, never "intact".
    // A long ledger takes seconds: say how far it got, on stderr so --json output stays one object.
    const total = ledger.audit.head()?.index ?? -1;
    const progress = { every: VERIFY_PROGRESS_EVERY, report: (checked: number) => io.err(`silas audit: verified ${checked.toLocaleString('en-US')} of ${(total + 1).toLocaleString('en-US')} entries…`) };
    const result = values['from-checkpoint'] ? ledger.audit.verifyFromCheckpoint() : ledger.audit.verifyChain(progress);
    if (values.json) {
      io.out(JSON.stringify({ valid: result.valid, entries: result.entries, checkpoints: result.checkpoints, firstInvalid: result.firstInvalid }));
    } else if (result.valid) {
      io.out(`Audit chain intact: ${result.entries} entries, ${result.checkpoints} signed checkpoint(s) verified against the keyring's ledger key, owner key and anchor.`);
    } else {
      const at = result.firstInvalid!;
      io.out(`Audit chain BROKEN at entry ${at.index}${at.id ? ` (${at.id})` : ''}: ${at.reason}`);
    }
    code = result.valid ? 0 : 1;
  } catch (error) {
    code = cannotVerify(error);
  }
  try {
    ledger.close();
  } catch (error) {
    // A broken chain refuses its closing checkpoint; the verdict above already says so.
    if (code === 0) throw error;
  }
  return code;
}

async function tail(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { home: { type: 'string' }, n: { type: 'string', short: 'n' }, json: { type: 'boolean' } }, usage);
  if (values.help) return help(io);
  const count = parsePositiveInt('-n', values.n, 20, 10_000, usage);
  const ledger = await openLedgerToRead(values, io, open);
  try {
    for (const entry of ledger.audit.tail(count)) {
      io.out(values.json ? JSON.stringify(entry) : `#${entry.index}  ${entry.ts}  ${entry.event}  ${JSON.stringify(entry.data)}`);
    }
    return 0;
  } finally {
    ledger.close();
  }
}

async function exportEntries(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { home: { type: 'string' }, format: { type: 'string' }, since: { type: 'string' } }, usage);
  if (values.help) return help(io);
  if (values.format !== 'jsonl' && values.format !== 'csv' && values.format !== 'aip-jsonl') throw new UsageError('--format: expected jsonl, aip-jsonl or csv', usage);
  let since: string | undefined;
  if (values.since !== undefined) {
    const time = new Date(values.since);
    if (!/^\d{4}-\d{2}-\d{2}/.test(values.since) || Number.isNaN(time.getTime())) {
      throw new UsageError(`--since: expected an ISO 8601 time such as 2026-01-24T10:30:00Z, got "${values.since}"`, usage);
    }
    since = time.toISOString();
  }
  const ledger = await openLedgerToRead(values, io, open);
  try {
    const lines = exportLines(ledger.audit.since(since), values.format);
    // A stream when there is one (the process's stdout, with backpressure); tests capture `io.out`.
    if (io.stdout) await writeLines(lines, io.stdout);
    else for (const line of lines) io.out(line);
    return 0;
  } finally {
    ledger.close();
  }
}

async function note(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values, positionals } = parseFlags(argv, { home: { type: 'string' } }, usage, true);
  if (values.help) return help(io);
  const text = positionals.join(' ').trim();
  if (!text) throw new UsageError('audit note: give the note text, e.g. silas audit note "rotated the API key"', usage);
  if (text.length > 4000) throw new UsageError(`audit note: at most 4000 characters, got ${text.length}`, usage);
  const ledger = await openLedgerToRead(values, io, open);
  try {
    const entry = ledger.audit.append('operator.note', { text });
    io.out(`Recorded as entry #${entry.index}.`);
    return 0;
  } finally {
    ledger.close();
  }
}

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

const subcommands: Record<string, Subcommand> = { verify, tail, export: exportEntries, note };

export const auditCommand: Command = {
  name: 'audit',
  usage,
  run: (argv, io, open) => runSubcommand('audit', usage, subcommands, argv, io, open),
};
