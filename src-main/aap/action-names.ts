/*
 * Matching an action name against the envelope's lists (§4.5, §7.3). Membership is exact — no case
 * folding, prefixes, patterns or parts — because the card's author names actions and an approximate
 * match would widen what is allowed: `bounded_actions` holds a name only when it lists that name
 * whole (§7.3 `trace.action.name not in card.autonomy_envelope.bounded_actions`), so a compound
 * name ("search+recommend") whose parts are all bounded is still unbounded.
 *
 * Stricter than §7.3 on the forbidden side (an extension, docs/conformance.md "Compound action
 * names"): a compound name ("search+delete_data", "read_file; delete_file", "fs/delete_file") is
 * forbidden when any part is forbidden, so joining names never launders a forbidden one.
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

/** §7.3: exact membership of the whole name. */
export function isBounded(name: string, bounded: ReadonlySet<string>): boolean {
  return bounded.has(name);
}
