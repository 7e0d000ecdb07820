import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { createPolicyEngine, type PolicyEngineOptions } from '../../aip/engine.js';
import type { ThreatDetectors } from '../../aip/detect/detectors.js';
import type { DlpEngine } from '../../aip/dlp/engine.js';
import type { PolicyEvaluator } from '../../aip/evaluate/evaluator.js';
import { inForceMatcher, judgePolicyText, textSha256, type PolicyRefusalReason } from '../../aip/policy/in-force.js';
import { loadPolicyText, readPolicyText, type PolicyError } from '../../aip/policy/load.js';
import type { AgentPolicy } from '../../aip/policy/types.js';
import type { StateSeals } from '../../keys/sealed-state.js';

/** One loaded policy with everything that enforces it; swapped whole on reload. */
export interface PolicyState {
  policy: AgentPolicy;
  evaluator: PolicyEvaluator;
  dlp: DlpEngine | null;
  threats: ThreatDetectors;
}

/** A policy file that loads but was not put in force by the owner: refused, the last policy in force stays. */
interface PolicyRefusal {
  reason: PolicyRefusalReason;
  /** Why, and how to put it in force (adopt in the cockpit, or `silas policy sign`). */
  detail: string;
  textSha256: string;
}

/** A version Silas saved for the file (newest first): the candidates for the policy in force at start. */
export interface SavedPolicyVersion {
  seq: number;
  text: string;
}

export interface PolicySourceOptions {
  /** The policy file's absolute path: also the id its policy in force is anchored under. */
  file: string;
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  /** The keyring's anchors of policies in force (docs/mcp-proxy.md "Signed policies"). */
  seals: Pick<StateSeals, 'checkAnchored' | 'anchoredDigest' | 'anchor'>;
  /** `--allow-unsigned`: any valid policy is enforced, signed or not (a recorded development choice). */
  allowUnsigned?: boolean;
  /** The versions Silas saved for the file, newest first; at start the anchored one is enforced when the file is refused. */
  savedVersions?: () => SavedPolicyVersion[];
  /** The file was refused (once per distinct content); the policy in force is unchanged. */
  onRefused?: (refusal: PolicyRefusal, inForce: PolicyState | null) => void;
  engine: Omit<PolicyEngineOptions, 'toolDefinition'> & Pick<PolicyEngineOptions, 'toolDefinition'>;
  onReloaded?: (state: PolicyState, previousHash: string) => void;
  onReloadFailed?: (errors: PolicyError[]) => void;
  /** Debounce after a change notification; editors write in several steps. */
  debounceMs?: number;
  /** Re-stat interval: fs.watch misses changes on some file systems and across renames. */
  pollMs?: number;
}

export type InitialLoad =
  | {
      ok: true;
      state: PolicyState;
      warnings: string[];
      /** The file was refused and the saved version `seq` (the one anchored) is enforced instead. */
      fallback?: { refusal: PolicyRefusal; seq: number };
    }
  | { ok: false; errors: PolicyError[]; refusal?: PolicyRefusal };

const MAX_REMEMBERED_REFUSALS = 1_000;

/**
 * The policy file of one proxy, hot-reloaded (docs/mcp-proxy.md "Signed policies"): an edit the owner put in force (signed
 * and anchored, aip/policy/in-force.ts) replaces the enforcing state within about a second; an
 * invalid one, or one the owner did not put in force, keeps the last state and is reported once
 * per distinct content. The directory is watched rather than the file, so atomic saves
 * (write + rename) are seen.
 */
export class PolicySource {
  private state: PolicyState | null = null;
  private watcher: FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private lastStat = '';
  private lastFailure = '';
  private readonly refused = new Set<string>();
  private readonly file: string;

  constructor(private readonly options: PolicySourceOptions) {
    this.file = resolve(options.file);
  }

