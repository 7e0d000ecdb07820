import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ErrorCode, SilasError } from '../../../src-shared/errors.js';
import type { AuditLog } from '../../audit/audit-log.js';
import { writeFileAtomic } from '../../home/atomic-file.js';
import type { OwnerSigner } from '../../keys/owner-key.js';
import type { PolicyVersionRepository, PolicyVersionRow } from '../../store/repositories/policy-versions.js';
import { loadPolicyText, MAX_POLICY_BYTES, policyTooLargeMessage } from '../policy/load.js';
import { PolicySignError, signPolicyText } from '../policy/sign.js';
import { anchorPolicyInForce, inForceMatcher } from '../policy/in-force.js';
import type { StateSeals } from '../../keys/sealed-state.js';
import { sealVersion, versionTrust, type VersionTrust } from './version-seals.js';

/*
 * The policies the cockpit edits (docs/policy-editor.md "Saving, history, outside edits"): save
 * signs a draft that loads with the owner key (§5.2 canonical form) and writes it atomically,
 * keeping every version with its hash, signer and time; running proxies hot-reload the file. Only
 * the policies of this installation can be written (those its wrapped servers run under, and
 * HOME/policies): the cockpit's `decide` is not a way to write arbitrary files. A file changed
 * behind the app's back is detected (its text is not the last saved version, or its signature is
 * not the owner's) and can be adopted or reverted.
 */

export type PolicySignature = 'owner' | 'unsigned' | 'invalid';

export interface PolicyFileStatus {
  path: string;
  exists: boolean;
  /** The file loads (with its signature checked against the keyring's owner key). */
  loads: boolean;
  signature: PolicySignature;
  hash: string | null;
  /** The text on disk is not the last version saved from the cockpit (or none was saved). */
  modifiedOutside: boolean;
  versions: number;
  textSha256: string | null;
  /** Why the file was not read at all: it is over the size cap (MAX_POLICY_BYTES). */
  problem?: string;
  /**
   * The file is the policy proxies enforce: signed by the owner and the text Silas last put in
   * force for this path (the keyring's anchor; docs/mcp-proxy.md "Signed policies").
   */
  inForce: boolean;
  /** When the file is not in force: the saved version proxies keep enforcing, or null when none is. */
  inForceSeq: number | null;
}

export interface PolicyVersionView {
  id: number;
  seq: number;
  policyHash: string;
  signer: string;
  action: PolicyVersionRow['action'];
  savedAt: string;
  /**
   * Changed outside Silas, not trusted: its text no longer matches its recorded hash, or the row
   * fails the owner's seal (docs/policy-editor.md "History"). Shown, never restored or diffed.
   */
  corrupt: boolean;
}

type JudgedText = { loads: boolean; signature: PolicySignature; hash: string | null };

/** A judged text is kept by path, content and the keys its signature was checked against. */
const judgedKey = (path: string, textSha256: string, trusted: ReadonlyMap<string, Uint8Array>) => `${path}\n${textSha256}\n${[...trusted.keys()].join(',')}`;

export interface PolicyLibraryDeps {
  versions: PolicyVersionRepository;
  audit: Pick<AuditLog, 'append'>;
  signer: OwnerSigner;
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  /** Seals versions and anchors the policy in force for each path (keys/sealed-state.ts). */
  seals: Pick<StateSeals, 'seal' | 'verify' | 'report' | 'anchor' | 'anchoredDigest'>;
  /** Absolute paths of the policies this installation may write. */
  knownPolicies: () => readonly string[];
  /** HOME/policies: where a policy made from a template is created. */
  policiesDir: string;
  /** The gallery of starting policies (aip/templates/catalog.ts). */
  templates: PolicyTemplateSource;
  /**
   * Loads a policy file's text off the runtime's event loop (aip/trial/policy-checker.ts `judge`),
   * for the listing; absent (tests, the CLI), the listing parses on the calling thread.
   */
  judgeOffLoop?: (path: string, text: string, trustedKeys: ReadonlyMap<string, Uint8Array>) => Promise<{ loads: boolean; signedBy: string | null; signatureInvalid: boolean; hash: string | null }>;
  now?: () => Date;
}

/** The gallery: each template to show, and a template's policy and suite text (undefined for an id it does not have). */
export interface PolicyTemplateSource {
  list(): PolicyTemplateEntry[];
  read(id: string): { policyText: string; suiteText: string } | undefined;
}

export interface PolicyTemplateEntry {
  id: string;
  title: string;
  server: string;
  summary: string;
  policyText: string;
  /** How many calls its suite tests. */
  cases: number;
}

/** A new policy's file name: what DNS-1123 allows for metadata.name, so the file and the policy share it. */
const POLICY_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const MAX_HISTORY = 1_000;

