import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Strict flag parsing: an unknown flag or a missing value is a usage error (exit 2), never
 * silently ignored. `--help` is available on every command.
 */
export function parseFlags<O extends Options>(argv: string[], options: O, usage: string, allowPositionals = false) {
  try {
    const parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals });
    return parsed;
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''), usage);
  }
}

export function parsePort(value: string | undefined, usage: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError(`--port: expected a number from 0 to 65535, got "${value}"`, usage);
  return Number(value);
}

export function parsePositiveInt(flag: string, value: string | undefined, fallback: number, max: number, usage: string): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new UsageError(`${flag}: expected a whole number from 1 to ${max}, got "${value}"`, usage);
  return Number(value);
}
