import { describe, expect, it } from 'vitest';
import { DLP_VERIFIERS } from '../../../../src-shared/policy/schema.js';
import type { DlpVerifier } from '../../policy/types.js';
import { verifyMatch } from './index.js';

// Hostile text of every kind: each check answers, none throws, none takes long.
const HOSTILE = ['', ' ', '\u0000'.repeat(1000), '\uD800', '💣'.repeat(10_000), '='.repeat(100_000), ':'.repeat(100_000), '1'.repeat(1_000_000), 'a '.repeat(500_000), `0x${'Z'.repeat(40)}`, 'bc1\u00e9'];

describe('verifyMatch', () => {
  it('answers for every check and every hostile text', () => {
    for (const verifier of DLP_VERIFIERS) {
      for (const text of HOSTILE) expect(typeof verifyMatch(verifier, text)).toBe('boolean');
    }
  });

  it('lets a match count when the check is one it does not know (fails closed)', () => {
    expect(verifyMatch('crc32' as DlpVerifier, 'anything')).toBe(true);
  });
});
