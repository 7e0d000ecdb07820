/** Log sink of the desktop shell. The runtime keeps its own log in the data home. */
export interface ShellLogger {
  info(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

const PREFIX = '[silas desktop]';

function write(method: 'log' | 'warn' | 'error', message: string, detail: unknown): void {
  if (detail === undefined) console[method](`${PREFIX} ${message}`);
  else console[method](`${PREFIX} ${message}`, detail);
}

export const consoleShellLogger: ShellLogger = {
  info: (message, detail) => write('log', message, detail),
  warn: (message, detail) => write('warn', message, detail),
  error: (message, detail) => write('error', message, detail),
};