  load(): InitialLoad {
    this.lastStat = this.stat();
    const read = readPolicyText(this.file);
    if (!read.ok) return read;
    const judged = this.judge(read.text);
    if (judged.ok) {
      this.state = this.build(judged.policy);
      return { ok: true, state: this.state, warnings: judged.warnings };
    }
    if (judged.invalid) return { ok: false, errors: judged.errors };
    const refusal: PolicyRefusal = { reason: judged.reason, detail: judged.detail, textSha256: textSha256(read.text) };
    this.refused.add(refusal.textSha256);
    const saved = this.anchoredVersion();
    if (saved) this.state = this.build(saved.policy);
    this.options.onRefused?.(refusal, this.state);
    if (!saved) return { ok: false, refusal, errors: [{ path: '', line: 0, column: 0, message: refusal.detail }] };
    return { ok: true, state: this.state!, warnings: saved.warnings, fallback: { refusal, seq: saved.seq } };
  }

  current(): PolicyState {
    if (!this.state) throw new Error('PolicySource.current() before a successful load()');
    return this.state;
  }

  watch(): void {
    const file = basename(this.file);
    try {
      this.watcher = watch(dirname(this.file), { persistent: false }, (_event, name) => {
        if (name === null || name === file) this.schedule();
      });
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = null; // polling alone still reloads within pollMs
    }
    this.poll = setInterval(() => {
      if (this.stat() !== this.lastStat) this.schedule();
    }, this.options.pollMs ?? 700);
    this.poll.unref();
  }

  stop(): void {
    this.watcher?.close();
    if (this.poll) clearInterval(this.poll);
    if (this.pending) clearTimeout(this.pending);
    this.watcher = null;
    this.poll = null;
    this.pending = null;
  }

  /** Loads the file now; returns whether the enforcing policy changed. */
  reload(): boolean {
    this.lastStat = this.stat();
    const read = readPolicyText(this.file);
    const result = read.ok ? this.judge(read.text) : ({ ok: false, invalid: true, errors: read.errors } as const);
    if (!result.ok && !result.invalid) {
      const sha = textSha256(read.ok ? read.text : '');
      if (!this.refused.has(sha)) {
        if (this.refused.size >= MAX_REMEMBERED_REFUSALS) this.refused.clear();
        this.refused.add(sha);
        this.options.onRefused?.({ reason: result.reason, detail: result.detail, textSha256: sha }, this.state);
      }
      return false;
    }
    if (!result.ok) {
      const key = JSON.stringify(result.errors);
      if (key !== this.lastFailure) {
        this.lastFailure = key;
        this.options.onReloadFailed?.(result.errors);
      }
      return false;
    }
    this.lastFailure = '';
    const previous = this.state;
    if (previous && previous.policy.hash === result.policy.hash) return false;
    this.state = this.build(result.policy);
    this.options.onReloaded?.(this.state, previous?.policy.hash ?? '');
    return true;
  }

  private schedule(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = null;
      this.reload();
    }, this.options.debounceMs ?? 150);
    this.pending.unref();
  }

  private judge(text: string): ReturnType<typeof judgePolicyText> {
    return judgePolicyText(text, { path: this.file, trustedKeys: this.options.trustedKeys(), seals: this.options.seals, allowUnsigned: this.options.allowUnsigned === true });
  }

  /**
   * The version Silas saved for this file that the keyring names as in force, when it is signed by
   * the owner: what a proxy enforces at start while the file itself is refused.
   */
  private anchoredVersion(): { policy: AgentPolicy; warnings: string[]; seq: number } | null {
    const trustedKeys = this.options.trustedKeys();
    const isInForce = inForceMatcher(this.options.seals, this.file);
    for (const version of this.options.savedVersions?.() ?? []) {
      if (!isInForce(textSha256(version.text))) continue;
      const loaded = loadPolicyText(version.text, { sourcePath: this.file, trustedKeys });
      if (loaded.ok && loaded.signedBy !== null) return { policy: loaded.policy, warnings: loaded.warnings, seq: version.seq };
    }
    return null;
  }

  private build(policy: AgentPolicy): PolicyState {
    const engine = createPolicyEngine(policy, this.options.engine);
    return { policy, evaluator: engine.evaluator, dlp: engine.dlp, threats: engine.threats! };
  }

  private stat(): string {
    try {
      const s = statSync(this.file);
      return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch {
      return 'missing';
    }
  }
}
