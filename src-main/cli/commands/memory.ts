import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { writeLines } from '../../audit/export.js';
import { writeLinesAtomic } from '../../home/atomic-lines.js';
import { pidAlive } from '../../home/home.js';
import { homePaths, resolveHome } from '../../home/paths.js';
import type { ImportMode, Progress } from '../../silas/memory/portability.js';
import { parseFlags } from '../args.js';
import { UsageError, runSubcommand, type CliIo, type Command, type Subcommand } from '../io.js';
import { terminalSafe } from './plan.js';

/*
 * `silas memory export|import` (spec 002 §4.2.3, §6.5; docs/silas/memory-portability.md): Silas's
 * memory as a portable, versioned JSON-lines bundle, and back. Both are owner acts with the OS
 * keyring: memories are read through their seals and written sealed, and both are recorded.
 */

const usage = `Usage: silas memory export [--out FILE] [--scope ID] [--since ISO] [--no-raw] [--home DIR]
       silas memory import FILE [--mode merge|replace] [--home DIR] [--json]

  silas memory export [--out FILE] [--scope ID] [--since ISO] [--no-raw] [--home DIR]
      Write the memory store as a portable bundle (spec 002 §6.5): JSON lines, a header, one
      memory per line with every field (vectors left out: they are rebuilt after an import) and
      a trailer with the count and SHA-256, so a cut or changed bundle is refused on import.
      To stdout, or to FILE (mode 0600, written whole or not at all). --scope ID: one scope (the
      owner's memory is "owner"; default every scope). --since ISO: only memories created or
      changed since then. --no-raw: leave out the raw (low_reingestion) lane. A memory whose
      seal does not hold is exported as the runtime reads it: external, working. Needs the OS
      keyring; recorded in the ledger (silas.memory.exported). Progress goes to stderr.
  silas memory import FILE [--mode merge|replace] [--home DIR] [--json]
      Check the whole bundle first (header, every line, count, SHA-256), then write it in one
      transaction; a bundle that is cut, changed, foreign or invalid changes nothing and the
      error names the line, field and fix. Taint, trust level, lane and every other field are
      kept, and each memory is sealed with this home's key.
      merge (default): insert each memory, or overwrite the one with its memory_id.
      replace: what the bundle covers (its scope, or every scope; with or without the raw lane,
      as its header says) becomes exactly the bundle: memories it does not hold are removed.
      Refused whole, and recorded, when it would change or remove a constitutional memory or
      change a verified one (spec 002 §3.8). Recorded in the ledger (silas.memory.imported).`;

/**
 * A bundle this large is not imported under a running control center: the import holds the
 * database's write lock for its whole length (one transaction, so a cut import changes nothing),
 * about 4,000 memories a second, and the runtime's turns and proxies would fail their writes
 * after SQLite's 5 s busy timeout meanwhile.
 */
export const LARGE_IMPORT_BYTES = 5 * 2 ** 20;

/** Progress on stderr every this many memories: silent for a small store, a few lines for a large one. */
export const PROGRESS_EVERY = 50_000;

const count = (n: number) => n.toLocaleString('en-US');

function progressOn(io: CliIo): Progress {
  return { every: PROGRESS_EVERY, report: (done, total, phase) => io.err(`silas memory: ${phase} ${count(done)} of ${count(total)} memories…`) };
}

function isoTime(flag: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  const time = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time.getTime())) {
    throw new UsageError(`${flag}: expected an ISO 8601 time such as 2026-01-24T10:30:00Z, got "${terminalSafe(value.slice(0, 60))}"`, usage);
  }
  return time.toISOString();
}

