/*
 * Shell variables for the protected-path matcher's shell reader (paths/shell.ts): what `$NAME`
 * may hold at a point of a script. A value is a set of alternatives, because the reader does
 * not follow control flow: an assignment that may not run (after `&&`/`||`, inside `if`, a
 * loop, a function, a pipeline or a subshell) adds its value to what the name held before
 * instead of replacing it, and a `for` variable holds each of its words. An alternative may be
 * UNKNOWN_OUTPUT (`read X`, `X=$(tool)`, a name the environment does not tell): the reader's
 * rule for unknowable output then applies. Everything is bounded: names per scope, alternatives
 * per name. The reader runs over every string the proxy relays, so the collections here are made
 * and grown as cheaply as possible (docs/protected-paths.md "Cost and file-system lookups").
 */

import { CURRENT_DIR as CURRENT_DIR_MARKER, UNKNOWN_OUTPUT as UNKNOWN_OUTPUT_MARKER } from './shell-markers.js';

// Module-level copies of the markers: where modules are compiled to CommonJS (tsx: the tests
// and benchmarks), every use of an imported binding is a getter call, which profiles showed
// in the per-word loops.
const CURRENT_DIR = CURRENT_DIR_MARKER;
const UNKNOWN_OUTPUT = UNKNOWN_OUTPUT_MARKER;

/** Names one script may assign; past this, every name it has not assigned is unknowable. */
const MAX_VARIABLES = 256;
/** Alternatives one name (or one word) may hold; past this, it is unknowable. */
export const MAX_ALTERNATIVES = 64;

export type Environment = Readonly<Record<string, string | undefined>>;

export interface Value {
  alts: string[];
  /** The name may be unset (so `${X-d}` may give `d`). */
  maybeUnset: boolean;
}

interface Variable extends Value {
  exported: boolean;
}

export interface ScopeOptions {
  /** The environment the commands run with; absent when it cannot be known. */
  environment?: Environment;
  /** `~` and `$HOME` expanded: the home directory. */
  home: string;
}

const UNKNOWN: Value = Object.freeze({ alts: [UNKNOWN_OUTPUT], maybeUnset: true }) as Value;
const EMPTY: Value = Object.freeze({ alts: [''], maybeUnset: true }) as Value;

export class VarScope {
  // The collections are made on first use: a long script derives a scope per substitution and
  // per nested script, and most assign nothing.
  private own: Map<string, Variable> | null = null;
  private overflow = false;
  /** Every value each name received in this scope: what a loop or function body may see (second pass). */
  private ever: Map<string, string[]> | null = null;
  /** Names referenced inside a loop, function or branch body before this scope assigned them. */
  private bodyRefs: Set<string> | null = null;
  /** A name referenced in a body was assigned afterwards: read the script again with `hints`. */
  rereadNeeded = false;
  hints: ReadonlyMap<string, string[]> | null = null;

  /**
   * `child`: a new shell process (`bash -c '…'`, `ssh host '…'`): it sees the parent's exported
   * names only. `positional`: its `$0`, `$1`, … when they are known (`sh -c SCRIPT a0 a1`).
   */
  constructor(
    private readonly parent: VarScope | null,
    private readonly options: ScopeOptions,
    private readonly child = false,
    private readonly positional: readonly string[] | null = null,
  ) {}

  /** Every value each name received in this scope (the live map: a second pass adds to it). */
  get everAssigned(): ReadonlyMap<string, string[]> {
    return (this.ever ??= new Map());
  }

  /** A scope that starts with this one's names: an overlay for `X=v cmd`, or a subshell. */
  derive(child = false, positional: readonly string[] | null = null): VarScope {
    return new VarScope(this, this.options, child, positional);
  }

  /** `$NAME` at this point; `inBody`: inside a loop, function or branch. */
  lookup(name: string, inBody: boolean): Value {
    const value = this.find(name) ?? this.initial(name, inBody);
    return inBody && /^[A-Za-z_]/.test(name) ? this.noteBodyRef(name, value) : value;
  }

  /** Remembers a body's reference in every scope it sees, and adds what a first reading assigned later. */
  private noteBodyRef(name: string, value: Value): Value {
    (this.bodyRefs ??= new Set()).add(name);
    const hinted = this.hints?.get(name);
    const out = hinted === undefined ? value : merge(value, { alts: hinted, maybeUnset: false });
    return this.parent === null ? out : this.parent.noteBodyRef(name, out);
  }

  /** Whether the script assigned the name here or in a scope this one sees. */
  assigned(name: string): boolean {
    return this.find(name) !== null;
  }

