import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../home/atomic-file.js';

/*
 * The seal of an owner-edited file kept beside it (`FILE.seal`, docs/architecture.md §2 "Sealed
 * state"): one JSON line `{"v":1,"seal":…}`. Files sealed this way: HOME/models.json and
 * HOME/ilp.yaml. Reading never throws: a seal file that is absent, unreadable or not ours reads
 * as "no seal", which the check then refuses.
 */

export function readSealFile(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as { v?: unknown; seal?: unknown };
    return parsed.v === 1 && typeof parsed.seal === 'string' ? parsed.seal : null;
  } catch {
    return null;
  }
}

/** Writes the seal atomically (0600); throws the file system's error for the caller to name the fix. */
export function writeSealFile(path: string, seal: string): void {
  writeFileAtomic(path, `${JSON.stringify({ v: 1, seal })}\n`, 0o600);
}
