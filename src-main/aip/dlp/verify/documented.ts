import { passesEntropy } from './entropy.js';

/*
 * The documentation check (`x-silas-verify: not_example`): vendors publish sample credentials
 * that mark themselves as such (AWS's `AKIAIOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/…EXAMPLEKEY`),
 * and documentation pages a server returns are full of them. A match that carries such a marker
 * is a sample, not a secret — in what comes back only: the DLP engine skips this check for
 * requests (engine.ts), so the same sample leaving in what an agent sends is still refused, since
 * that is judged by where it goes, not by what it looks like.
 */

const MARKERS = ['EXAMPLE', 'SAMPLE', 'XXXXXXXX', 'DUMMY', 'PLACEHOLDER'];

/** Below this many characters a value is judged by its markers alone: short key ids are too short for an entropy test real ones all pass. */
const ENTROPY_FROM = 30;

/** True unless the match reads as a documented sample value; a long one must also be random enough (entropy.ts). */
export function passesNotExample(match: string): boolean {
  const upper = match.toUpperCase();
  if (MARKERS.some((marker) => upper.includes(marker))) return false;
  return passesWhenSent(match);
}

/** The same check for what is sent: a sample counts like any secret, a long value must still be random enough. */
export function passesWhenSent(match: string): boolean {
  return match.length < ENTROPY_FROM || passesEntropy(match);
}
