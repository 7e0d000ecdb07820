import { createInterface } from 'node:readline';
import { quote } from 'shell-quote';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { defaultHome, resolveHome } from '../../home/paths.js';
import { currentLocationContext, findClient, knownClientNames, type ClientSpec } from '../../mcp/clients/locations.js';
import { proxyEnvironment } from '../../mcp/clients/entry-env.js';
import {
  ANY_CLIENT,
  applyUnwrap,
  applyWrap,
  currentRuntime,
  listAllClients,
  listClient,
  loadConfig,
  planUnwrap,
  planUnwrapEntries,
  planWrap,
  resolveConfigFile,
  type ClientListing,
  type LoadedConfig,
  type WrapPlan,
} from '../../mcp/clients/operations.js';
import { parseFlags } from '../args.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { UsageError, type CliIo, type Command, runSubcommand, type Subcommand } from '../io.js';

const usage = `Usage: silas clients <list|wrap|unwrap> [options]

  silas clients list [CLIENT] [--config FILE] [--json]
      Each client's MCP configuration file and its servers: transport (stdio or remote),
      wrapped or not, and the policy of a wrapped one.
  silas clients wrap CLIENT [--server NAME]... [--policy FILE] [--home DIR] [--config FILE] [--allow-unsigned] [--yes] [--dry-run]
      Run the client's stdio servers through \`silas proxy\`: prints the diff, keeps a backup
      next to the file (FILE.silas-backup-<time>), then rewrites only those entries' command
      and args, and adds this session's DBUS_SESSION_BUS_ADDRESS to their "env" (unless set
      there) so each proxy reaches the OS keyring whatever environment the client gives it.
      Without --policy, each server uses HOME/policies/<server>.yaml, and a server silas
      recognises gets a starting sandbox profile (x-silas-sandbox) added to that policy,
      shown as a diff; with a shared --policy the profile is printed for you to add. Asks before
      writing; --yes writes without asking (required when stdin is not a terminal).
      The proxies enforce only a policy the owner signed (\`silas policy sign FILE\`, or Adopt in
      the cockpit); --allow-unsigned writes \`--allow-unsigned\` into each proxy command instead
      (development only: the proxy records it in the ledger at every start).
  silas clients unwrap CLIENT [--config FILE] [--home DIR] [--dry-run]
      Restore the file byte for byte from the wrap's backup, provided it has not changed since.
  silas clients unwrap CLIENT --force-entries [--server NAME]... [--config FILE] [--home DIR] [--dry-run]
      Restore only the wrapped entries' command and args, and remove the env variables the wrap
      added, keeping every other edit.

Clients: ${knownClientNames()}.`;

function help(io: CliIo): number {
  io.out(usage);
  return 0;
}

function clientArg(positionals: string[], sub: string): ClientSpec {
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError(`clients ${sub}: name the client (${knownClientNames()})`, usage);
  if (extra.length > 0) throw new UsageError(`clients ${sub}: unexpected argument "${extra[0]}"`, usage);
  const client = findClient(name);
  if (!client) throw new UsageError(`unknown client "${name}"; known clients: ${knownClientNames()}`, usage);
  return client;
}

function checkServerNames(config: LoadedConfig, names: readonly string[] | undefined): void {
  if (!names) return;
  const known = config.parsed.servers.map((s) => s.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    const list = known.length > 0 ? known.map((n) => JSON.stringify(n)).join(', ') : 'none';
    throw new UsageError(`no server ${unknown.map((n) => JSON.stringify(n)).join(', ')} in ${config.file}; its servers: ${list}`, usage);
  }
}

// ---------------------------------------------------------------- list

function printListing(listing: ClientListing, io: CliIo): void {
  if (!listing.found) {
    io.out(`${listing.label} (${listing.client}): not found at ${listing.file}`);
    return;
  }
  io.out(`${listing.label} (${listing.client}): ${listing.file}`);
  if (listing.error) {
    io.out(`  cannot read: ${listing.error}`);
    return;
  }
  if (listing.servers.length === 0) io.out('  no MCP servers');
  const width = Math.max(0, ...listing.servers.map((s) => s.name.length));
  for (const server of listing.servers) {
    const state = server.wrapped ? `wrapped, policy ${server.policy ?? '(none given)'}` : server.note ? `not wrapped: ${server.note}` : 'not wrapped';
    io.out(`  ${server.name.padEnd(width)}  ${server.transport.padEnd(6)}  ${state}`);
  }
}