async function exportMemory(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values } = parseFlags(argv, { home: { type: 'string' }, out: { type: 'string' }, scope: { type: 'string' }, since: { type: 'string' }, 'no-raw': { type: 'boolean' } }, usage);
  if (values.help) return help(io);
  const since = isoTime('--since', values.since);
  if (values.scope !== undefined && (values.scope.length === 0 || values.scope.length > 200)) throw new UsageError('--scope: a scope id has 1 to 200 characters (the owner\'s memory is "owner")', usage);
  if (values.out === '') throw new UsageError('--out: name a file, or leave --out out to write to stdout', usage);
  const out = values.out === undefined ? null : resolve(values.out);
  const ledger = (await (await open(resolveHome(values.home, io.env))).database()).openMemory();
  try {
    const write = async (lines: Iterable<string>): Promise<void> => {
      if (out !== null) writeFile(out, lines);
      // A stream when there is one (the process's stdout, with backpressure); tests capture `io.out`.
      else if (io.stdout) await writeLines(lines, io.stdout);
      else for (const line of lines) io.out(line);
    };
    const options = { scope: values.scope ?? null, includeRaw: !values['no-raw'], since, progress: progressOn(io) };
    const summary = await ledger.portability.exportBundle(options, write, out ?? 'stdout');
    const said = `exported ${count(summary.count)} memories (${count(summary.bytes)} bytes, sha256 ${summary.sha256})${out === null ? '' : ` to ${terminalSafe(out)}`}`;
    // On stdout the bundle is the output: what was done goes to stderr.
    (out === null ? io.err : io.out)(out === null ? `silas memory: ${said}` : said);
    return 0;
  } finally {
    ledger.close();
  }
}

async function importMemory(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values, positionals } = parseFlags(argv, { home: { type: 'string' }, mode: { type: 'string' }, json: { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  if (positionals.length !== 1) throw new UsageError('memory import: name one bundle file, e.g. silas memory import memory.jsonl', usage);
  const mode = values.mode ?? 'merge';
  if (mode !== 'merge' && mode !== 'replace') throw new UsageError(`--mode: expected merge or replace, got "${terminalSafe(mode.slice(0, 40))}"`, usage);
  const file = resolve(positionals[0]!);
  const home = resolveHome(values.home, io.env);
  refuseLargeImportWhileRunning(home, file);
  const ledger = (await (await open(home)).database()).openMemory();
  try {
    const summary = ledger.portability.importBundle(file, mode as ImportMode, { progress: progressOn(io) });
    if (values.json) {
      const { header, ...rest } = summary;
      io.out(JSON.stringify({ ok: true, ...rest, scope: header.scope, include_raw: header.include_raw, exported_at: header.exported_at }));
    } else {
      io.out(
        `imported ${terminalSafe(file)} (--mode ${mode}, ${header(summary.header)}): ${count(summary.count)} memories: ${count(summary.inserted)} new, ${count(summary.updated)} updated, ${count(summary.unchanged)} unchanged, ${count(summary.removed)} removed. Each is sealed with this home's key; recall by meaning picks them up as the runtime embeds them again.`,
      );
    }
    return 0;
  } finally {
    ledger.close();
  }
}

function refuseLargeImportWhileRunning(home: string, file: string): void {
  let size: number;
  let pid: number;
  try {
    size = statSync(file).size;
    pid = Number.parseInt(readFileSync(homePaths(home).lockFile, 'utf8').trim(), 10);
  } catch {
    return; // no such bundle (the import names it), or no runtime
  }
  if (size <= LARGE_IMPORT_BYTES || !Number.isSafeInteger(pid) || !pidAlive(pid)) return;
  throw new SilasError(
    ErrorCode.Conflict,
    `the control center is running (pid ${pid}) and this bundle is ${(size / 2 ** 20).toFixed(1)} MB: importing it holds the database for a while, and the runtime's conversations and proxies would fail meanwhile. Stop the control center (quit the app, or Ctrl-C where \`silas start\` runs), import, then start it again; nothing was imported`,
  );
}

/** The bundle to FILE, whole or not at all; a file system's refusal said as such, not as a crash. */
function writeFile(out: string, lines: Iterable<string>): void {
  try {
    writeLinesAtomic(out, lines, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !/^E[A-Z]+$/.test(code)) throw error;
    throw new SilasError(ErrorCode.Permission, `cannot write ${terminalSafe(out)}: ${terminalSafe((error as Error).message)}; name a file in a folder that exists and you can write (nothing was exported)`);
  }
}

function header(h: { scope: string | null; include_raw: boolean; exported_at: string }): string {
  return `${h.scope === null ? 'every scope' : `scope ${terminalSafe(h.scope)}`}, ${h.include_raw ? 'both lanes' : 'active lane only'}, exported ${h.exported_at}`;
}

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

const subcommands: Record<string, Subcommand> = { export: exportMemory, import: importMemory };

export const memoryCommand: Command = {
  name: 'memory',
  usage,
  run: (argv, io, open) => runSubcommand('memory', usage, subcommands, argv, io, open),
};
