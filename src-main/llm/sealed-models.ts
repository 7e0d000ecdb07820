import { checkModelsConfig, type ModelsConfig } from '../../src-shared/llm/config.js';
import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import { readSealFile, writeSealFile } from '../keys/seal-file.js';
import type { SealRefusal, StateSeals } from '../keys/sealed-state.js';
import { modelsFilePath, readModelsFileRaw, saveModelsFile } from './models-file.js';

/*
 * HOME/models.json as the person decided it (docs/architecture.md §2 "Sealed state";
 * docs/silas/models.md, "models.json is sealed"). The file says where each role's requests go,
 * and with them its API key, so what a process without the keyring writes there must never be
 * acted on: every save by Silas signs the file's JSON with the owner key (kind `models`, id
 * `models.json`) into HOME/models.json.seal and anchors its digest in the keyring; every read
 * that acts checks both. A file changed outside Silas, an older sealed copy put back, or the file
 * removed is refused, audited (`state.seal_refused`), and every role counts as not set up until
 * the person saves it again (the cockpit, `silas models set`) or adopts it (`silas models adopt`).
 */

/** The sealed item's id: one file per home. */
export const MODELS_SEAL_ID = 'models.json';

export function modelsSealPath(home: string): string {
  return `${modelsFilePath(home)}.seal`;
}

export type SealedModels =
  | { ok: true; path: string; exists: boolean; raw: Record<string, unknown>; config: ModelsConfig }
  | {
      ok: false;
      path: string;
      exists: boolean;
      /** What the file says, for a listing that shows it as not trusted; never acted on. */
      raw: Record<string, unknown>;
      refusal: SealRefusal;
      /** For the person: what happened and how to fix it. */
      problem: string;
    };

export interface LoadSealedOptions {
  /** False for listings that only show state (`silas models show`): the refusal is not audited. */
  report?: boolean;
}

/**
 * Reads models.json and checks it against its seal and the keyring's anchor. A file that is not
 * valid JSON, or sealed but not valid for this version's schema, throws the SilasError of
 * models-file.ts (naming the field and the fix).
 */
export function loadSealedModels(home: string, seals: StateSeals, options: LoadSealedOptions = {}): SealedModels {
  const report = options.report ?? true;
  const { path, exists, raw } = readModelsFileRaw(home);
  const value = exists ? raw : null;
  let refusal: SealRefusal | null = null;
  if (value !== null) {
    const seal = readSealFile(modelsSealPath(home));
    const checked = report ? seals.check('owner', 'models', MODELS_SEAL_ID, value, seal) : seals.verify('owner', 'models', MODELS_SEAL_ID, value, seal);
    if (!checked.ok) refusal = checked.refusal;
  }
  if (refusal === null) {
    const anchored = report ? seals.checkAnchored('models', MODELS_SEAL_ID, value) : seals.verifyAnchored('models', MODELS_SEAL_ID, value);
    if (!anchored.ok) refusal = anchored.refusal;
  }
  if (refusal !== null) return { ok: false, path, exists, raw, refusal, problem: refusedProblem(path, refusal, exists) };
  const checked = checkModelsConfig(raw);
  if (!checked.ok) throw new SilasError(ErrorCode.Config, `${path} is not a valid model configuration: ${checked.problems.join('; ')}; fix it with \`silas models set ROLE …\``);
  return { ok: true, path, exists, raw, config: checked.value };
}

/** The trusted configuration, or a SilasError (E_CFG_INVALID) that says what happened and the fix: for callers that act. */
export function trustedModelsConfig(home: string, seals: StateSeals): ModelsConfig {
  const loaded = loadSealedModels(home, seals);
  if (!loaded.ok) throw new SilasError(ErrorCode.Config, loaded.problem);
  return loaded.config;
}

/**
 * Validates `raw` as a whole, seals it with the owner key, writes models.json and its seal, and
 * anchors it in the keyring. Nothing is written when the owner key is unavailable (the seal
 * throws first) or `raw` is not valid (its problems are returned).
 */
export function saveSealedModels(home: string, raw: Record<string, unknown>, seals: StateSeals): { ok: true; config: ModelsConfig } | { ok: false; problems: string[] } {
  const checked = checkModelsConfig(raw);
  if (!checked.ok) return checked;
  let seal: string;
  try {
    seal = seals.seal('owner', 'models', MODELS_SEAL_ID, raw);
  } catch (error) {
    throw new SilasError(ErrorCode.KeyMissing, `${modelsFilePath(home)} was not written: ${(error as Error).message}`, { cause: error });
  }
  const saved = saveModelsFile(home, raw);
  if (!saved.ok) return saved;
  try {
    writeSealFile(modelsSealPath(home), seal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SilasError(ErrorCode.Permission, `cannot write ${modelsSealPath(home)} (${code ?? (error as Error).message}); give your user write access to ${home}, then save the models again`, { cause: error });
  }
  // Last: until the anchor names the new value, a reader refuses it (and the person saves again), never the reverse.
  seals.anchor('models', MODELS_SEAL_ID, raw);
  return saved;
}

function refusedProblem(path: string, refusal: SealRefusal, exists: boolean): string {
  if (refusal.reason === 'no-key') return `${path} cannot be trusted: ${refusal.detail}. No model is used until the keyring is unlocked`;
  const what = !exists
    ? `${path} was removed outside Silas`
    : refusal.reason === 'unsealed'
      ? `${path} was not saved by Silas (written by hand, by another program, or by a version of Silas before models were sealed)`
      : `${path} was changed outside Silas (or an older copy was put back)`;
  return (
    `${what}, so no role uses it: a changed base URL or key name could send an API key elsewhere. ` +
    `Save the models again on the cockpit's Stream page or with \`silas models set ROLE …\`; ` +
    `or, if you wrote it yourself, check it with \`silas models show\` and adopt it with \`silas models adopt\``
  );
}