async function list(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { config: { type: 'string' }, json: { type: 'boolean' } }, usage, true);
  if (values.help) return help(io);
  const ctx = currentLocationContext(io.env);
  let listings: ClientListing[];
  if (positionals.length > 0) {
    const client = clientArg(positionals, 'list');
    listings = [listClient(client, resolveConfigFile(client, values.config, ctx))];
  } else if (values.config !== undefined) {
    listings = [listClient(ANY_CLIENT, resolveConfigFile(ANY_CLIENT, values.config, ctx))];
  } else {
    listings = listAllClients(ctx);
  }
  if (values.json) io.out(JSON.stringify({ clients: listings }));
  else for (const listing of listings) printListing(listing, io);
  // Listing one named file that cannot be read is a failure; a survey of every client is not.
  const failed = (positionals.length > 0 || values.config !== undefined) && listings.some((l) => !l.found || l.error !== null);
  if (failed && !values.json) {
    const l = listings[0]!;
    io.err(l.found ? `silas clients list: ${l.error}` : `silas clients list: ${l.file} does not exist; pass the configuration file with --config FILE`);
  }
  return failed ? 1 : 0;
}

// ---------------------------------------------------------------- wrap

async function confirm(io: CliIo, question: string): Promise<boolean | undefined> {
  const stdin = io.stdin as (NodeJS.ReadableStream & { isTTY?: boolean }) | undefined;
  if (!stdin?.isTTY) return undefined;
  io.out(`${question} [y/N]`);
  const rl = createInterface({ input: stdin, terminal: false });
  try {
    const answer = await new Promise<string>((resolveAnswer) => {
      rl.once('line', resolveAnswer);
      rl.once('close', () => resolveAnswer(''));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function commandFor(sub: string, client: ClientSpec, values: { config?: string; home?: string }): string {
  const parts = ['silas', 'clients', sub, client.id];
  if (values.config !== undefined) parts.push('--config', quote([values.config]));
  if (values.home !== undefined) parts.push('--home', quote([values.home]));
  return parts.join(' ');
}

/** Each server's proposed sandbox: its policy's diff when silas edits it, then the notes. */
function printSandboxProfiles(plan: WrapPlan, io: CliIo): void {
  for (const profile of plan.sandboxProfiles) {
    if (profile.diff) io.out(profile.diff);
    io.out(`Sandbox profile for ${profile.server} (${profile.file}):`);
    for (const note of profile.notes) io.out(`  ${note.replace(/\n/g, '\n  ')}`);
  }
}

async function wrap(argv: string[], io: CliIo, open: OpenForCommand): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      server: { type: 'string', multiple: true },
      policy: { type: 'string' },
      home: { type: 'string' },
      config: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      'dry-run': { type: 'boolean' },
      'allow-unsigned': { type: 'boolean' },
    },
    usage,
    true,
  );
  if (values.help) return help(io);
  const client = clientArg(positionals, 'wrap');
  if (values.policy !== undefined && values.policy.trim() === '') throw new UsageError('--policy: give a policy file', usage);
  const ctx = currentLocationContext(io.env);
  const file = resolveConfigFile(client, values.config, ctx);
  const silasHome = resolveHome(values.home, io.env);
  const config = loadConfig(client, file);
  checkServerNames(config, values.server);
  const plan = planWrap(config, {
    ...(values.server ? { servers: values.server } : {}),
    ...(values.policy !== undefined ? { policy: values.policy } : {}),
    silasHome,
    homeInCommandLine: silasHome !== defaultHome(io.env),
    runtime: currentRuntime(),
    ...(values['allow-unsigned'] ? { allowUnsigned: true } : {}),
    proxyEnv: proxyEnvironment(io.env),
  });
  if (plan.diff) io.out(plan.diff);
  for (const skip of plan.skipped) io.out(`not wrapped: ${skip.name}: ${skip.reason}`);
  // A server asked for by name that cannot be wrapped (remote, malformed) is a failure.
  const refused = values.server ? plan.skipped.filter((s) => !s.reason.startsWith('already runs through')) : [];
  if (plan.wrapped.length === 0) {
    io.out(`Nothing to wrap in ${file}; nothing was changed.`);
    return refused.length > 0 ? 1 : 0;
  }
  printSandboxProfiles(plan, io);
  for (const w of plan.wrapped) io.out(`wrap: ${w.name} with policy ${w.policy}`);
  const withEnv = Object.keys(plan.env);
  if (withEnv.length > 0) io.out(`env: ${[...new Set(withEnv.flatMap((name) => Object.keys(plan.env[name]!.vars)))].join(', ')} of this session added to ${withEnv.map((n) => JSON.stringify(n)).join(', ')}, so each proxy reaches your keyring whatever environment ${client.label} gives it (unwrap removes it again)`);
  const policyFiles = plan.policyEdits.map((e) => e.file).join(', ');
  const targets = policyFiles ? `${file} and ${policyFiles}` : file;
  if (values['dry-run']) {
    io.out(`Dry run: ${targets} ${policyFiles ? 'were' : 'was'} not changed.`);
    return refused.length > 0 ? 1 : 0;
  }
  if (!values.yes) {
    const answer = await confirm(io, `Write these changes to ${targets}?`);
    if (answer === undefined) {
      throw new SilasError(ErrorCode.BadRequest, `not written: stdin is not a terminal to confirm, so ${file} was left unchanged. Run again with --yes to write it (or --dry-run to only preview).`);
    }
    if (!answer) {
      io.out(`Not written; ${targets} ${policyFiles ? 'are' : 'is'} unchanged.`);
      return 1;
    }
  }
  const result = applyWrap(plan, silasHome, new Date());
  io.out(`Backup: ${result.backup}`);
  for (const edit of plan.policyEdits) io.out(`Added a starting sandbox profile for ${edit.server} to ${edit.file}: review what it grants (unwrap leaves it in place).`);
  io.out(`Wrapped ${plan.wrapped.length} server(s) in ${file}. Restart ${client.label} to use them. Undo with: ${commandFor('unwrap', client, values)}`);
  if (!values['allow-unsigned']) {
    // A proxy enforces only the policy the owner last signed (docs/mcp-proxy.md "Signed policies").
    const cli = await open(silasHome);
    const policyKeys = cli.policyKeys();
    const policies = [...new Set(plan.wrapped.map((w) => w.policy))].filter((policy) => !cli.policyFileInForce(policy, policyKeys));
    if (policies.length > 0) io.out(`Each proxy enforces only a policy signed with your owner key: adopt ${policies.length === 1 ? 'it' : 'them'} in the cockpit (Policies), or run: ${policies.map((p) => `silas policy sign ${p}${values.home !== undefined ? ` --home ${values.home}` : ''}`).join('; ')}`);
  }
  return refused.length > 0 ? 1 : 0;
}

// ---------------------------------------------------------------- unwrap

async function unwrap(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      config: { type: 'string' },
      home: { type: 'string' },
      'force-entries': { type: 'boolean' },
      server: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
    },
    usage,
    true,
  );
  if (values.help) return help(io);
  const client = clientArg(positionals, 'unwrap');
  if (values.server && !values['force-entries']) throw new UsageError('--server goes with --force-entries; a plain unwrap restores the whole file from its backup', usage);
  const ctx = currentLocationContext(io.env);
  const file = resolveConfigFile(client, values.config, ctx);
  const silasHome = resolveHome(values.home, io.env);
  const config = loadConfig(client, file);
  checkServerNames(config, values.server);
  const command = commandFor('unwrap', client, values);
  const plan = values['force-entries'] ? planUnwrapEntries(config, silasHome, values.server) : planUnwrap(config, silasHome, command);
  if (plan.diff) io.out(plan.diff);
  for (const note of plan.notes) io.out(`note: ${note}`);
  if (values['force-entries'] && plan.restored.length === 0) {
    io.out(`No wrapped entries to restore in ${file}; nothing was changed.`);
    return 0;
  }
  if (values['dry-run']) {
    io.out(`Dry run: ${file} was not changed.`);
    return 0;
  }
  const result = applyUnwrap(plan, silasHome, new Date(), { backupFirst: values['force-entries'] === true });
  if (result.safetyBackup) io.out(`Backup of the file before this change: ${result.safetyBackup}`);
  if (values['force-entries']) io.out(`Restored the command and args of ${plan.restored.map((n) => JSON.stringify(n)).join(', ')} in ${file}.`);
  else io.out(`Restored ${file} byte for byte from ${plan.backup}. Restart ${client.label} to use the servers directly.`);
  return 0;
}

const subcommands: Record<string, Subcommand> = { list, wrap, unwrap };

export const clientsCommand: Command = {
  name: 'clients',
  usage,
  run: (argv, io, open) => runSubcommand('clients', usage, subcommands, argv, io, open),
};
