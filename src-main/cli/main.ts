import { isSilasError } from '../../src-shared/errors.js';
import { APP_VERSION } from '../app/version.js';
import { aipCommand } from './commands/aip.js';
import { auditCommand } from './commands/audit.js';
import { clientsCommand } from './commands/clients.js';
import { doctorCommand } from './commands/doctor.js';
import { initCommand } from './commands/init.js';
import { planCommand } from './commands/plan.js';
import { policyCommand } from './commands/policy.js';
import { proxyCommand } from './commands/proxy.js';
import { runCommand } from './commands/run.js';
import { startCommand } from './commands/start.js';
import { verifyCommand } from './commands/verify.js';
import { UsageError, type CliIo, type Command } from './io.js';

export const COMMANDS: readonly Command[] = [initCommand, startCommand, policyCommand, proxyCommand, aipCommand, auditCommand, clientsCommand, doctorCommand, planCommand, verifyCommand, runCommand];

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
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`silas: unknown command "${name}"\n\n${topUsage()}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
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
  return runCli(argv, {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    stdin: process.stdin,
    stopSignal,
  });
}
