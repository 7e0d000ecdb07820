import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../cli/main.js';
import type { SecretStore } from '../keys/secret-store.js';

export const SILAS_BIN = fileURLToPath(new URL('../../bin/silas.js', import.meta.url));

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in this process with captured output. */
export async function runSilas(argv: string[], options: { secretStore?: SecretStore; env?: NodeJS.ProcessEnv; stopSignal?: Promise<string> } = {}): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: options.env ?? {},
    secretStore: options.secretStore,
    stopSignal: options.stopSignal,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Runs the real `silas` binary as a child process (real keyring, real signals). */
export function runSilasProcess(argv: string[], env: NodeJS.ProcessEnv = process.env): CliResult {
  const run = spawnSync(process.execPath, [SILAS_BIN, ...argv], { encoding: 'utf8', env, timeout: 60_000 });
  return { code: run.status ?? -1, out: run.stdout, err: run.stderr };
}

export function spawnSilas(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawn(process.execPath, [SILAS_BIN, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The real binary without blocking the test, so several can run at once (each start pays for tsx). */
export function runSilasChild(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnSilas(argv, env);
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}
