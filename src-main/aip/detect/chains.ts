import type { CallClass } from '../../../src-shared/policy/schema.js';
import { CALL_CLASSES } from '../../../src-shared/policy/schema-threats.js';
import type { ChainRule } from '../policy/types.js';
import { DEFAULT_THREATS } from '../policy/threats.js';
import { profileCall, type CallProfile } from './call-classes.js';
import { baseName, normalizePath } from './call-paths.js';
import { excerptOf, type DetectorFinding } from './finding.js';

/*
 * Dangerous chains of calls in one session (docs/threat-detection.md "Chains"): a secret read and
 * then a network send is an exfiltration even when each call alone is allowed. The rules are the
 * policy's `x-silas-threats.chain_rules` or the built-in ones below, each a sequence of call
 * classes (call-classes.ts). A sequence matches when its steps appear in order, not necessarily
 * adjacent, in the session's last `within` calls, the call being checked included and being the
 * last step: the chain is judged at the call that completes it, so the proxy can block or ask
 * before that call leaves.
 *
 * The write → execute binding: a `file_write` step directly followed by an `execute` step matches
 * only when the executed call runs the written file (the command's program or the script given to
 * an interpreter or `source` names the written path or its base name). Without it every "edit the
 * code, run the tests" session would be a chain; with it, "write /tmp/x.sh, run `bash x.sh`" is.
 * It holds in the policy's own rules as in the built-in ones.
 *
 * Calls are recorded whether the proxy allowed or refused them: an attempt shows the intent. The
 * history is a ring buffer as long as the longest `within` (at most 1000 calls), each entry
 * holding the call's classes, a few capped strings and, per class, where the previous call of
 * that class is, so memory is bounded and a step of a rule is found in one jump rather than a
 * walk of the window. A call is classified once (check and record of the same call share it).
 */

export interface ChainCall {
  tool: string;
  args: unknown;
}

interface ChainStep {
  tool: string;
  classes: CallClass[];
  /** position in the session, 0-based */
  index: number;
  refused: boolean;
}

export interface ChainHit {
  rule: ChainRule;
  steps: ChainStep[];
  finding: DetectorFinding;
}

const WINDOW_MIN = 2;
const WINDOW_MAX = 1000;
const SHOWN_ARGUMENT_MAX = 80;
const KEPT_PATHS = 4;
const KEPT_PATH_CHARS = 256;

const builtin = (name: string, sequence: CallClass[]): ChainRule => ({ name, sequence, within: DEFAULT_THREATS.chainWindow, action: 'block' });

/** The rules a policy without `chain_rules` gets, with the default window (the detector applies its own). */
export const BUILTIN_CHAIN_RULES: readonly ChainRule[] = Object.freeze([
  builtin('secret read, then a network send', ['secret_read', 'network_send']),
  builtin('environment read, then a network send', ['env_read', 'network_send']),
  builtin('file written, then executed', ['file_write', 'execute']),
  builtin('reconnaissance, then a secret read', ['recon', 'secret_read']),
  builtin('reconnaissance burst, then a network send', ['recon', 'recon', 'network_send']),
  builtin('persistence, then a network send', ['persistence', 'network_send']),
]);

/** The built-in rules with `within` set to the policy's `chain_window`. */
export function builtinChainRules(window: number): ChainRule[] {
  return BUILTIN_CHAIN_RULES.map((rule) => ({ ...rule, sequence: [...rule.sequence], within: clampWindow(window) }));
}

const CLASS_WORDS: Record<CallClass, string> = {
  secret_read: 'secret read',
  env_read: 'environment read',
  file_read: 'file read',
  file_write: 'file write',
  execute: 'execution',
  network_send: 'network send',
  recon: 'reconnaissance',
  persistence: 'persistence',
};

const bit = (cls: CallClass): number => {
  const at = CALL_CLASSES.indexOf(cls);
  return at < 0 ? 0 : 1 << at;
};
const WRITE = CALL_CLASSES.indexOf('file_write');
const EXECUTE = CALL_CLASSES.indexOf('execute');

interface Entry {
  tool: string;
  classes: CallClass[];
  mask: number;
  index: number;
  refused: boolean;
  key: { path: string; value: string };
  /** Normalised paths written and run, for the binding. */
  writes: string[];
  runs: string[];
  /** For each class, the latest earlier position of a call of that class (-1: none), so a match never rescans the window. */
  previous: number[];
}

