import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The data home: `--home`, else `SILAS_HOME`, else the platform's application-data directory.
 * Always absolute, because the keyring account is derived from it.
 */
export function resolveHome(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return resolve(flag);
  if (env.SILAS_HOME) return resolve(env.SILAS_HOME);
  return defaultHome(env);
}

export function defaultHome(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Silas');
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Silas');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'silas');
}

/** Files inside a data home. */
export function homePaths(home: string) {
  return {
    home,
    database: join(home, 'silas.db'),
    controlFile: join(home, 'control.json'),
    /** Which model each agent role uses (`silas models`); names keyring secrets, never holds a key. */
    modelsFile: join(home, 'models.json'),
    /** What the owner adds to ILP's constitution and which remote specialists it composes (docs/ilp.md "Configuration"). */
    ilpConfigFile: join(home, 'ilp.yaml'),
    /** The proxies' control socket; a named pipe per home on Windows. */
    controlSocket: process.platform === 'win32' ? `\\\\.\\pipe\\silas-${Buffer.from(home).toString('hex').slice(-32)}` : join(home, 'control.sock'),
    /** ILP's own framing (docs/ilp.md "Transports"); a named pipe per home on Windows. */
    ilpSocket: process.platform === 'win32' ? `\\\\.\\pipe\\silas-ilp-${Buffer.from(home).toString('hex').slice(-32)}` : join(home, 'ilp.sock'),
    lockFile: join(home, 'runtime.lock'),
    logDir: join(home, 'logs'),
    runtimeLog: join(home, 'logs', 'runtime.log'),
  };
}
export type HomePaths = ReturnType<typeof homePaths>;
