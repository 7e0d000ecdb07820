import { homedir } from 'node:os';
import { basename, resolve } from 'node:path';
import { runProxyForHome } from '../../app/compose-proxy.js';
import { resolveHome } from '../../home/paths.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import type { Approver } from '../../mcp/proxy/approver.js';
import { DEFAULT_ASK_TIMEOUT_S, DEFAULT_PROGRESS_ASK_TIMEOUT_S, MAX_ASK_TIMEOUT_S } from '../../mcp/proxy/ask-timing.js';
import { parseFlags, parsePositiveInt } from '../args.js';
import { UsageError, type CliIo, type Command } from '../io.js';
import { formatPolicyError } from './policy-loading.js';

const usage = `Usage: silas proxy --policy FILE [--name NAME] [--client ID] [--home DIR] [--ask-timeout SECONDS] [--ask-timeout-with-progress SECONDS] [--no-sandbox] [--allow-unsigned] -- COMMAND [ARGS...]
       silas proxy --policy FILE [options] --target "COMMAND ARGS"

Runs an MCP server (stdio) behind an AIP AgentPolicy: every message from the client passes the
method gate, tool calls the tool rules and request DLP; results and errors pass response DLP;
tools are pinned against tool poisoning; every decision goes to the audit ledger of the home.
The server runs in a bubblewrap sandbox that shows it only what the policy's x-silas-sandbox
grants (docs/mcp-sandbox.md); without bubblewrap the proxy refuses to start it.

Options:
  --policy FILE          the AgentPolicy (YAML); reloaded when it changes
  --name NAME            server name in approvals, pins and the ledger (default: the command's basename)
  --client ID            the agent client whose configuration starts this proxy (claude-desktop, cursor…;
                         silas when Silas starts it); recorded with every decision, so each server/client
                         pair has its own alignment card
  --home DIR             data home with the ledger (default: $SILAS_HOME, else the platform's app-data directory)
  --ask-timeout SECONDS  how long an \`ask\` waits for the person (default ${DEFAULT_ASK_TIMEOUT_S}, at most ${MAX_ASK_TIMEOUT_S}); then the
                         agent gets -32005. The default ends before an MCP client's usual 60 s request
                         timeout
  --ask-timeout-with-progress SECONDS
                         how long an \`ask\` waits when the request carries a progressToken (default
                         ${DEFAULT_PROGRESS_ASK_TIMEOUT_S}, at most ${MAX_ASK_TIMEOUT_S}): the client hears progress every 10 s meanwhile,
                         so one that resets its timeout on progress keeps waiting for the person
  --target "CMD ARGS"    the server command as one string, split on spaces (no shell)
  --no-sandbox           run the server unsandboxed, with your files, network and keyring
                         (recorded in the ledger and shown as a warning on the Servers page)
  --allow-unsigned       enforce the policy file even when the owner did not sign it (development
                         only; recorded in the ledger). By default only the policy last signed with
                         the owner key (saved in the cockpit, or \`silas policy sign\`) is enforced
  -h, --help             show this help`;

/** Splits `--target` like the AIP reference: on whitespace, with "double" or 'single' quotes grouping. */
export function splitTarget(target: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(target)) !== null) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

export interface ProxyCommandDeps {
  /** Tests inject an approver; otherwise the home's (control socket, else unreachable). */
  approver?: Approver;
}

export async function proxyMain(argv: string[], io: CliIo, open: OpenForCommand, deps: ProxyCommandDeps = {}): Promise<number> {
  const dash = argv.indexOf('--');
  const flagArgs = dash === -1 ? argv : argv.slice(0, dash);
  const commandArgs = dash === -1 ? [] : argv.slice(dash + 1);
  const { values, positionals } = parseFlags(
    flagArgs,
    { policy: { type: 'string' }, name: { type: 'string' }, client: { type: 'string' }, home: { type: 'string' }, 'ask-timeout': { type: 'string' }, 'ask-timeout-with-progress': { type: 'string' }, target: { type: 'string' }, 'no-sandbox': { type: 'boolean' }, 'allow-unsigned': { type: 'boolean' } },
    usage,
    true,
  );
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; put the server command after --`, usage);
  if (values.policy === undefined) throw new UsageError('--policy FILE is required', usage);
  if (values.target !== undefined && commandArgs.length > 0) throw new UsageError('give the server either after -- or with --target, not both', usage);
  const command = values.target !== undefined ? splitTarget(values.target) : commandArgs;
  if (command.length === 0) throw new UsageError('name the MCP server command after -- (or with --target)', usage);
  if (values.client !== undefined && !/^[a-z0-9][a-z0-9-]{0,63}$/.test(values.client)) {
    throw new UsageError(`--client: expected an agent client id such as claude-desktop or cursor (lower-case letters, digits, dashes), got "${values.client.slice(0, 80)}"`, usage);
  }
  const askTimeout = parsePositiveInt('--ask-timeout', values['ask-timeout'], DEFAULT_ASK_TIMEOUT_S, MAX_ASK_TIMEOUT_S, usage);
  const progressAskTimeout = parsePositiveInt('--ask-timeout-with-progress', values['ask-timeout-with-progress'], Math.max(DEFAULT_PROGRESS_ASK_TIMEOUT_S, askTimeout), MAX_ASK_TIMEOUT_S, usage);
  if (!io.stdin) throw new UsageError('silas proxy needs standard input', usage);

  const home = resolveHome(values.home, io.env);
  const result = await runProxyForHome(home, {
    secretStore: (await open(home)).secretStore,
    approver: deps.approver,
    server: values.name ?? basename(command[0]!),
    client: values.client ?? null,
    command: command[0]!,
    args: command.slice(1),
    policyFile: resolve(values.policy),
    askTimeoutMs: askTimeout * 1000,
    progressAskTimeoutMs: progressAskTimeout * 1000,
    homeDir: homedir(),
    cwd: process.cwd(),
    input: io.stdin,
    writeClient: (line) => io.out(line),
    log: (text) => io.err(text),
    formatPolicyErrors: (errors) => errors.map((e) => formatPolicyError(values.policy!, e)),
    stopSignal: io.stopSignal,
    env: io.env,
    noSandbox: values['no-sandbox'] === true,
    allowUnsigned: values['allow-unsigned'] === true,
    ...(io.sessionBus ? { sessionBus: io.sessionBus } : {}),
  });
  return result.code;
}

export const proxyCommand: Command = {
  name: 'proxy',
  usage,
  run: (argv, io, open) => proxyMain(argv, io, open),
};
