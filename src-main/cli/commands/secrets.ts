import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { CliContext, OpenForCommand } from '../../app/cli-context.js';
import { resolveHome } from '../../home/paths.js';
import { readSecretValue as readValue, type Stdin } from './secret-input.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';

const usage = `Usage: silas secrets <set|list|delete> [NAME]

  silas secrets set NAME [--origin URL]...
      Store the value read from standard input as secret NAME in the OS keyring, replacing any
      value it had. One trailing newline is dropped. The value is never taken from arguments or
      the environment, and never printed.
      --origin URL: NAME is a model provider's API key or a remote ILP specialist's credential
      (HOME/ilp.yaml credential_secret), and may be sent to URL's origin (scheme://host:port)
      and to no other; give it once per origin. Without it, where NAME may go is left as it was
      (a key replaced keeps its provider), and a secret never bound to an origin is never sent
      to a model provider or a remote specialist.
  silas secrets list
      The names of the stored secrets, one a line (never their values), each with the origins
      it may be sent to, if any.
  silas secrets delete NAME
      Remove secret NAME from the OS keyring.

A policy passes a secret to an MCP server by name (e.g. GITHUB_TOKEN: github-token); the value
lives only in the OS keyring. Names are 1 to 64 characters: letters, digits, "_", "." and "-",
starting with a letter or digit.`;

/** The arguments and the origins given (set only), or null when help was asked for (and printed). */
function args(argv: string[], io: CliIo, origins = false): { positionals: string[]; origins: string[] | undefined } | null {
  let parsed;
  try {
    parsed = parseFlags(argv, origins ? { origin: { type: 'string', multiple: true } } : {}, usage, true);
  } catch (error) {
    // The parser quotes the option it does not know, and a value pasted after NAME may start with dashes.
    if (error instanceof UsageError) throw new UsageError(`secrets: this command takes no options but ${origins ? '--origin URL and ' : ''}--help; the value is read from standard input, never from arguments`, usage);
    throw error;
  }
  const { values, positionals } = parsed;
  if (!values.help) return { positionals, origins: (values as { origin?: string[] }).origin };
  io.out(usage);
  return null;
}

/** The one NAME a subcommand takes. Extra arguments are refused without echoing them: one may be the value itself. */
function nameArg(sub: string, positionals: string[], cli: CliContext): string {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError(`secrets ${sub}: name the secret`, usage);
  if (extra.length > 0) {
    const hint = sub === 'set' ? '; the value is read from standard input, never from arguments (they show in the process list and shell history)' : '';
    throw new UsageError(`secrets ${sub}: takes exactly one NAME, got ${positionals.length} arguments${hint}`, usage);
  }
  const problem = cli.secretRules.nameProblem(name);
  if (problem !== null) throw new UsageError(problem, usage);
  return name;
}

// Secrets belong to the keyring, not to a data home: any home's context reaches the same ones.
const keyring = (io: CliIo, open: OpenForCommand) => open(resolveHome(undefined, io.env));

const set: Subcommand = async (argv, io, open) => {
  const parsed = args(argv, io, true);
  if (parsed === null) return 0;
  const cli = await keyring(io, open);
  const name = nameArg('set', parsed.positionals, cli);
  // Checked before the value is read: a mistyped URL should not cost the person typing the key again.
  const origins = parsed.origins === undefined ? undefined : checkedOrigins(parsed.origins, cli);
  const stdin = io.stdin as Stdin | undefined;
  if (!stdin) throw new UsageError('secrets set: needs standard input to read the value from', usage);
  if (stdin.isTTY) {
    io.err(`Type the value of secret "${name}", then press Enter and Ctrl-D. Or pipe it instead, e.g. \`silas secrets set ${name} < FILE\`, so it does not show on screen.`);
  }
  const value = await readValue(stdin, name, cli.secretRules.maxBytes);
  if (value.length === 0) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" is empty; nothing was stored. Pipe or type the value on standard input`);
  const secrets = cli.secrets();
  secrets.set(name, value, origins === undefined ? {} : { origins });
  io.out(`stored secret "${name}" in the OS keyring (${secrets.description})`);
  const bound = secrets.boundOrigins(name);
  if (bound.length > 0) io.out(`it may be sent, as a model provider's API key, to ${bound.join(', ')} and nowhere else`);
  return 0;
};

function checkedOrigins(urls: string[], cli: CliContext): string[] {
  try {
    return cli.secretRules.originsOf(urls);
  } catch (error) {
    throw new UsageError(`secrets set: --origin: ${(error as Error).message}`, usage);
  }
}

const list: Subcommand = async (argv, io, open) => {
  const parsed = args(argv, io);
  if (parsed === null) return 0;
  if (parsed.positionals.length > 0) throw new UsageError('secrets list: takes no arguments', usage);
  const secrets = (await keyring(io, open)).secrets();
  const { names, indexCorrupt } = secrets.listing();
  if (indexCorrupt) {
    io.err(
      `silas secrets list: the list of secret names in the OS keyring (${secrets.description}) is unreadable, so it counts as empty. The secrets themselves are untouched; \`silas secrets set NAME\` for each one lists it again.`,
    );
  }
  for (const name of names) {
    const bound = secrets.boundOrigins(name);
    io.out(bound.length === 0 ? name : `${name}  (model provider key for ${bound.join(', ')})`);
  }
  if (names.length === 0 && !indexCorrupt) io.err('no secrets stored; add one with `silas secrets set NAME`');
  return 0;
};

const remove: Subcommand = async (argv, io, open) => {
  const parsed = args(argv, io);
  if (parsed === null) return 0;
  const cli = await keyring(io, open);
  const name = nameArg('delete', parsed.positionals, cli);
  const secrets = cli.secrets();
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
  run: (argv, io, open) => runSubcommand('secrets', usage, subcommands, argv, io, open),
};
