import { ErrorCode, SilasError } from '../../src-shared/errors.js';
import type { SecretStore } from './secret-store.js';
import { ENV_NAME_PATTERN, SECRET_NAME_PATTERN } from '../../src-shared/secret-names.js';
import { originOf } from '../../src-shared/llm/origin.js';
import type { SealRefusal } from './sealed-state.js';

/**
 * Secrets a governed MCP server needs (API keys), held in the OS keyring and named by reference
 * from a policy (`GITHUB_TOKEN: github-token`), so a value is never written to a config file, the
 * database or the audit chain (DESIGN invariant 5). This class is the only way to reach them.
 */

export const SECRET_NAME_RULE = 'a secret name is 1 to 64 characters: letters, digits, "_", "." and "-", starting with a letter or digit';
export const MAX_SECRET_BYTES = 64 * 1024;

// Every secret lives under this prefix. The colon cannot occur in a secret name, and no other
// account the app uses (owner-…, ledger-key-…, ledger-anchor-…, standing-approvals-…,
// doctor-probe-…, sealed-…) contains one but the origin bindings below, whose prefix differs,
// so no name can address an account outside the namespace.
const SECRET_ACCOUNT_PREFIX = 'server-secret:';
// Where a secret may be sent (docs/silas/models.md, "Where a key may go"): the origins a model
// provider's key was stored for, in an account of its own beside the value. Only the keyring holds
// it, so nothing a process without the keyring writes (models.json) can widen it.
const ORIGIN_ACCOUNT_PREFIX = 'secret-origin:';
// The keyring cannot enumerate its entries, so the names (never the values) are kept in one entry
// of their own. It has no colon, so it is outside the namespace too: a secret named
// "server-secrets-index" is stored at "server-secret:server-secrets-index", not here.
export const SECRET_INDEX_ACCOUNT = 'server-secrets-index';


interface StoredIndex {
  v: 1;
  names: string[];
}

export interface SecretNameListing {
  names: string[];
  /** The index entry was unreadable, so it counted as empty; the next set or delete rewrites it. */
  indexCorrupt: boolean;
}

/** Why `name` is not a valid secret name, or null when it is. */
export function secretNameProblem(name: string): string | null {
  if (typeof name === 'string' && SECRET_NAME_PATTERN.test(name)) return null;
  return `secret name ${JSON.stringify(name)} is not valid: ${SECRET_NAME_RULE}`;
}

/** The keyring account of a secret. Exported so tests can show it stays inside the namespace. */
export function secretAccount(name: string): string {
  checkName(name);
  return `${SECRET_ACCOUNT_PREFIX}${name}`;
}

/** The keyring account of a secret's origin binding. */
function originAccount(name: string): string {
  checkName(name);
  return `${ORIGIN_ACCOUNT_PREFIX}${name}`;
}

/** The origins of `urls` (scheme://host:port), or a SilasError naming the one that is not an http(s) URL. */
export function originsOf(urls: readonly string[]): string[] {
  return [
    ...new Set(
      urls.map((url) => {
        const origin = originOf(url);
        if (origin === null) throw new SilasError(ErrorCode.InvalidArgs, `${JSON.stringify(url.slice(0, 200))} is not an http:// or https:// URL; give the model provider's base URL, e.g. https://api.openai.com/v1`);
        return origin;
      }),
    ),
  ].sort();
}

/** Why a secret is not released to an origin: it was never bound to one, or to others only. */
export type SecretWithheld = { name: string; origin: string; bound: string[] };

function checkName(name: string): void {
  const problem = secretNameProblem(name);
  if (problem !== null) throw new SilasError(ErrorCode.InvalidArgs, problem);
}

/** Messages name the secret and the rule broken, never the value or any part of it. */
function checkValue(name: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" is empty; a secret needs a value`);
  if (value.includes('\0')) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" contains a NUL character, which cannot be passed to a server's environment`);
  if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) throw new SilasError(ErrorCode.InvalidArgs, `the value of secret "${name}" is longer than ${MAX_SECRET_BYTES} bytes (64 KiB)`);
}

function parseIndex(stored: string | null): SecretNameListing {
  if (stored === null) return { names: [], indexCorrupt: false };
  try {
    const parsed = JSON.parse(stored) as Partial<StoredIndex> | null;
    const names = parsed?.v === 1 && Array.isArray(parsed.names) ? parsed.names : null;
    if (names === null || !names.every((n) => typeof n === 'string' && SECRET_NAME_PATTERN.test(n))) return { names: [], indexCorrupt: true };
    return { names: [...new Set(names)].sort(), indexCorrupt: false };
  } catch {
    return { names: [], indexCorrupt: true };
  }
}

export interface NamedSecretsOptions {
  /** Where a refusal to release a key to an origin goes (the audit chain, through `StateSeals.report`). */
  onWithheld?: (refusal: SealRefusal, origin: string) => void;
}

export class NamedSecrets {
  constructor(
    private readonly store: SecretStore,
    private readonly options: NamedSecretsOptions = {},
  ) {}

  /** Where the secrets live, for messages (e.g. "Secret Service"). */
  get description(): string {
    return this.store.description;
  }

