import { statSync } from 'node:fs';
import { readBoundedFile } from '../../home/bounded-file.js';
import { writeFileAtomic } from '../../home/atomic-file.js';
import { homePaths } from '../../home/paths.js';
import { readSealFile, writeSealFile } from '../../keys/seal-file.js';
import type { SealRefusal, StateSeals } from '../../keys/sealed-state.js';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import { compilePrinciples, type CompiledPrinciples } from '../constitution/custom-principles.js';
import { EMPTY_ILP_CONFIG, MAX_ILP_CONFIG_BYTES, parseIlpConfig, type IlpConfig, type IlpConfigProblem } from './ilp-config.js';

/*
 * HOME/ilp.yaml as the owner decided it (docs/architecture.md §2 "Sealed state"; docs/ilp.md
 * "Configuration"). It holds principles that refuse answers, translations no agent may make, and
 * the addresses remote specialists are reached at with a keyring credential, so a process that can
 * write the data home but not reach the keyring must not be able to drop a principle or redirect
 * a specialist: every save by Silas signs the file's text with the owner key (kind `ilp-config`,
 * id `ilp.yaml`) into HOME/ilp.yaml.seal and anchors it in the keyring, and every read that acts
 * checks both. A file changed, put back or removed outside Silas is refused and audited
 * (`state.seal_refused`), and ILP answers 503 until the owner applies a configuration again —
 * failing closed, since running without the owner's principles would be running a weaker
 * constitution than the one decided.
 */

const ILP_CONFIG_SEAL_ID = 'ilp.yaml';

/** What the enforcer and the agent directory act on. */
interface IlpConstitutionConfig {
  config: IlpConfig;
  principles: CompiledPrinciples;
  forbiddenTranslations: { from: string; to: string }[];
}

export type LoadedIlpConfig =
  | ({ ok: true; path: string; exists: boolean; text: string | null } & IlpConstitutionConfig)
  | { ok: false; path: string; exists: boolean; text: string | null; problem: string; problems: IlpConfigProblem[]; refusal: SealRefusal | null };

const ilpConfigPath = (home: string) => homePaths(home).ilpConfigFile;
const sealPath = (home: string) => `${ilpConfigPath(home)}.seal`;

const APPLY = (path: string) => `review it, then put it in force with \`silas ilp config apply ${path}\``;

function constitutionOf(config: IlpConfig): IlpConstitutionConfig {
  return { config, principles: compilePrinciples(config.principles), forbiddenTranslations: config.forbidden_translations.map(({ from, to }) => ({ from, to })) };
}

/**
 * Reads HOME/ilp.yaml and checks it against its seal and the keyring's anchor. No file and
 * nothing anchored is the empty configuration (the six universal principles alone).
 */
export function loadIlpConfig(home: string, seals: Pick<StateSeals, 'check' | 'verify' | 'checkAnchored' | 'verifyAnchored'>, options: { report?: boolean } = {}): LoadedIlpConfig {
  const report = options.report ?? true;
  const path = ilpConfigPath(home);
  const read = readBoundedFile(path, MAX_ILP_CONFIG_BYTES);
  if (!read.ok && !read.absent) return { ok: false, path, exists: true, text: null, problem: `${read.message}; ${APPLY(path)}`, problems: [], refusal: null };
  const text = read.ok ? new TextDecoder().decode(read.bytes) : null;
  const value = text === null ? null : { text };
  if (value !== null) {
    const seal = readSealFile(sealPath(home));
    const checked = report ? seals.check('owner', 'ilp-config', ILP_CONFIG_SEAL_ID, value, seal) : seals.verify('owner', 'ilp-config', ILP_CONFIG_SEAL_ID, value, seal);
    if (!checked.ok) return refused(path, text, checked.refusal);
  }
  const anchored = report ? seals.checkAnchored('ilp-config', ILP_CONFIG_SEAL_ID, value) : seals.verifyAnchored('ilp-config', ILP_CONFIG_SEAL_ID, value);
  if (!anchored.ok) return refused(path, text, anchored.refusal);
  if (text === null) return { ok: true, path, exists: false, text: null, ...constitutionOf(EMPTY_ILP_CONFIG) };
  const parsed = parseIlpConfig(text);
  if (!parsed.ok) {
    const first = parsed.problems[0]!;
    return { ok: false, path, exists: true, text, problem: `${path}:${first.line}:${first.column}: ${first.field}: ${first.message}; fix it and apply it again with \`silas ilp config apply ${path}\``, problems: parsed.problems, refusal: null };
  }
  return { ok: true, path, exists: true, text, ...constitutionOf(parsed.config) };
}

