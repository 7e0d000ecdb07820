import { createHash } from 'node:crypto';
import { canonicalJson } from '../../src-shared/canonical.js';
import { verifyEd25519 } from './ed25519.js';
import type { ChainKey } from './ledger-key.js';
import type { OwnerSigner } from './owner-key.js';
import type { SecretStore } from './secret-store.js';

/*
 * Sealed state: the one way anything in the data home that decides what happens, or tells the
 * person what is safe, is authenticated (DESIGN invariants 9 and 13; the inventory of what is
 * sealed, and by which authority, is docs/architecture.md §2 "Sealed state").
 *
 * A process that can write the home's files and the database but cannot reach the OS keyring
 * must not be able to change what the runtime acts on. So every such value is sealed when it is
 * written and checked when it is read, with a key only the keyring holds:
 *
 * - `owner`: an Ed25519 signature by the owner key, for what the person decided (the models each
 *   role talks to, policies in force, cards). Only the person's own actions sign.
 * - `ledger`: an HMAC with the ledger key, for state the runtime keeps for itself (work rows,
 *   scope keys, indexes). Cheaper than a signature, and the same key already vouches for the chain.
 *
 * A seal binds a kind and an id as well as the value, so a sealed value cannot be moved to another
 * row or passed off as another kind of state. What a seal cannot see is an older sealed value put
 * back in place; where that matters, the item is also anchored: its digest is kept in the keyring
 * itself (one account per item, so processes never race on a shared entry), and only the value
 * whose digest is anchored counts.
 *
 * A check that fails is a refusal: the caller fails closed (keeps the last trusted value, or
 * refuses to act), and the refusal is reported once per distinct value to the audit chain.
 */

/** What is sealed. Each kind is listed, with its authority and where it lives, in docs/architecture.md §2. */
export type SealedKind =
  | 'models'
  | 'secret-origin'
  | 'policy-in-force'
  | 'policy-version'
  | 'alignment-card'
  | 'trace-index'
  | 'stream-work'
  | 'scope-key'
  | 'tool-pin'
  | 'memory'
  | 'chronicle'
  | 'context-subscription'
  | 'ilp-episode'
  | 'ilp-composition'
  | 'ilp-config'
  | 'ilp-slice-version'
  | 'ilp-slice-deployed';

export type SealAuthority = 'owner' | 'ledger';

type SealRefusalReason =
  /** The value carries no seal (written by something that does not seal, or by hand). */
  | 'unsealed'
  /** A seal is there but does not match the value, kind and id. */
  | 'mismatch'
  /** The value is sealed, but it is not the one the keyring's anchor names: an older value put back, or a deletion. */
  | 'not-anchored'
  /** The key that would check the seal is not available (keyring locked or unreachable): nothing counts. */
  | 'no-key';

export interface SealRefusal {
  kind: SealedKind;
  id: string;
  authority: SealAuthority;
  reason: SealRefusalReason;
  /** What the person should know, and what to do. */
  detail: string;
}

export type SealCheck = { ok: true } | { ok: false; refusal: SealRefusal };

/** Where refusals go: the audit chain in every process that writes it (wired in app/). */
interface SealRefusalReporter {
  refused(refusal: SealRefusal): void;
}

interface StateSealKeys {
  /** The ledger key, or null where the keyring could not be reached. */
  ledger: () => Pick<ChainKey, 'mac'> | null;
  /** The owner key from the keyring, or null. */
  owner: () => Pick<OwnerSigner, 'sign' | 'fingerprint' | 'publicKey'> | null;
}

export interface StateSealsOptions {
  keys: StateSealKeys;
  /** The keyring, for anchors; absent, anchoring is refused (tests of seals alone). */
  anchors?: { store: SecretStore; absoluteHome: string };
  reporter?: SealRefusalReporter;
}

const ID_PATTERN = /^[^\n\r\0]{1,512}$/;
const SEAL_TAG = 'silas-seal-v1';

function checkId(id: string): void {
  if (!ID_PATTERN.test(id)) throw new Error(`a sealed item's id must be 1 to 512 characters without line breaks or NUL; got ${JSON.stringify(id.slice(0, 80))}`);
}

/** The bytes a seal covers: the tag, kind and id on their own lines, then the value's RFC 8785 form. */
function sealedText(kind: SealedKind, id: string, value: unknown): string {
  checkId(id);
  return `${SEAL_TAG}\n${kind}\n${id}\n${canonicalJson(value)}`;
}

