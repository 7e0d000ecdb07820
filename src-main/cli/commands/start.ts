import { readFileSync } from 'node:fs';
import { resolveHome } from '../../home/paths.js';
import { buildRuntime } from '../../app/runtime.js';
import { parseFlags, parsePort } from '../args.js';
import { UsageError, type Command } from '../io.js';
import { launchDesktop, desktopAvailability } from '../desktop-launcher.js';
import { ViteCockpitBuilder } from '../cockpit-builder.js';

const usage = `Usage: silas start [--headless] [--port N] [--home DIR] [--host ADDR] [options]

Starts the runtime: the desktop app when Electron is installed and --headless is not given,
otherwise headless, serving the cockpit at http://127.0.0.1:PORT (building it first if this
installation has not). When ready it writes HOME/control.json (mode 0600; its token lets
proxies and CLI commands ask, never decide) and prints the cockpit address with the cockpit
credential in the fragment: that line is the only place the credential appears (\`silas open\`
prints it again to a terminal holding the owner key), so keep it private. A start that fails
(port in use, no keyring) creates nothing. SIGINT/SIGTERM shut down gracefully.

Environment:
  SILAS_COCKPIT_DIR     serve the cockpit from this directory (built into it when empty)

Options:
  --headless            never open a window; serve the cockpit to a browser
  --port N              cockpit port (default 8420; 0 picks a free port)
  --home DIR            data home (default: $SILAS_HOME, else the platform's app-data directory)
  --host ADDR           listen address (default 127.0.0.1). Off loopback, TLS is required:
  --tls-cert FILE       PEM certificate for a non-loopback listen
  --tls-key FILE        PEM private key for a non-loopback listen
  --allow-host NAME     extra Host name accepted off loopback (repeatable)
  --insecure-remote     allow a non-loopback listen without TLS (behind a TLS proxy only)
  -h, --help            show this help`;

export const startCommand: Command = {
  name: 'start',
  usage,
  async run(argv, io, open) {
    const { values } = parseFlags(
      argv,
      {
        headless: { type: 'boolean' },
        port: { type: 'string' },
        home: { type: 'string' },
        host: { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        'insecure-remote': { type: 'boolean' },
      },
      usage,
    );
    if (values.help) {
      io.out(usage);
      return 0;
    }
    const port = parsePort(values.port, usage);
    if (Boolean(values['tls-cert']) !== Boolean(values['tls-key'])) throw new UsageError('--tls-cert and --tls-key go together', usage);
    const home = resolveHome(values.home, io.env);

    if (!values.headless) {
      const desktop = desktopAvailability(io.env);
      if (desktop.available) return launchDesktop(desktop, home, io);
      io.err(`Starting headless: ${desktop.reason}`);
    }

    const tls = values['tls-cert'] ? { cert: readPem(values['tls-cert'], '--tls-cert'), key: readPem(values['tls-key']!, '--tls-key') } : undefined;
    const runtime = await buildRuntime(
      {
        home,
        mode: 'headless',
        ...(port !== undefined ? { port } : {}),
        ...(values.host ? { host: values.host } : {}),
        ...(tls ? { tls } : {}),
        allowedHosts: values['allow-host'] ?? [],
        insecureRemote: Boolean(values['insecure-remote']),
        ...(io.env.SILAS_COCKPIT_DIR ? { cockpitDir: io.env.SILAS_COCKPIT_DIR } : {}),
      },
      { secretStore: (await open(home)).secretStore, cockpitBuilder: new ViteCockpitBuilder((text) => io.err(text)) },
    );
    try {
      await runtime.start();
    } catch (error) {
      await runtime.stop('start failed');
      throw error;
    }
    const cockpit = runtime.cockpit!;
    io.out(`Silas runtime ready (headless) — home ${home}, owner key ${runtime.info().ownerFingerprint}`);
    // The cockpit credential's only appearance: this terminal, in a fragment (never sent to a server).
    io.out(`Cockpit: ${cockpit.url}#token=${cockpit.token}`);
    io.out(`Press Ctrl+C to stop.`);
    const reason = await (io.stopSignal ?? new Promise<string>(() => {}));
    io.out(`Stopping (${reason})…`);
    await runtime.stop(reason);
    io.out('Stopped; audit checkpoint written.');
    return 0;
  },
};

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, usage);
  }
}
