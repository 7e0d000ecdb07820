import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkModelsConfig, type ModelsConfig } from '../../src-shared/llm/config.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { homePaths } from '../home/paths.js';
import { writeFileAtomic } from '../home/atomic-file.js';

/*
 * HOME/models.json: which model each agent role talks to (`silas models set`). JSON like the
 * home's other files (control.json, clients/wraps.json). What is stored is what the person set,
 * not the parsed form with its defaults filled in, so a default changed by a later version
 * reaches every role that never chose one. Every write is checked against the schema first,
 * which refuses anything shaped like an API key: the file can be shown, copied and backed up.
 */

export function modelsFilePath(home: string): string {
  return homePaths(home).modelsFile;
}

/**
 * The file's JSON object without the schema check, so that `silas models set` can replace the
 * role that is wrong; it validates the whole before writing.
 */
export function readModelsFileRaw(home: string): { path: string; exists: boolean; raw: Record<string, unknown> } {
  const path = modelsFilePath(home);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, exists: false, raw: {} };
    throw new SilasError(ErrorCode.Config, `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give your user read access to it`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text around the error, and a key pasted into the file would be in it.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new SilasError(ErrorCode.Config, `${path} is not valid JSON${at === undefined ? '' : ` (at character ${at})`}; fix it, or remove it and set each role again with \`silas models set ROLE …\``);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SilasError(ErrorCode.Config, `${path} is not a JSON object of roles to models; fix it, or remove it and set each role again with \`silas models set ROLE …\``);
  }
  return { path, exists: true, raw: raw as Record<string, unknown> };
}

/**
 * Validates `raw` as a whole and replaces the file atomically (0600). Returns the problems,
 * one per field, instead of writing when it is not valid.
 */
export function saveModelsFile(home: string, raw: Record<string, unknown>): { ok: true; config: ModelsConfig } | { ok: false; problems: string[] } {
  const checked = checkModelsConfig(raw);
  if (!checked.ok) return checked;
  const info = statSync(home, { throwIfNoEntry: false });
  if (!info?.isDirectory()) throw new SilasError(ErrorCode.Config, `no Silas home at ${home}; run \`silas init --home ${home}\` first`);
  writeAtomically(modelsFilePath(home), `${JSON.stringify(raw, null, 2)}\n`);
  return { ok: true, config: checked.value };
}

/** Through the one atomic writer; a failure names the file and the fix. */
function writeAtomically(target: string, text: string): void {
  try {
    writeFileAtomic(target, text, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SilasError(ErrorCode.Permission, `cannot write ${target} (${code ?? (error as Error).message}); give your user write access to ${dirname(target)}`, { cause: error });
  }
}