/** An owner signature over `tag` and a canonical document: the one form every owner-signed state takes. */
export function ownerSignTagged(tag: string, canonical: string, signer: Pick<OwnerSigner, 'sign'>): string {
  return `ed25519:${signer.sign(Buffer.from(`${tag}\n${canonical}`, 'utf8')).toString('base64')}`;
}

/** The fingerprint of the trusted key that made `signature` over `tag` and `canonical`, or null. */
export function ownerSignerOfTagged(tag: string, canonical: string, signature: string | null | undefined, trustedKeys: ReadonlyMap<string, Uint8Array>): string | null {
  if (!signature?.startsWith('ed25519:')) return null;
  const bytes = Buffer.from(signature.slice('ed25519:'.length), 'base64');
  if (bytes.length !== 64) return null;
  const signed = Buffer.from(`${tag}\n${canonical}`, 'utf8');
  for (const [fingerprint, key] of trustedKeys) if (verifyEd25519(key, signed, bytes)) return fingerprint;
  return null;
}

/** The keyring account of one anchored item: derived from the home and the item, never from the value. */
export function anchorAccount(absoluteHome: string, kind: SealedKind, id: string): string {
  const home = createHash('sha256').update(absoluteHome, 'utf8').digest('hex').slice(0, 24);
  const item = createHash('sha256').update(`${kind}\n${id}`, 'utf8').digest('hex').slice(0, 32);
  return `sealed-${home}-${item}`;
}

/** The digest an anchor keeps: sha256 of the sealed text, so it too is bound to kind and id. */
export function sealDigest(kind: SealedKind, id: string, value: unknown): string {
  return createHash('sha256').update(sealedText(kind, id, value), 'utf8').digest('hex');
}

export class StateSeals {
  private readonly reported = new Set<string>();

  constructor(private readonly options: StateSealsOptions) {}

  /** Whether seals of `authority` can be made and checked here (the keyring was reachable). */
  available(authority: SealAuthority): boolean {
    return authority === 'owner' ? this.options.keys.owner() !== null : this.options.keys.ledger() !== null;
  }

  /** The seal of `value` as item `kind`/`id`. Throws when the key is not available: nothing is written unsealed. */
  seal(authority: SealAuthority, kind: SealedKind, id: string, value: unknown): string {
    const text = sealedText(kind, id, value);
    if (authority === 'owner') {
      const owner = this.options.keys.owner();
      if (!owner) throw new Error(`cannot seal ${kind} ${id}: the owner key is not available (the OS keyring is locked or unreachable)`);
      return `ed25519:${owner.sign(Buffer.from(text, 'utf8')).toString('base64')}`;
    }
    const ledger = this.options.keys.ledger();
    if (!ledger) throw new Error(`cannot seal ${kind} ${id}: the ledger key is not available (the OS keyring is locked or unreachable)`);
    return `hmac:${ledger.mac(`${SEAL_TAG}:mac`, text)}`;
  }

  /** Checks a seal without reporting: for listings that show state rather than act on it. */
  verify(authority: SealAuthority, kind: SealedKind, id: string, value: unknown, seal: string | null | undefined): SealCheck {
    const refuse = (reason: SealRefusalReason, detail: string): SealCheck => ({ ok: false, refusal: { kind, id, authority, reason, detail } });
    if (!this.available(authority)) return refuse('no-key', `the ${authority === 'owner' ? 'owner' : 'ledger'} key is not available (the OS keyring is locked or unreachable), so ${kind} ${id} cannot be trusted; unlock the keyring`);
    if (seal === null || seal === undefined || seal === '') return refuse('unsealed', `${kind} ${id} carries no seal: it was not written by Silas (changed outside it?)`);
    const text = sealedText(kind, id, value);
    if (authority === 'owner') {
      const owner = this.options.keys.owner()!;
      const trusted = new Map([[owner.fingerprint, owner.publicKey as Uint8Array]]);
      const ok = ownerSignerOfTagged(SEAL_TAG, text.slice(SEAL_TAG.length + 1), seal, trusted) !== null;
      return ok ? { ok: true } : refuse('mismatch', `${kind} ${id} does not match its owner signature: it was changed outside Silas`);
    }
    const expected = `hmac:${this.options.keys.ledger()!.mac(`${SEAL_TAG}:mac`, text)}`;
    return constantTimeEqual(expected, seal) ? { ok: true } : refuse('mismatch', `${kind} ${id} does not match its seal: it was changed outside Silas`);
  }

