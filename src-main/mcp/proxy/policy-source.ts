import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { createPolicyEngine, type PolicyEngineOptions } from '../../aip/engine.js';
import type { DlpEngine } from '../../aip/dlp/engine.js';
import type { PolicyEvaluator } from '../../aip/evaluate/evaluator.js';
import { loadPolicyFile, type PolicyError } from '../../aip/policy/load.js';
import type { AgentPolicy } from '../../aip/policy/types.js';

/** One loaded policy with everything that enforces it; swapped whole on reload. */
export interface PolicyState {
  policy: AgentPolicy;
  evaluator: PolicyEvaluator;
  dlp: DlpEngine | null;
}

export interface PolicySourceOptions {
  file: string;
  trustedKeys: () => ReadonlyMap<string, Uint8Array>;
  engine: Omit<PolicyEngineOptions, 'toolDefinition'> & Pick<PolicyEngineOptions, 'toolDefinition'>;
  onReloaded?: (state: PolicyState, previousHash: string) => void;
  onReloadFailed?: (errors: PolicyError[]) => void;
  /** Debounce after a change notification; editors write in several steps. */
  debounceMs?: number;
  /** Re-stat interval: fs.watch misses changes on some file systems and across renames. */
  pollMs?: number;
}

export type InitialLoad = { ok: true; state: PolicyState; warnings: string[] } | { ok: false; errors: PolicyError[] };

/**
 * The policy file of one proxy, hot-reloaded (issue 4 §5): a valid edit replaces the enforcing
 * state within about a second; an invalid one keeps the last valid state and is reported once.
 * The directory is watched rather than the file, so atomic saves (write + rename) are seen.
 */
export class PolicySource {
  private state: PolicyState | null = null;
  private watcher: FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private lastStat = '';
  private lastFailure = '';

  constructor(private readonly options: PolicySourceOptions) {}

  load(): InitialLoad {
    const result = loadPolicyFile(this.options.file, { trustedKeys: this.options.trustedKeys() });
    if (!result.ok) return result;
    this.state = this.build(result.policy);
    this.lastStat = this.stat();
    return { ok: true, state: this.state, warnings: result.warnings };
  }

  current(): PolicyState {
    if (!this.state) throw new Error('PolicySource.current() before a successful load()');
    return this.state;
  }

  watch(): void {
    const file = basename(this.options.file);
    try {
      this.watcher = watch(dirname(this.options.file), { persistent: false }, (_event, name) => {
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
    const result = loadPolicyFile(this.options.file, { trustedKeys: this.options.trustedKeys() });
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

  private build(policy: AgentPolicy): PolicyState {
    const engine = createPolicyEngine(policy, this.options.engine);
    return { policy, evaluator: engine.evaluator, dlp: engine.dlp };
  }

  private stat(): string {
    try {
      const s = statSync(this.options.file);
      return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch {
      return 'missing';
    }
  }
}