  /**
   * `NAME=value`. `replace`: the assignment certainly runs and is seen by what follows;
   * otherwise the value joins what the name may already hold.
   */
  assign(name: string, value: Value, replace: boolean, exported = false): void {
    const own = (this.own ??= new Map());
    if (!own.has(name) && own.size >= MAX_VARIABLES) {
      this.overflow = true;
      return;
    }
    const before = this.find(name);
    const next = replace ? value : merge(before ?? this.initial(name, false), value);
    const kept = capped(next);
    own.set(name, { alts: kept.alts, maybeUnset: kept.maybeUnset, exported: exported || (before?.exported ?? false) || this.inherited(name) });
    // Added to in place (each list is this map's own, kept without duplicates), not copied per
    // assignment: a long script assigns the same names again and again.
    const everMap = (this.ever ??= new Map());
    const ever = everMap.get(name);
    if (ever === undefined) everMap.set(name, capped({ alts: [...value.alts], maybeUnset: false }).alts);
    else {
      for (const alt of value.alts) if (!ever.includes(alt)) ever.push(alt);
      if (ever.length > MAX_ALTERNATIVES) everMap.set(name, [UNKNOWN_OUTPUT]);
    }
    if (this.bodyRefs?.has(name) === true) this.rereadNeeded = true;
  }

  markExported(name: string): void {
    const v = this.own?.get(name);
    if (v !== undefined) v.exported = true;
    else {
      const before = this.find(name);
      if (before !== null) (this.own ??= new Map()).set(name, { ...before, exported: true });
    }
  }

  /** `crossed`: the lookup started in a new shell below this scope. */
  private find(name: string, crossed = false): Variable | null {
    const v = this.own?.get(name);
    if (v !== undefined) {
      if (!crossed || v.exported) return v;
      // Not exported: a new shell sees it only when it came from the environment.
      if (this.options.environment !== undefined) return this.inherited(name) ? v : null;
      return { ...merge(v, EMPTY), exported: false };
    }
    if (this.overflow) return { ...UNKNOWN, exported: false };
    return this.parent === null ? null : this.parent.find(name, crossed || this.child);
  }

  private inherited(name: string): boolean {
    return this.options.environment !== undefined && this.options.environment[name] !== undefined;
  }

  /** A name the script has not assigned: special parameters, positional ones, the environment. */
  private initial(name: string, inBody: boolean): Value {
    if (name === 'HOME') return { alts: [this.options.home], maybeUnset: false };
    if (name === 'PWD') return { alts: [CURRENT_DIR], maybeUnset: false };
    if (name === '?' || name === '#' || name === '$' || name === '!') return { alts: ['0'], maybeUnset: false };
    if (name === '-' || name === '_') return EMPTY;
    const env = this.options.environment;
    if (/^[0-9@*]/.test(name)) {
      const positional = this.positionalScope();
      if (positional !== null) {
        if (name === '@' || name === '*') return { alts: [positional.slice(1).join(' ')], maybeUnset: false };
        const v = positional[Number(name)];
        return v === undefined ? EMPTY : { alts: [v], maybeUnset: false };
      }
      // A function's arguments are whatever its caller passes; a top-level command string runs
      // as `sh -c STRING` with none.
      if (inBody || env === undefined) return UNKNOWN;
      return name === '0' ? { alts: ['sh'], maybeUnset: false } : EMPTY;
    }
    if (env === undefined) return UNKNOWN;
    const v = env[name];
    return v === undefined ? EMPTY : { alts: [v], maybeUnset: false };
  }

  private positionalScope(): readonly string[] | null {
    if (this.positional !== null) return this.positional;
    if (this.child || this.parent === null) return null;
    return this.parent.positionalScope();
  }
}

export function merge(a: Value, b: Value): Value {
  return capped({ alts: [...new Set([...a.alts, ...b.alts])], maybeUnset: a.maybeUnset || b.maybeUnset });
}

function capped(v: Value): Value {
  // One alternative (most assignments) has nothing to deduplicate; values are never changed in place.
  if (v.alts.length < 2) return { alts: v.alts, maybeUnset: v.maybeUnset };
  const alts = [...new Set(v.alts)];
  if (alts.length > MAX_ALTERNATIVES) return { alts: [UNKNOWN_OUTPUT], maybeUnset: v.maybeUnset };
  return { alts, maybeUnset: v.maybeUnset };
}

export { UNKNOWN as UNKNOWN_VALUE, EMPTY as EMPTY_VALUE };