export class ChainDetector {
  private readonly rules: readonly ChainRule[];
  private readonly ring: Entry[];
  private readonly capacity: number;
  private count = 0;
  private lastProfiled: { call: ChainCall; profile: CallProfile } | null = null;

  constructor(rules: readonly ChainRule[] | null, window: number) {
    const source = rules ?? builtinChainRules(window);
    // A one-step "chain" would judge single calls, which is the rules' job, not this detector's.
    this.rules = source.filter((rule) => rule.sequence.length >= 2).map((rule) => ({ ...rule, within: clampWindow(rule.within) }));
    const longest = this.rules.filter((r) => r.action !== 'off').reduce((max, r) => Math.max(max, r.within), WINDOW_MIN);
    this.capacity = longest - 1;
    this.ring = [];
  }

  /** How many recorded calls the detector holds (never more than the longest window less one). */
  get held(): number {
    return Math.min(this.count, this.capacity);
  }

  /** The rule a call would complete (first in policy order whose action is not 'off'), or null. Does not record. */
  check(call: ChainCall): ChainHit | null {
    const current = entryOf(call, this.profile(call), this.count, false);
    for (const rule of this.rules) {
      if (rule.action === 'off') continue;
      const last = rule.sequence[rule.sequence.length - 1]!;
      if ((current.mask & bit(last)) === 0) continue;
      const lowest = Math.max(0, this.count - (rule.within - 1), this.count - this.capacity);
      const positions = this.match(rule.sequence, lowest, current);
      if (positions === null) continue;
      const entries = [...positions.map((p) => this.at(p)), current];
      return { rule, steps: entries.map(stepOf), finding: findingOf(rule, entries) };
    }
    return null;
  }

  /** Records a call the proxy decided (allowed or refused: an attempt shows intent either way). */
  record(call: ChainCall, refused: boolean): void {
    this.lastProfiled = null;
    this.push(entryOf(call, this.profile(call), this.count, refused));
  }

  /**
   * Takes over the calls `earlier` holds, oldest first, as many as this detector keeps: a policy
   * reload builds a new detector, and a session's history must not start afresh with it (an agent
   * that read a secret just before the owner saved a policy could otherwise send it just after).
   * What a call is does not depend on the rules, so the recorded entries carry over as they are.
   */
  carryFrom(earlier: ChainDetector): void {
    const held = earlier.held;
    for (let k = Math.max(0, held - this.capacity); k < held; k += 1) {
      const entry = earlier.at(earlier.count - held + k);
      this.push({ ...entry, index: this.count, previous: CALL_CLASSES.map(() => -1) });
    }
  }

  private push(entry: Entry): void {
    if (this.count > 0) {
      const before = this.at(this.count - 1);
      entry.previous = before.previous.map((position, cls) => ((before.mask & (1 << cls)) !== 0 ? this.count - 1 : position));
    }
    this.ring[this.count % this.capacity] = entry;
    this.count++;
  }

  private profile(call: ChainCall): CallProfile {
    if (this.lastProfiled !== null && this.lastProfiled.call === call && this.lastProfiled.call.tool === call.tool) return this.lastProfiled.profile;
    const profile = profileCall(call.tool, call.args);
    this.lastProfiled = { call, profile };
    return profile;
  }

  private at(position: number): Entry {
    return this.ring[position % this.capacity]!;
  }

  /**
   * Positions of the steps before the last, latest first chosen: a step takes the latest call
   * of its class before the step after it, which finds a match whenever one exists. A write →
   * execute pair inside the sequence is chosen together, keeping the pair whose write is latest.
   */
  private match(sequence: readonly CallClass[], lowest: number, current: Entry): number[] | null {
    const picked: number[] = [];
    let limit = this.count;
    let j = sequence.length - 2;
    while (j >= 0) {
      if (sequence[j] === 'execute' && sequence[j - 1] === 'file_write') {
        const pair = this.latestBoundPair(lowest, limit);
        if (pair === null) return null;
        picked.push(pair.run, pair.write);
        limit = pair.write;
        j -= 2;
        continue;
      }
      const wanted = CALL_CLASSES.indexOf(sequence[j]!);
      const bindsToCurrent = sequence[j] === 'file_write' && sequence[j + 1] === 'execute';
      if (bindsToCurrent && current.runs.length === 0) return null;
      let found = this.latest(wanted, limit, lowest);
      while (bindsToCurrent && found >= 0 && !runsWritten(this.at(found), current)) found = this.latest(wanted, found, lowest);
      if (found < 0) return null;
      picked.push(found);
      limit = found;
      j--;
    }
    return picked.reverse();
  }

