import { appendFileSync } from 'node:fs';

export interface Logger {
  info(message: string, detail?: unknown): void;
  warn(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

function render(detail: unknown): string {
  if (detail === undefined) return '';
  if (detail instanceof Error) return ` ${detail.stack ?? detail.message}`;
  try {
    return ` ${JSON.stringify(detail)}`;
  } catch {
    return ` ${String(detail)}`;
  }
}

/**
 * Line-oriented log in the data home. It receives messages and public facts only; secrets and
 * keys are never passed to it (DESIGN invariants 2 and 5), which the key-leak tests check.
 */
export function createFileLogger(file: string, echo: (line: string) => void = () => {}): Logger {
  const write = (level: string, message: string, detail?: unknown) => {
    const line = `${new Date().toISOString()} ${level} ${message}${render(detail)}`;
    try {
      appendFileSync(file, `${line}\n`, { mode: 0o600 });
    } catch {
      // A full disk must not take the runtime down with it; the line still reaches stderr.
    }
    if (level !== 'INFO') echo(line);
  };
  return {
    info: (m, d) => write('INFO', m, d),
    warn: (m, d) => write('WARN', m, d),
    error: (m, d) => write('ERROR', m, d),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