export class PolicyLibrary {
  private readonly now: () => Date;

  private readonly loadedTexts = new Map<string, JudgedText>();

  constructor(private readonly deps: PolicyLibraryDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async list(): Promise<PolicyFileStatus[]> {
    // The known paths are read once (client configurations, HOME/policies), not once per file.
    const paths = [...new Set(this.deps.knownPolicies().map((path) => resolve(path)))].sort();
    // A text not seen before is parsed in the checker's thread, one at a time (docs/policy-editor.md, Limits).
    if (this.deps.judgeOffLoop) for (const path of paths) await this.judgeAhead(path, this.deps.judgeOffLoop);
    return paths.map((path) => this.statusOf(path));
  }

  private async judgeAhead(path: string, judgeOffLoop: NonNullable<PolicyLibraryDeps['judgeOffLoop']>): Promise<void> {
    const size = fileSize(path);
    if (size === null || size > MAX_POLICY_BYTES) return;
    const text = readText(path);
    if (text === null) return;
    const trusted = this.deps.trustedKeys();
    const key = judgedKey(path, sha256(text), trusted);
    if (this.loadedTexts.has(key)) return;
    try {
      const judged = await judgeOffLoop(path, text, trusted);
      this.remember(key, { loads: judged.loads, signature: judged.loads ? (judged.signedBy !== null ? 'owner' : 'unsigned') : judged.signatureInvalid ? 'invalid' : 'unsigned', hash: judged.hash });
    } catch {
      // The thread refused or failed: the listing judges this one text on the loop, as before.
    }
  }

  status(pathInput: string): PolicyFileStatus {
    return this.statusOf(this.known(pathInput));
  }

  private statusOf(path: string): PolicyFileStatus {
    const status = this.fileStatusOf(path);
    const isInForce = inForceMatcher(this.deps.seals, path);
    if (status.textSha256 !== null && status.signature === 'owner' && isInForce(status.textSha256)) return { ...status, inForce: true, inForceSeq: null };
    // The saved version whose exact text the keyring names: what a proxy falls back to.
    const inForce = this.deps.versions.list(path, 100).find((row) => isInForce(row.textSha256) && this.trust(row).trusted);
    return { ...status, inForce: false, inForceSeq: inForce?.seq ?? null };
  }

  private fileStatusOf(path: string): Omit<PolicyFileStatus, 'inForce' | 'inForceSeq'> {
    const latest = this.deps.versions.latest(path);
    const versions = this.deps.versions.count(path);
    // A file over the cap is refused by its size, before it is read or parsed: a planted 1 MiB
    // file must not stall every listing (docs/policy-editor.md, Limits). No saved version is that large.
    const size = fileSize(path);
    if (size !== null && size > MAX_POLICY_BYTES) {
      return { path, exists: true, loads: false, signature: 'unsigned', hash: null, modifiedOutside: true, versions, textSha256: null, problem: policyTooLargeMessage(size, 'the policy file') };
    }
    const text = readText(path);
    if (text === null) return { path, exists: false, loads: false, signature: 'unsigned', hash: null, modifiedOutside: latest !== null, versions, textSha256: null };
    const textSha256 = sha256(text);
    const { loads, signature, hash } = this.judged(path, text, textSha256);
    return { path, exists: true, loads, signature, hash, modifiedOutside: latest?.textSha256 !== textSha256, versions, textSha256 };
  }

  /**
   * What loading a text says of it, kept by path and content: a listing hashes each file (well
   * under a millisecond at the size cap) and parses only what changed since, so a large policy
   * planted in HOME/policies costs one parse, not one per listing (docs/policy-editor.md, Limits).
   */
  private judged(path: string, text: string, textSha256: string): { loads: boolean; signature: PolicySignature; hash: string | null } {
    const trusted = this.deps.trustedKeys();
    const key = judgedKey(path, textSha256, trusted);
    const kept = this.loadedTexts.get(key);
    if (kept) return kept;
    const loaded = loadPolicyText(text, { sourcePath: path, trustedKeys: trusted });
    const signature: PolicySignature = loaded.ok ? (loaded.signedBy !== null ? 'owner' : 'unsigned') : loaded.errors.some((e) => e.code === -32010) ? 'invalid' : 'unsigned';
    return this.remember(key, { loads: loaded.ok, signature, hash: loaded.ok ? loaded.policy.hash : null });
  }

  private remember(key: string, judged: JudgedText): JudgedText {
    if (this.loadedTexts.size >= 512) this.loadedTexts.clear();
    this.loadedTexts.set(key, judged);
    return judged;
  }

  read(pathInput: string): { status: PolicyFileStatus; text: string } {
    const path = this.known(pathInput);
    const size = fileSize(path);
    if (size !== null && size > MAX_POLICY_BYTES) throw new SilasError(ErrorCode.InvalidArgs, `${policyTooLargeMessage(size, `${path}`)}; it cannot be opened in the editor: Revert it to a saved version, or shorten it outside the cockpit`);
    return { status: this.statusOf(path), text: readText(path) ?? '' };
  }

  /**
   * Signs and writes `text` as the new version of `path`. `expectedSha256` is the file's hash when
   * the editor read it: a file changed meanwhile is not overwritten (null: the file must not exist).
   */
  save(pathInput: string, text: string, expectedSha256: string | null | undefined, action: PolicyVersionRow['action'] = 'save'): { status: PolicyFileStatus; version: PolicyVersionView } {
    return this.write(this.known(pathInput), text, expectedSha256, action);
  }

  templates(): PolicyTemplateEntry[] {
    return this.deps.templates.list();
  }

  /**
   * A new policy HOME/policies/NAME.yaml from a template, its metadata.name set to NAME, signed
   * as its first version; the template's suite is written beside it as NAME.suite.json, so the
   * test bench runs it at once. Nothing existing is overwritten.
   */
  createFromTemplate(name: string, templateId: string): { status: PolicyFileStatus; version: PolicyVersionView; suitePath: string } {
    if (!POLICY_NAME.test(name)) {
      throw new SilasError(ErrorCode.InvalidArgs, `name: expected lower-case letters, digits and dashes, starting and ending with a letter or digit, at most 63 (e.g. "project-files"), got "${name.slice(0, 80)}"`);
    }
    const template = this.deps.templates.read(templateId);
    if (!template) throw new SilasError(ErrorCode.InvalidArgs, `template: there is no template "${templateId.slice(0, 80)}"; choose one from the gallery`);
    const path = join(this.deps.policiesDir, `${name}.yaml`);
    const suitePath = join(this.deps.policiesDir, `${name}.suite.json`);
    const taken = [path, join(this.deps.policiesDir, `${name}.yml`), suitePath].find((candidate) => existsSync(candidate));
    if (taken) throw new SilasError(ErrorCode.Conflict, `${taken} already exists; open that policy from the list, or choose another name`);
    mkdirSync(this.deps.policiesDir, { recursive: true, mode: 0o700 });
    const saved = this.write(path, renamePolicy(template.policyText, templateId, name), null, 'save');
    writeFileAtomic(suitePath, template.suiteText, 0o644);
    this.deps.audit.append('policies.created', { path, template: templateId, suite: suitePath });
    return { ...saved, suitePath };
  }

  private write(path: string, text: string, expectedSha256: string | null | undefined, action: PolicyVersionRow['action']): { status: PolicyFileStatus; version: PolicyVersionView } {
    if (expectedSha256 !== undefined) {
      const onDisk = readText(path);
      const current = onDisk === null ? null : sha256(onDisk);
      if (current !== expectedSha256) throw new SilasError(ErrorCode.Conflict, `${path} changed on disk since it was opened; reload it (your draft is kept in the editor) and save again`);
    }
    let signed: string;
    try {
      signed = signPolicyText(text, this.deps.signer);
    } catch (error) {
      if (error instanceof PolicySignError) {
        const first = error.errors[0]!;
        throw new SilasError(ErrorCode.InvalidArgs, `the draft does not load, so it cannot be saved: line ${first.line}, column ${first.column}: ${first.message}`);
      }
      throw error;
    }
    const loaded = loadPolicyText(signed, { sourcePath: path, trustedKeys: this.deps.trustedKeys() });
    if (!loaded.ok || loaded.signedBy === null) throw new SilasError(ErrorCode.Internal, 'the signed policy does not verify against the owner key; nothing was written');
    if (Buffer.byteLength(signed, 'utf8') > MAX_POLICY_BYTES) throw new SilasError(ErrorCode.InvalidArgs, `the policy is larger than ${MAX_POLICY_BYTES} bytes`);
    const row = this.deps.versions.append({ path, text: signed, textSha256: sha256(signed), policyHash: loaded.policy.hash, signer: this.deps.signer.fingerprint, action, savedAt: this.now().toISOString() }, (version) =>
      sealVersion(this.deps.seals, version),
    );
    // Put in force before the file changes: a proxy that sees the new file finds it anchored (docs/mcp-proxy.md "Signed policies").
    anchorPolicyInForce(this.deps.seals, path, signed);
    writeFileAtomic(path, signed, modeOf(path));
    this.deps.audit.append('policies.saved', { path, seq: row.seq, policy_hash: loaded.policy.hash, signer: this.deps.signer.fingerprint, action });
    return { status: this.statusOf(path), version: this.view(row) };
  }

  history(pathInput: string, limit = 100): PolicyVersionView[] {
    return this.deps.versions.list(this.known(pathInput), Math.min(limit, MAX_HISTORY)).map((row) => this.view(row));
  }

  /** A saved version's text, for the editor's diff: only a version Silas saved (its seal holds). */
  version(id: number): { version: PolicyVersionView; text: string } {
    const row = this.deps.versions.get(id);
    if (!row) throw new SilasError(ErrorCode.NotFound, `no saved policy version ${id}`);
    this.known(row.path);
    this.refuseUntrusted(row, 'open');
    return { version: this.view(row), text: row.text };
  }

  /** Writes an earlier version again, signed now, as a new version (audited as a restore). */
  restore(id: number): { status: PolicyFileStatus; version: PolicyVersionView } {
    const row = this.deps.versions.get(id);
    if (!row) throw new SilasError(ErrorCode.NotFound, `no saved policy version ${id}`);
    this.refuseUntrusted(row, 'restore');
    return this.save(row.path, row.text, undefined, 'restore');
  }

  private trust(row: PolicyVersionRow): VersionTrust {
    return versionTrust(this.deps.seals, this.deps.trustedKeys(), row);
  }

  private view(row: PolicyVersionRow): PolicyVersionView {
    return { id: row.id, seq: row.seq, policyHash: row.policyHash, signer: row.signer, action: row.action, savedAt: row.savedAt, corrupt: !this.trust(row).trusted };
  }

  /** A version changed outside Silas is neither restored nor shown as the owner's: refused and audited. */
  private refuseUntrusted(row: PolicyVersionRow, what: 'restore' | 'open'): void {
    const trust = this.trust(row);
    if (trust.trusted) return;
    // Once per distinct row content (a read-capability caller cannot flood the ledger by opening it again).
    this.deps.seals.report(trust.refusal, { text_sha256: row.textSha256, seal: row.seal });
    if (what === 'restore') this.deps.audit.append('policies.restore_refused', { path: row.path, seq: row.seq, reason: trust.refusal.detail });
    throw new SilasError(ErrorCode.Corrupt, `version ${row.seq} of ${row.path} was changed outside Silas and is not trusted (${trust.refusal.detail}); it cannot be ${what === 'restore' ? 'restored' : 'opened'}`);
  }

  /** A file edited outside the cockpit, taken as it is: signed with the owner key, kept as a version. */
  adopt(pathInput: string): { status: PolicyFileStatus; version: PolicyVersionView } {
    const path = this.known(pathInput);
    const text = readText(path);
    if (text === null) throw new SilasError(ErrorCode.NotFound, `${path} does not exist; nothing to adopt`);
    return this.save(path, stripSignature(text), sha256(text), 'adopt');
  }

  private known(pathInput: string): string {
    if (!isAbsolute(pathInput)) throw new SilasError(ErrorCode.InvalidArgs, `path: expected the absolute path of a policy, got "${pathInput.slice(0, 200)}"`);
    const path = resolve(pathInput);
    const allowed = new Set(this.deps.knownPolicies().map((p) => resolve(p)));
    if (!allowed.has(path)) {
      this.deps.audit.append('policies.write_refused', { path: path.slice(0, 4096), reason: 'not a policy of this installation' });
      throw new SilasError(ErrorCode.Unauthorized, `${path} is not a policy of this installation (those its wrapped servers run under, and HOME/policies); the cockpit edits only those`);
    }
    return path;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The size of a regular file, or null when it is missing or not a file (read then reports it). */
function fileSize(path: string): number | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : null;
  } catch {
    return null;
  }
}

function modeOf(path: string): number {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return 0o644;
  }
}

/**
 * The template's metadata.name replaced by the file's name, as a splice so its comments stay;
 * the comments' references to the template's files (`silas policy test --policy ID.yaml --suite
 * ID.suite.json`) then name the new files.
 */
function renamePolicy(text: string, templateId: string, name: string): string {
  const node = parseDocument(text).getIn(['metadata', 'name'], true) as { range?: [number, number, number] } | undefined;
  if (!node?.range) throw new SilasError(ErrorCode.Internal, 'the template has no metadata.name to set');
  const renamed = text.slice(0, node.range[0]) + name + text.slice(node.range[1]);
  return renamed.replaceAll(`${templateId}.suite.json`, `${name}.suite.json`).replaceAll(`${templateId}.yaml`, `${name}.yaml`);
}

/** An outside edit may carry a signature that no longer matches; adopting re-signs the text. */
function stripSignature(text: string): string {
  return text.replace(/^(\s*)signature:\s*["']?ed25519:[^\n]*\n/m, '');
}