  private latestBoundPair(lowest: number, limit: number): { write: number; run: number } | null {
    let best: { write: number; run: number } | null = null;
    for (let q = this.latest(EXECUTE, limit, lowest); q > lowest && (best === null || q - 1 > best.write); q = this.latest(EXECUTE, q, lowest)) {
      const run = this.at(q);
      if (run.runs.length === 0) continue;
      for (let p = this.latest(WRITE, q, lowest); p >= 0 && (best === null || p > best.write); p = this.latest(WRITE, p, lowest)) {
        if (runsWritten(this.at(p), run)) {
          best = { write: p, run: q };
          break;
        }
      }
    }
    return best;
  }

  /** The latest recorded position before `limit`, and not before `lowest`, of a call of class number `cls`; -1 if none. */
  private latest(cls: number, limit: number, lowest: number): number {
    if (cls < 0 || limit - 1 < lowest) return -1;
    const entry = this.at(limit - 1);
    const found = (entry.mask & (1 << cls)) !== 0 ? limit - 1 : entry.previous[cls]!;
    return found >= lowest ? found : -1;
  }
}

function clampWindow(window: number): number {
  if (!Number.isFinite(window)) return DEFAULT_THREATS.chainWindow;
  return Math.min(WINDOW_MAX, Math.max(WINDOW_MIN, Math.floor(window)));
}

function entryOf(call: ChainCall, profile: CallProfile, index: number, refused: boolean): Entry {
  const classes = CALL_CLASSES.filter((cls) => profile.classes.has(cls));
  return {
    tool: typeof call.tool === 'string' ? call.tool.slice(0, 128) : '',
    classes,
    mask: classes.reduce((mask, cls) => mask | bit(cls), 0),
    index,
    refused,
    key: { path: profile.key.path, value: profile.key.value.slice(0, 200) },
    writes: kept(profile.writes),
    runs: kept(profile.runs),
    previous: CALL_CLASSES.map(() => -1),
  };
}

/**
 * The paths an entry keeps for the binding: at most KEPT_PATHS, each cut to its last
 * KEPT_PATH_CHARS characters (the base name is what must survive), so a full window of hostile
 * calls holds at most a couple of megabytes.
 */
function kept(paths: string[]): string[] {
  const out: string[] = [];
  for (const raw of paths) {
    const path = normalizePath(raw);
    if (path !== '') out.push(path.length > KEPT_PATH_CHARS ? path.slice(-KEPT_PATH_CHARS) : path);
    if (out.length === KEPT_PATHS) break;
  }
  return out;
}

/** The binding: the executing call runs a file the writing call wrote (same path, or same base name). */
function runsWritten(write: Entry, run: Entry): boolean {
  return write.writes.some((w) => run.runs.some((r) => r === w || baseName(r) === baseName(w)));
}

function stepOf(entry: Entry): ChainStep {
  return { tool: entry.tool, classes: [...entry.classes], index: entry.index, refused: entry.refused };
}

function shown(entry: Entry): string {
  const value = entry.key.value.split('\n').join(' ').split('\r').join(' ').trim();
  const cut = value.length > SHOWN_ARGUMENT_MAX ? `${value.slice(0, SHOWN_ARGUMENT_MAX - 1)}…` : value;
  return cut === '' ? entry.tool : `${entry.tool} ${cut}`;
}

function findingOf(rule: ChainRule, entries: Entry[]): DetectorFinding {
  const words = entries.map((entry, i) => `${shown(entry)} (${CLASS_WORDS[rule.sequence[i]!]}${entry.refused ? ', refused' : ''})`);
  const current = entries[entries.length - 1]!;
  const excerptText = current.key.value === '' ? current.tool : `${current.tool} ${current.key.value}`;
  return {
    detector: 'chain',
    rule: slugOf(rule.name),
    description: `${words.join(', then ')}: the chain "${rule.name}" within the session's last ${rule.within} calls.`,
    path: current.key.path,
    start: 0,
    end: current.key.value.length,
    excerpt: excerptOf(excerptText, 0, excerptText.length),
  };
}

/** `secret read, then a network send` → `secret_read_then_a_network_send`. */
export function slugOf(name: string): string {
  let slug = '';
  for (const c of name.toLowerCase().slice(0, 64)) {
    const keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) slug += c;
    else if (slug !== '' && !slug.endsWith('_')) slug += '_';
  }
  slug = slug.endsWith('_') ? slug.slice(0, -1) : slug;
  return slug === '' ? 'chain' : slug;
}
