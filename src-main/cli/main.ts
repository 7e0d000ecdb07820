import { isSilasError } from '../../src-shared/errors.js';
import { APP_VERSION } from '../app/version.js';
import { adoptSessionBus } from '../keys/session-bus.js';
import { COMMANDS } from './commands/registry.js';
import { UsageError, type CliIo } from './io.js';

// Re-exported for tests and tools that list the commands; each module loads only when run.
export { COMMANDS };

function topUsage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'Usage: silas <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `silas <command> --help` for a command\'s options.',
  ].join('\n');
}

/** Runs one CLI invocation and returns its exit code: 0 ok, 1 failure, 2 bad usage. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.err : io.out)(topUsage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.out(APP_VERSION);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    io.err(`silas: unknown command "${name}"\n\n${topUsage()}`);
    return 2;
  }
  // The context module loads the keyring, so it is imported only once a command runs, never for help.
  const open = async (home: string) => (await import('../app/cli-context.js')).openForCommand(home, io);
  try {
    const command = await entry.load();
    return await command.run(rest, io, open);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`silas ${name}: ${error.message}\n\n${error.usage}`);
      return 2;
    }
    if (isSilasError(error)) {
      io.err(`silas ${name}: ${error.message}`);
      return 1;
    }
    io.err(`silas ${name}: unexpected error: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}

/** Process entry: real stdout/stderr, real signals. */
export async function main(argv: string[]): Promise<number> {
  const stopSignal = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  // MCP clients start `silas proxy` with an environment of their choosing, often without the
  // session bus the OS keyring answers on: find it as libdbus does (docs/mcp-proxy.md "Starting under any client").
  const sessionBus = process.platform === 'linux' ? adoptSessionBus(process.env) : undefined;
  return runCli(argv, {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stopSignal,
    ...(sessionBus ? { sessionBus } : {}),
  });
}