function refused(path: string, text: string | null, refusal: SealRefusal): LoadedIlpConfig {
  const what =
    refusal.reason === 'no-key'
      ? `${path} cannot be checked: ${refusal.detail}; unlock the keyring`
      : text === null
        ? `${path} was removed outside Silas; put back the file Silas saved, or apply one again with \`silas ilp config apply FILE\``
        : refusal.reason === 'unsealed'
          ? `${path} was not saved by Silas (written by hand or by another program); ${APPLY(path)}`
          : `${path} was changed outside Silas (or an older copy was put back); ${APPLY(path)}`;
  return { ok: false, path, exists: text !== null, text, problem: `ILP is stopped: ${what}`, problems: [], refusal };
}

/**
 * Validates `text`, seals it with the owner key, writes HOME/ilp.yaml and its seal, and anchors
 * it. Nothing is written when the text has a problem or the owner key is unavailable.
 */
export function saveIlpConfig(home: string, text: string, seals: Pick<StateSeals, 'seal' | 'anchor'>): { ok: true; config: IlpConfig; path: string } | { ok: false; problems: IlpConfigProblem[] } {
  const parsed = parseIlpConfig(text);
  if (!parsed.ok) return parsed;
  const path = ilpConfigPath(home);
  let seal: string;
  try {
    seal = seals.seal('owner', 'ilp-config', ILP_CONFIG_SEAL_ID, { text });
  } catch (error) {
    throw new SilasError(ErrorCode.KeyMissing, `${path} was not written: ${(error as Error).message}`, { cause: error });
  }
  try {
    writeFileAtomic(path, text, 0o600);
    writeSealFile(sealPath(home), seal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SilasError(ErrorCode.Permission, `cannot write ${path} (${code ?? (error as Error).message}); give your user write access to ${home}, then apply it again`, { cause: error });
  }
  // Last: until the anchor names the new text, a reader refuses it (and the owner applies it again), never the reverse.
  seals.anchor('ilp-config', ILP_CONFIG_SEAL_ID, { text });
  return { ok: true, config: parsed.config, path };
}

/**
 * The configuration in force for a running runtime: read again only when HOME/ilp.yaml or its
 * seal changed on disk (a new file, size or modification time), so `silas ilp config apply`
 * reaches the next request without a restart and a request costs a stat, not a signature check.
 */
export class IlpConfigSource {
  private cached: { stamp: string; loaded: LoadedIlpConfig } | null = null;

  constructor(
    private readonly home: string,
    private readonly seals: Pick<StateSeals, 'check' | 'verify' | 'checkAnchored' | 'verifyAnchored'>,
  ) {}

  current(): LoadedIlpConfig {
    const stamp = `${fileStamp(ilpConfigPath(this.home))}|${fileStamp(sealPath(this.home))}`;
    if (this.cached?.stamp === stamp) return this.cached.loaded;
    const loaded = loadIlpConfig(this.home, this.seals);
    this.cached = { stamp, loaded };
    return loaded;
  }
}

function fileStamp(path: string): string {
  const info = statSync(path, { throwIfNoEntry: false, bigint: true });
  return info ? `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : 'absent';
}
