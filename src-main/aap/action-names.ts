/*
 * Matching an action name against the envelope's lists (§4.5, §7.3). Membership is exact — no case
 * folding, prefixes or patterns — because the card's author names actions and an approximate match
 * would widen what is allowed. A compound name ("search+delete_data", "read_file; delete_file",
 * "fs/delete_file") is forbidden when any part is forbidden, and bounded when it is listed whole or
 * every part is bounded: joining names must never launder a forbidden one.
 */

/** Anything but letters, digits, `_` and `-` joins names; `-` stays inside names like `vendor-coordination`. */
const SEPARATOR = /[^A-Za-z0-9_-]+/;
const HAS_SEPARATOR = /[^A-Za-z0-9_-]/;

/** The parts of a compound name; a plain name is its own only part. */
export function actionParts(name: string): string[] {
  return name.split(SEPARATOR).filter((part) => part !== '');
}

/** The forbidden name the action matches (itself or one of its parts), or null. */
export function forbiddenMatch(name: string, forbidden: ReadonlySet<string>): string | null {
  if (forbidden.has(name)) return name;
  if (!HAS_SEPARATOR.test(name)) return null;
  for (const part of actionParts(name)) if (forbidden.has(part)) return part;
  return null;
}

export function isBounded(name: string, bounded: ReadonlySet<string>): boolean {
  if (bounded.has(name)) return true;
  if (!HAS_SEPARATOR.test(name)) return false;
  const parts = actionParts(name);
  return parts.length > 1 && parts.every((part) => bounded.has(part));
}
