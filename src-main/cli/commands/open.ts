import { isSilasError } from '../../../src-shared/errors.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { connectToControlCenter } from '../../control/local-socket-client.js';
import { homePaths, resolveHome } from '../../home/paths.js';
import { parseFlags } from '../args.js';
import { desktopBrowserOpener, type BrowserOpener } from '../browser-opener.js';
import { UsageError, type CliIo, type Command } from '../io.js';

const usage = `Usage: silas open [--home DIR] [--browser]

  Gets you back into the cockpit of the running control center, e.g. after closing the browser
  tab that held it. Asks the runtime for a one-time challenge over the local control socket,
  signs it with this home's owner key from the OS keyring, and gets the cockpit address with its
  credential in the #fragment — the same one \`silas start\` printed; it stays valid until the
  runtime stops. It prints it on this terminal; with --browser it also opens it in your browser.
  With the desktop app, its window is brought to the front instead.

  Only a process that can reach the OS keyring gets a link: the ask credential in
  HOME/control.json is not enough. Keep the printed line private: whoever has it can decide.

Options:
  --home DIR   data home of the running control center (default: $SILAS_HOME, else the
               platform's app-data directory)
  --browser    also open the link with the desktop's opener (xdg-open, open). The opener receives
               the link on its command line, where other processes of your user can read it while
               it runs; so by default the link is only printed
  --print      only print the link (the default; kept for scripts)
  -h, --help   show this help

Exit 0 with the link printed (or the window shown); 1 when the control center is not running, the
keyring does not hold this home's owner key (or is locked), or the runtime refused the signature;
2 on bad usage.`;

export interface OpenCommandDeps {
  /** How the link is opened with --browser; default: the desktop's opener (xdg-open, open), none without a display. */
  opener?: (env: NodeJS.ProcessEnv) => BrowserOpener | null;
}

export function createOpenCommand(deps: OpenCommandDeps = {}): Command {
  return {
    name: 'open',
    usage,
    async run(argv, io, open) {
      const { values } = parseFlags(argv, { home: { type: 'string' }, print: { type: 'boolean' }, browser: { type: 'boolean' } }, usage);
      if (values.help) {
        io.out(usage);
        return 0;
      }
      const home = resolveHome(values.home, io.env);
      if (values.print && values.browser) throw new UsageError('give either --print or --browser, not both', usage);
      return openCockpit(home, values.browser === true, io, open, deps);
    },
  };
}

export const openCommand = createOpenCommand();

async function openCockpit(home: string, inBrowser: boolean, io: CliIo, open: OpenForCommand, deps: OpenCommandDeps): Promise<number> {
  let client: Awaited<ReturnType<typeof connectToControlCenter>>;
  try {
    client = await connectToControlCenter(homePaths(home).controlFile);
  } catch (error) {
    io.err(`silas open: the Silas control center is not running for the data home ${home} (${messageOf(error)}); start it with \`silas start\`, or name its home with --home DIR`);
    return 1;
  }
  try {
    const signers = await (await open(home)).signers();
    let sign: (challenge: string) => string;
    try {
      sign = signers.cockpitLink();
    } catch (error) {
      io.err(`silas open: a cockpit link needs this home's owner key from the OS keyring, and ${messageOf(error)}`);
      return 1;
    }
    const { challenge } = await client.call('cockpit.linkChallenge', {});
    const result = await client.call('cockpit.issueLink', { challenge, home, signature: sign(challenge) });
    if (result.kind === 'window') {
      io.out('The cockpit is the Silas desktop window; it is in front now.');
      return 0;
    }
    // The credential's only appearance besides `silas start`'s line: this terminal, in a fragment. An
    // opener would put it on a command line other processes of the user can read, so only when asked.
    io.out(`Cockpit: ${result.url}`);
    const opener = inBrowser ? (deps.opener ?? desktopBrowserOpener)(io.env) : null;
    if (opener && (await opener(result.url))) io.err('Opened in your browser. Keep the link private: whoever has it can decide.');
    else if (inBrowser) io.err('No browser opener was found in this session; open this address in your browser. Keep it private: whoever has it can decide.');
    else io.err('Open this address in your browser. Keep it private: whoever has it can decide.');
    return 0;
  } catch (error) {
    io.err(`silas open: ${messageOf(error)}`);
    return 1;
  } finally {
    client.close();
  }
}

function messageOf(error: unknown): string {
  return isSilasError(error) || error instanceof Error ? error.message : String(error);
}
