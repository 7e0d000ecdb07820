import { closeSync, constants, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { HomePaths } from './paths.js';

/** Creates the data home (0700) or checks that an existing one is a writable directory. */
export function prepareHome(paths: HomePaths, create: boolean): void {
  try {
    const info = statSync(paths.home, { throwIfNoEntry: false });
    if (!info) {
      if (!create) {
        throw new SilasError(ErrorCode.Config, `no Silas home at ${paths.home}; run \`silas init --home ${paths.home}\` first`);
      }
      mkdirSync(paths.home, { recursive: true, mode: 0o700 });
    } else if (!info.isDirectory()) {
      throw new SilasError(ErrorCode.Config, `${paths.home} is not a directory; choose another --home`);
    }
    mkdirSync(paths.logDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw homeError(paths.home, error);
  }
}

export function homeError(home: string, error: unknown): Error {
  if (error instanceof SilasError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new SilasError(ErrorCode.Permission, `cannot write to ${home} (${code}); give your user write access (chmod u+rwx) or choose another --home`, { cause: error });
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    return new SilasError(ErrorCode.Config, `${home} cannot be a data home because part of its path is a file; choose another --home`, { cause: error });
  }
  return new SilasError(ErrorCode.Config, `cannot prepare data home ${home}: ${(error as Error).message}`, { cause: error });
}

/** A process with this pid exists (EPERM: it exists but is another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One runtime per home: a lock file created with O_EXCL holding our pid. A lock left by a
 * process that no longer exists (crash, SIGKILL) is taken over.
 */
export function acquireHomeLock(paths: HomePaths): () => void {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const fd = openSync(paths.lockFile, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(paths.lockFile, 'utf8').trim() === String(process.pid)) rmSync(paths.lockFile);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw homeError(paths.home, error);
      const holder = Number.parseInt(readLock(paths.lockFile), 10);
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && pidAlive(holder)) {
        throw new SilasError(ErrorCode.Locked, `another Silas runtime (pid ${holder}) is already running on ${paths.home}; stop it first (kill ${holder}) or use another --home`);
      }
      rmSync(paths.lockFile, { force: true });
    }
  }
  throw new SilasError(ErrorCode.Locked, `could not take the runtime lock ${paths.lockFile}; remove it if no Silas runtime is running`);
}

function readLock(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