  /** Checks a seal; a refusal is reported (once per distinct value) before it is returned. */
  check(authority: SealAuthority, kind: SealedKind, id: string, value: unknown, seal: string | null | undefined): SealCheck {
    const result = this.verify(authority, kind, id, value, seal);
    if (!result.ok) this.report(result.refusal, value);
    return result;
  }

  /**
   * Anchors `value` as the one current value of the item: its digest goes into the keyring, so an
   * older sealed value put back, or the item deleted, is seen. `null` removes the anchor (the item
   * no longer exists, by the person's choice).
   */
  anchor(kind: SealedKind, id: string, value: unknown): void {
    const { store, absoluteHome } = this.anchorStore(kind, id);
    const account = anchorAccount(absoluteHome, kind, id);
    if (value === null) {
      store.delete(account);
      return;
    }
    store.set(account, JSON.stringify({ v: 1, kind, id, digest: sealDigest(kind, id, value) }));
  }

  /** The anchored digest, or null when the item was never anchored (or its anchor was removed). */
  anchoredDigest(kind: SealedKind, id: string): string | null {
    const { store, absoluteHome } = this.anchorStore(kind, id);
    const stored = store.get(anchorAccount(absoluteHome, kind, id));
    if (stored === null) return null;
    try {
      const record = JSON.parse(stored) as { v?: number; kind?: string; id?: string; digest?: string };
      if (record.v === 1 && record.kind === kind && record.id === id && typeof record.digest === 'string' && /^[0-9a-f]{64}$/.test(record.digest)) return record.digest;
    } catch {
      // An unreadable anchor anchors nothing that could match: fall through to a value no digest equals.
    }
    return 'unreadable';
  }

  /**
   * Checks `value` against the keyring's anchor: it counts only when it is the value last anchored.
   * `value === null` (the item is absent) counts only when nothing is anchored. Reports refusals.
   */
  checkAnchored(kind: SealedKind, id: string, value: unknown): SealCheck {
    const result = this.verifyAnchored(kind, id, value);
    if (!result.ok) this.report(result.refusal, value);
    return result;
  }

  /** `checkAnchored` without reporting: for listings that only show state. */
  verifyAnchored(kind: SealedKind, id: string, value: unknown): SealCheck {
    let anchored: string | null;
    try {
      anchored = this.anchoredDigest(kind, id);
    } catch (error) {
      return { ok: false, refusal: { kind, id, authority: 'owner', reason: 'no-key', detail: `the OS keyring could not be read, so ${kind} ${id} cannot be trusted (${(error as Error).message})` } };
    }
    if (value === null && anchored === null) return { ok: true };
    if (value !== null && anchored !== null && anchored === sealDigest(kind, id, value)) return { ok: true };
    const refusal: SealRefusal = {
      kind,
      id,
      authority: 'owner',
      reason: value === null ? 'not-anchored' : anchored === null ? 'unsealed' : 'not-anchored',
      detail:
        value === null
          ? `${kind} ${id} was removed outside Silas (the keyring still names it)`
          : anchored === null
            ? `${kind} ${id} was never saved by Silas (written by hand or by another process)`
            : `${kind} ${id} is not the value Silas last saved (changed outside Silas, or an older copy put back)`,
    };
    return { ok: false, refusal };
  }

  /** Reports a refusal found by other means (a row the chain does not vouch for), with the same once-per-value rule. */
  report(refusal: SealRefusal, value?: unknown): void {
    const key = `${refusal.kind}\n${refusal.id}\n${refusal.reason}\n${value === undefined ? '' : safeDigest(value)}`;
    if (this.reported.has(key)) return;
    this.reported.add(key);
    if (this.reported.size > 10_000) this.reported.clear();
    this.options.reporter?.refused(refusal);
  }

  private anchorStore(kind: SealedKind, id: string): { store: SecretStore; absoluteHome: string } {
    checkId(id);
    if (!this.options.anchors) throw new Error(`cannot anchor ${kind} ${id}: no keyring was given`);
    return this.options.anchors;
  }
}

function safeDigest(value: unknown): string {
  try {
    return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
  } catch {
    return 'uncanonical';
  }
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
