import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './fixtures/silas-runtime.js';

/** Fails fast, with the fix, when the run cannot work at all. */
export default function globalSetup(): void {
  if (!existsSync(join(REPO_ROOT, 'out', 'cockpit', 'index.html'))) {
    throw new Error('The cockpit is not built: run `npm run build:cockpit` first (or `npm run test:e2e`).');
  }
  if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS) {
    throw new Error('No D-Bus session, so no OS keyring for the owner key: run the e2e tests under `scripts/with-keyring.sh npx playwright test`.');
  }
}
