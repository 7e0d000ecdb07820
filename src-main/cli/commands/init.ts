import { resolveHome } from '../../home/paths.js';
import { parseFlags } from '../args.js';
import type { Command } from '../io.js';

const usage = `Usage: silas init [--home DIR]

Creates the data home, its SQLite database with all migrations, and the owner Ed25519 key
in the OS keyring. Prints the owner key fingerprint. Safe to run again: it changes nothing.

Options:
  --home DIR   data home (default: $SILAS_HOME, else the platform's app-data directory)
  -h, --help   show this help`;

export const initCommand: Command = {
  name: 'init',
  usage,
  async run(argv, io, open) {
    const { values } = parseFlags(argv, { home: { type: 'string' } }, usage);
    if (values.help) {
      io.out(usage);
      return 0;
    }
    const home = resolveHome(values.home, io.env);
    const database = await (await open(home)).database();
    const ledger = database.openHome({ create: true, keys: 'signer' });
    try {
      if (database.recordInitialisation(ledger)) {
        io.out(`Initialised Silas home ${home}`);
        io.out(`Owner key: ${ledger.ownerFingerprint}${ledger.created.key ? ' (new, stored in the OS keyring)' : ' (existing, from the OS keyring)'}`);
      } else {
        io.out(`Silas home ${home} is already initialised; nothing changed.`);
        io.out(`Owner key: ${ledger.ownerFingerprint}`);
      }
      return 0;
    } finally {
      ledger.close();
    }
  },
};
