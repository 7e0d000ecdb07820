import { type Dirent, type Stats, opendirSync, readdirSync, statSync } from 'node:fs';
import { NON_ASCII } from './chars.js';
import { type Scan, spend } from './scan.js';
import type { Listing } from './types.js';

// Directory listings shared within one call: docs/protected-paths.md "Cost and file-system
// lookups". Once LIST_AFTER names in one directory have been asked about, the directory is
// listed once and the rest are answered from the listing, so a long argument naming thousands
// of files in a few directories costs one lookup per directory, not one per file, and the
// `maxResolutions` refusal is reached only by arguments naming that many existing paths.

/** `lstatKind` results. */
export const KIND_MISSING = 0;
export const KIND_DIRECTORY = 1;
export const KIND_FILE = 2;
export const KIND_SYMLINK_OR_ERROR = 3;
/** A listed entry whose type the listing did not give: ask lstat. */
const KIND_UNKNOWN = 4;
/** Names asked about in one directory before it is listed instead. */
const LIST_AFTER = 8;
/** Entries past which a directory is not listed: lstat per name is cheaper than reading it all. */
const MAX_LISTING = 4096;
/** A directory this size or smaller is read in one readdir (see `listDirectory`). */
const SMALL_DIRECTORY_BYTES = 16 * 1024;


/**
 * The kind of `p` from its directory's listing. Null when the listing cannot answer exactly and
 * `lstat` must: a name with non-ASCII characters, a listing with non-ASCII names or a name
 * differing only in case (the filesystem may fold case or Unicode), an entry of unknown type, a
 * directory that cannot be read or is too large, or one not asked about often enough yet.
 */
export function listedKind(scan: Scan, p: string): number | null {
  const slash = p.lastIndexOf('/');
  if (slash < 0) return null;
  const name = p.slice(slash + 1);
  if (name === '' || name === '.' || name === '..') return null;
  if (knownMissing(scan, p, slash)) return KIND_MISSING;
  if (NON_ASCII.test(name)) return null;
  return listedName(scan, slash === 0 ? '/' : p.slice(0, slash), name);
}

/** `name`'s kind in `dir` from the listing (see `listedKind`); null when it cannot tell. */
export function listedName(scan: Scan, dir: string, name: string): number | null {
  let listing = scan.listings.get(dir);
  if (listing === undefined) {
    const asks = (scan.listingAsks.get(dir) ?? 0) + 1;
    scan.listingAsks.set(dir, asks);
    if (asks < LIST_AFTER) return null;
    listing = listDirectory(scan, dir);
    scan.listings.set(dir, listing);
  }
  return listing === null ? null : kindInListing(listing, name);
}

/**
 * Whether `p.slice(0, end)` or one of its ancestors is already known not to exist (lstat of
 * it failed with ENOENT): then nothing below it exists either. Stops at the nearest ancestor
 * known to exist.
 */
export function knownMissing(scan: Scan, p: string, end: number): boolean {
  for (let k = end; k > 0; k = p.lastIndexOf('/', k - 1)) {
    const prefix = k === p.length ? p : p.slice(0, k);
    // Asked of no lookup yet, but its directory may have been listed already (`docs` absent
    // from the working directory's listing): then `docs/a.md` needs no lstat either.
    const known = scan.kindMemo.get(prefix) ?? (scan.listings.size > 0 ? alreadyListed(scan, prefix) : undefined);
    if (known === KIND_MISSING) return true;
    if (known !== undefined) return false;
  }
  return false;
}

/** `p`'s kind from a listing of its directory read earlier in this call; undefined when there is none or it cannot tell. */
function alreadyListed(scan: Scan, p: string): number | undefined {
  const slash = p.lastIndexOf('/');
  const listing = scan.listings.get(slash === 0 ? '/' : p.slice(0, slash));
  if (!listing) return undefined;
  const name = p.slice(slash + 1);
  if (name === '' || name === '.' || name === '..' || NON_ASCII.test(name)) return undefined;
  return kindInListing(listing, name) ?? undefined;
}

function listDirectory(scan: Scan, dir: string): Listing | null {
  const listing: Listing = { kinds: new Map(), folded: new Set(), exact: true };
  // Known not to exist (an lstat of it or of an ancestor said so): empty, as opendir's ENOENT
  // would say, without the lookup and the exception it throws.
  if (knownMissing(scan, dir, dir.length)) return listing;
  spend(scan);
  // A small directory (by its size, which grows with its entries on every common filesystem)
  // is read whole: readdir costs less than half of opendir here, whose handle is most of the
  // price of listing the few entries of a working directory. A large one is read through a
  // handle, so a directory of a million names costs MAX_LISTING entries, not all.
  let st: Stats | undefined;
  try {
    st = statSync(dir, { throwIfNoEntry: false });
  } catch {
    // A name too long, a path through a file, no permission: each name is asked on its own.
    return null;
  }
  // A missing directory holds nothing (lstat of a name in it fails the same way); anything
  // else (not a directory, no permission to list) is left to lstat.
  if (st === undefined) return listing;
  if (!st.isDirectory()) return null;
  try {
    if (st.size <= SMALL_DIRECTORY_BYTES) {
      const entries = readdirSync(dir, { withFileTypes: true });
      if (entries.length > MAX_LISTING) return null;
      for (const entry of entries) addListed(listing, entry);
      return listing;
    }
    const handle = opendirSync(dir);
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        if (listing.kinds.size >= MAX_LISTING) return null;
        addListed(listing, entry);
      }
    } finally {
      handle.closeSync();
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kinds: new Map(), folded: new Set(), exact: true } : null;
  }
  return listing;
}

/** An ASCII `name`'s kind from its directory's listing; null when the listing cannot tell (see `listedKind`). */
function kindInListing(listing: Listing, name: string): number | null {
  const kind = listing.kinds.get(name);
  if (kind !== undefined) return kind === KIND_UNKNOWN ? null : kind;
  return listing.exact && !listing.folded.has(name.toLowerCase()) ? KIND_MISSING : null;
}

function addListed(listing: Listing, entry: Dirent): void {
  const kind = entry.isSymbolicLink() ? KIND_SYMLINK_OR_ERROR : entry.isDirectory() ? KIND_DIRECTORY : entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice() ? KIND_FILE : KIND_UNKNOWN;
  if (NON_ASCII.test(entry.name)) listing.exact = false;
  listing.kinds.set(entry.name, kind);
  listing.folded.add(entry.name.toLowerCase());
}
