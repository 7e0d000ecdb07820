import type { OpenForCommand } from '../app/cli-context.js';
import type { SecretStore } from '../keys/secret-store.js';
import type { SessionBus } from '../keys/session-bus.js';

/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  secretStore?: SecretStore;
  /** Standard input, for commands that read JSON lines (`policy eval`). */
  stdin?: NodeJS.ReadableStream;
  /** Standard output as a stream, for commands that write more than fits in memory (`audit export`, with backpressure). */
  stdout?: NodeJS.WritableStream;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); used by `start`. */
  stopSignal?: Promise<string>;
  /**
   * Where `--approve-here` asks the person, when not the controlling terminal: set only in-process
   * (tests driving the whole CLI), never from anything outside the process.
   */
  approvalTerminal?: ApprovalTerminalSource;
  /** Linux: the D-Bus session this process found for the keyring (environment or on disk), set by the process entry. */
  sessionBus?: SessionBus;
}

/** Bad usage: print the command's usage and exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A `silas` subcommand. Its one-line summary lives in commands/registry.ts, so help needs no module.
 * `open` gives it the home and keyring once it knows which home (app/cli-context.ts): commands
 * build no infrastructure themselves (docs/architecture.md §3).
 */
export interface Command {
  name: string;
  usage: string;
  run(argv: string[], io: CliIo, open: OpenForCommand): Promise<number>;
}

export type Subcommand = (argv: string[], io: CliIo, open: OpenForCommand) => Promise<number>;

/**
 * `silas <command> <subcommand> …`: help, a missing or unknown subcommand (exit 2 with the
 * known names), and only the command's own subcommands — never a name inherited from Object.
 */
export function runSubcommand(command: string, usage: string, subcommands: Readonly<Record<string, Subcommand>>, argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const [sub, ...rest] = argv;
  const known = Object.keys(subcommands).join(', ');
  if (sub === undefined) throw new UsageError(`${command}: name a subcommand (${known})`, usage);
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.out(usage);
    return Promise.resolve(0);
  }
  const run = Object.hasOwn(subcommands, sub) ? subcommands[sub] : undefined;
  if (!run) throw new UsageError(`unknown ${command} command "${sub}"; known: ${known}`, usage);
  return run(rest, io, open);
}

export interface ApprovalTerminal {
  /** Writes `prompt` to the terminal and resolves with the next line typed there; null when the terminal closed. */
  ask(prompt: string): Promise<string | null>;
}

/** The terminal to confirm approvals on, or why there is none. Tests inject one (a pseudo-terminal's). */
export type ApprovalTerminalSource = (io: CliIo) => ApprovalTerminal | { refused: string };
