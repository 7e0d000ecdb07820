import type { DlpVerifier } from '../../policy/types.js';
import { passesBase58Check } from './base58check.js';
import { passesBech32 } from './bech32.js';
import { passesBip39 } from './bip39.js';
import { passesEip55 } from './eip55.js';
import { passesNotExample, passesWhenSent } from './documented.js';
import { passesEntropy } from './entropy.js';
import { passesLuhn } from './luhn.js';

/*
 * The checks a DLP pattern may ask of each match (`x-silas-verify`), against false positives: a
 * pattern finds what looks like a card number, a wallet address or a secret, and the check says
 * whether it is one (a checksum) or likely one (entropy). A match that fails is not redacted.
 * Every check is bounded by the size of the largest value of its kind, and returns false for
 * anything it cannot read rather than throwing.
 */

const CHECKS: Record<DlpVerifier, (match: string) => boolean> = {
  luhn: passesLuhn,
  eip55: passesEip55,
  base58check: passesBase58Check,
  bech32: passesBech32,
  bip39: passesBip39,
  entropy: passesEntropy,
  not_example: passesNotExample,
};

/** Whether a DLP match passes its pattern's check (x-silas-verify); unknown text never throws. `sent`: the match is in what is sent, not returned. */
export function verifyMatch(verifier: DlpVerifier, match: string, sent = false): boolean {
  const check = sent && verifier === 'not_example' ? passesWhenSent : (CHECKS[verifier] as ((match: string) => boolean) | undefined);
  if (check === undefined) return true;
  try {
    return check(match);
  } catch {
    // A check that cannot read the text must not take the scan down; the match then counts, so
    // a bug here leaks nothing (DLP fails closed).
    return true;
  }
}
