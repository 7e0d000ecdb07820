import type { SecretStore } from '../keys/secret-store.js';

/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  secretStore?: SecretStore;
  /** Standard input, for commands that read JSON lines (`policy eval`). */
  stdin?: NodeJS.ReadableStream;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); used by `start`. */
  stopSignal?: Promise<string>;
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

export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