  /**
   * Stores `value` as secret `name`. With `origins`, the secret may be sent to those origins (and
   * no others) as a model provider's key: entering the value is what vouches for where it goes.
   * Without, a binding the secret had is kept (a key replaced by a new one keeps its provider).
   */
  set(name: string, value: string, options: { origins?: readonly string[] } = {}): void {
    checkName(name);
    checkValue(name, value);
    const origins = options.origins === undefined ? undefined : originsOf(options.origins);
    // Value first: a failure in between leaves a value the index misses (set it again to list
    // it), never a listed name without a value.
    this.store.set(secretAccount(name), value);
    if (origins !== undefined) this.writeOrigins(name, origins);
    const { names, indexCorrupt } = this.listing();
    if (indexCorrupt || !names.includes(name)) this.writeIndex([...names, name]);
  }

  /** The origins (scheme://host:port) secret `name` may be sent to as a model provider's key; [] when none. */
  boundOrigins(name: string): string[] {
    const stored = this.store.get(originAccount(name));
    if (stored === null) return [];
    try {
      const parsed = JSON.parse(stored) as { v?: unknown; origins?: unknown };
      if (parsed.v === 1 && Array.isArray(parsed.origins) && parsed.origins.every((o) => typeof o === 'string' && originOf(o) === o)) return [...(parsed.origins as string[])].sort();
    } catch {
      // An unreadable binding binds nothing.
    }
    return [];
  }

  /**
   * Sets where secret `name` may go to exactly the origins of `urls` ([] removes the binding): only
   * for the person's own decision (the cockpit's model form, over the `decide` capability). The CLI
   * re-enters the value instead (`set` with `origins`).
   */
  bindOrigins(name: string, urls: readonly string[]): void {
    checkName(name);
    this.writeOrigins(name, originsOf(urls));
  }

  /**
   * Whether the key in secret `name` may be sent to `url`'s origin; a refusal is reported (the
   * runtime audits it). The one check every model provider's key goes through (llm/providers.ts).
   */
  releasable(name: string, url: string): { ok: true } | { ok: false; withheld: SecretWithheld } {
    const origin = originOf(url) ?? url;
    const bound = this.boundOrigins(name);
    if (bound.includes(origin)) return { ok: true };
    const withheld = { name, origin, bound };
    this.options.onWithheld?.(
      {
        kind: 'secret-origin',
        id: name,
        authority: 'owner',
        reason: bound.length === 0 ? 'unsealed' : 'mismatch',
        detail:
          bound.length === 0
            ? `secret "${name}" was not stored for a model provider, so it is not sent to ${origin}`
            : `secret "${name}" may be sent only to ${bound.join(', ')}, not to ${origin}`,
      },
      origin,
    );
    return { ok: false, withheld };
  }

  get(name: string): string | null {
    return this.store.get(secretAccount(name));
  }

  /** True when there was something to delete: a value, or a name in the index. */
  delete(name: string): boolean {
    checkName(name);
    // Value first: a failure in between leaves a listed name without a value, never a value the
    // person thinks deleted but can no longer see in the list.
    const hadValue = this.store.delete(secretAccount(name));
    this.store.delete(originAccount(name));
    const { names, indexCorrupt } = this.listing();
    const listed = names.includes(name);
    if (listed || indexCorrupt) this.writeIndex(names.filter((n) => n !== name));
    return hadValue || listed;
  }

  names(): string[] {
    return this.listing().names;
  }

  /** The names in the index, and whether the index had to be treated as empty because it was unreadable. */
  listing(): SecretNameListing {
    return parseIndex(this.store.get(SECRET_INDEX_ACCOUNT));
  }

  /**
   * The environment a server is started with, from a policy's references (variable → secret
   * name). Every missing secret is named in one error, with the command that fixes it, so the
   * person does not discover them one launch at a time. Fails closed: no partial environment.
   */
  resolveEnvironment(refs: Readonly<Record<string, string>>): { env: Record<string, string> } {
    const entries: [string, string][] = [];
    const missing: string[] = [];
    for (const [variable, name] of Object.entries(refs)) {
      if (!ENV_NAME_PATTERN.test(variable)) {
        throw new SilasError(ErrorCode.InvalidArgs, `environment variable name ${JSON.stringify(variable)} is not valid: letters, digits and "_", not starting with a digit`);
      }
      const problem = secretNameProblem(name);
      if (problem !== null) throw new SilasError(ErrorCode.InvalidArgs, `environment variable ${variable}: ${problem}`);
      const value = this.get(name);
      if (value === null) missing.push(`environment variable ${variable} refers to secret "${name}", which is not in the OS keyring (${this.store.description}); to fix, run \`silas secrets set ${name}\` and type or pipe its value`);
      else entries.push([variable, value]);
    }
    if (missing.length > 0) throw new SilasError(ErrorCode.KeyMissing, missing.join('; '));
    // fromEntries defines own properties, so a variable named __proto__ cannot touch the prototype.
    return { env: Object.fromEntries(entries) };
  }

  private writeOrigins(name: string, origins: readonly string[]): void {
    if (origins.length === 0) this.store.delete(originAccount(name));
    else this.store.set(originAccount(name), JSON.stringify({ v: 1, origins: [...new Set(origins)].sort() }));
  }

  private writeIndex(names: readonly string[]): void {
    const index: StoredIndex = { v: 1, names: [...new Set(names)].sort() };
    this.store.set(SECRET_INDEX_ACCOUNT, JSON.stringify(index));
  }
}
