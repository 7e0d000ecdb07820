import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { cliNamedSecrets, MAX_SECRET_BYTES, secretNameProblem } from '../../app/cli-secrets.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';

const usage = `Usage: silas secrets <set|list|delete> [NAME]

  silas secrets set NAME
      Store the value read from standard input as secret NAME in the OS keyring, replacing any
      value it had. One trailing newline is dropped. The value is never taken from arguments or
      the environment, and never printed.
  silas secrets list
      The names of the stored secrets, one a line (never their values).
  silas secrets delete NAME
      Remove secret NAME from the OS keyring.

A policy passes a secret to an MCP server by name (e.g. GITHUB_TOKEN: github-token); the value
lives only in the OS keyring. Names are 1 to 64 characters: letters, digits, "_", "." and "-",
starting with a letter or digit.`;

/** The arguments, or null when help was asked for (and printed). */
function args(argv: string[], io: CliIo): string[] | null {
  let parsed;
  try {
    parsed = parseFlags(argv, {}, usage, true);
  } catch (error) {
    // The parser quotes the option it does not know, and a value pasted after NAME may start with dashes.
    if (error instanceof UsageError) throw new UsageError('secrets: this command takes no options but --help; the value is read from standard input, never from arguments', usage);
    throw error;
  }
  const { values, positionals } = parsed;
  if (!values.help) return positionals;
  io.out(usage);
  return null;
}

/** The one NAME a subcommand takes. Extra arguments are refused without echoing them: one may be the value itself. */
function nameArg(sub: string, positionals: string[]): string {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError(`secrets ${sub}: name the secret`, usage);
  if (extra.length > 0) {
    const hint = sub === 'set' ? '; the value is read from standard input, never from arguments (they show in the process list and shell history)' : '';
    throw new UsageError(`secrets ${sub}: takes exactly one NAME, got ${positionals.length} arguments${hint}`, usage);
  }
  const problem = secretNameProblem(name);
  if (problem !== null) throw new UsageError(problem, usage);
  return name;
}

type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * The whole of standard input, as strict UTF-8: a byte that is not UTF-8 would otherwise become
 * U+FFFD and the stored secret would silently differ from what was piped. Reading stops once the
 * input is past the size limit, so a runaway pipe is not buffered whole.
 */
async function readValue(stdin: Stdin, name: string): Promise<string> {
  // Room for the limit plus a trailing CRLF that is stripped before the limit is checked.
  const limit = MAX_SECRET_BYTES + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Buffer);
    chunks.push(bytes);
    size += bytes.length;
    if (size > limit) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" is longer than ${MAX_SECRET_BYTES} bytes (64 KiB); nothing was stored`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" on standard input is not valid UTF-8; nothing was stored`);
  }
  // `echo value |` and typing then Enter add a newline that is not part of the secret; on
  // Windows it is CRLF. Only one is dropped, so a value that really ends in a newline survives
  // when given with two.
  return text.endsWith('\r\n') ? text.slice(0, -2) : text.endsWith('\n') ? text.slice(0, -1) : text;
}

const set: Subcommand = async (argv, io) => {
  const positionals = args(argv, io);
  if (positionals === null) return 0;
  const name = nameArg('set', positionals);
  const stdin = io.stdin as Stdin | undefined;
  if (!stdin) throw new UsageError('secrets set: needs standard input to read the value from', usage);
  if (stdin.isTTY) {
    io.err(`Type the value of secret "${name}", then press Enter and Ctrl-D. Or pipe it instead, e.g. \`silas secrets set ${name} < FILE\`, so it does not show on screen.`);
  }
  const value = await readValue(stdin, name);
  if (value.length === 0) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" is empty; nothing was stored. Pipe or type the value on standard input`);
  const secrets = cliNamedSecrets(io.secretStore);
  secrets.set(name, value);
  io.out(`stored secret "${name}" in the OS keyring (${secrets.description})`);
  return 0;
};

const list: Subcommand = async (argv, io) => {
  const positionals = args(argv, io);
  if (positionals === null) return 0;
  if (positionals.length > 0) throw new UsageError('secrets list: takes no arguments', usage);
  const secrets = cliNamedSecrets(io.secretStore);
  const { names, indexCorrupt } = secrets.listing();
  if (indexCorrupt) {
    io.err(
      `silas secrets list: the list of secret names in the OS keyring (${secrets.description}) is unreadable, so it counts as empty. The secrets themselves are untouched; \`silas secrets set NAME\` for each one lists it again.`,
    );
  }
  for (const name of names) io.out(name);
  if (names.length === 0 && !indexCorrupt) io.err('no secrets stored; add one with `silas secrets set NAME`');
  return 0;
};

const remove: Subcommand = async (argv, io) => {
  const positionals = args(argv, io);
  if (positionals === null) return 0;
  const name = nameArg('delete', positionals);
  const secrets = cliNamedSecrets(io.secretStore);
  if (!secrets.delete(name)) {
    io.err(`silas secrets delete: there is no secret "${name}" in the OS keyring (${secrets.description})`);
    return 1;
  }
  io.out(`deleted secret "${name}"`);
  return 0;
};

const subcommands: Record<string, Subcommand> = { set, list, delete: remove };

export const secretsCommand: Command = {
  name: 'secrets',
  usage,
  run: (argv, io) => runSubcommand('secrets', usage, subcommands, argv, io),
};
