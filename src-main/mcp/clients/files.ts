import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { writeAllSync, writeFileAtomic } from '../../home/atomic-file.js';

export { writeFileAtomic };
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';

/* Backups, atomic rewrites and the wrap manifest (HOME/clients/wraps.json). */

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `<file>.silas-backup-<ISO time without colons>`, never overwriting: `-2`, `-3`… when taken. */
export function writeBackup(file: string, bytes: Uint8Array, mode: number, now: Date): string {
  const stem = `${file}.silas-backup-${now.toISOString().replace(/:/g, '')}`;
  for (let attempt = 1; attempt <= 1000; attempt++) {
    const candidate = attempt === 1 ? stem : `${stem}-${attempt}`;
    let fd: number;
    try {
      fd = openSync(candidate, 'wx', mode & 0o777);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new SilasError(ErrorCode.Permission, `cannot write the backup ${candidate}: ${(error as Error).message}; nothing was changed. Make ${dirname(file)} writable and run the command again.`, { cause: error });
    }
    try {
      writeAllSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return candidate;
  }
  throw new SilasError(ErrorCode.Internal, `could not find a free backup name next to ${file}; remove old ${basename(stem)}* files and run the command again`);
}

export const WrapRecord = z.object({
  client: z.string(),
  /** The configuration file, absolute. */
  file: z.string(),
  /** The backup holding the file's bytes before this wrap. */
  backup: z.string(),
  servers: z.array(z.string()),
  sha256Before: z.string(),
  /** The file's hash right after this wrap; unwrap restores only while it still matches. */
  sha256After: z.string(),
  wrappedAt: z.string(),
  /** Per server, what the wrap added to its `env` (entry-env.ts), so an entry unwrap takes back exactly that. */
  env: z.record(z.string(), z.object({ vars: z.record(z.string(), z.string()), created: z.boolean() })).optional(),
});
export type WrapRecord = z.infer<typeof WrapRecord>;

const Manifest = z.object({ version: z.literal(1), wraps: z.array(WrapRecord) });
export type Manifest = z.infer<typeof Manifest>;

function manifestPath(silasHome: string): string {
  return join(silasHome, 'clients', 'wraps.json');
}

export function readManifest(silasHome: string): Manifest {
  const path = manifestPath(silasHome);
  if (!existsSync(path)) return { version: 1, wraps: [] };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SilasError(ErrorCode.Config, `${path} is not valid JSON (${(error as Error).message}); fix or move it away. The backups it listed sit next to each configuration file as *.silas-backup-*.`);
  }
  const parsed = Manifest.safeParse(data);
  if (!parsed.success) {
    throw new SilasError(ErrorCode.Config, `${path} is not a wrap manifest (${parsed.error.issues[0]?.message ?? 'unexpected shape'}); fix or move it away. The backups it listed sit next to each configuration file as *.silas-backup-*.`);
  }
  return parsed.data;
}

export function writeManifest(silasHome: string, manifest: Manifest): void {
  const path = manifestPath(silasHome);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'), 0o600);
}
