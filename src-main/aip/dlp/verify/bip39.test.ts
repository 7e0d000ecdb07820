import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { passesBip39 } from './bip39.js';
import { mnemonic } from './testing/encode.js';

describe('bip39', () => {
  it('accepts phrases of 12, 15, 18, 21 and 24 words with a right checksum', () => {
    for (const bytes of [16, 20, 24, 28, 32]) {
      for (let i = 0; i < 5; i++) expect(passesBip39(mnemonic(randomBytes(bytes)))).toBe(true);
    }
  });

  it('accepts a phrase across lines, with extra spaces, in capitals, or with list words around it', () => {
    const phrase = mnemonic(randomBytes(16));
    expect(passesBip39(phrase.split(' ').join('\n'))).toBe(true);
    expect(passesBip39(phrase.replaceAll(' ', '   '))).toBe(true);
    expect(passesBip39(phrase.toUpperCase())).toBe(true);
    // "seed" and "that" are list words: the run is 13 or 14 words, and the phrase starts or ends it.
    expect(passesBip39(`seed ${phrase}`)).toBe(true);
    expect(passesBip39(`${phrase} that`)).toBe(true);
    expect(passesBip39(`the ${phrase} of`)).toBe(true);
  });

  it('refuses a changed word, a missing word, a word outside the list', () => {
    const phrase = mnemonic(randomBytes(16)).split(' ');
    let refused = 0;
    // One word changed to its neighbour in the list breaks the checksum 15 times in 16: try several.
    for (let at = 0; at < 12; at++) {
      const changed = [...phrase];
      changed[at] = wordlist[(wordlist.indexOf(changed[at]!) + 1) % 2048]!;
      if (!passesBip39(changed.join(' '))) refused++;
    }
    expect(refused).toBeGreaterThan(6);
    expect(passesBip39(phrase.slice(1).join(' '))).toBe(false);
    expect(passesBip39([...phrase.slice(0, 11), 'bitcoins'].join(' '))).toBe(false);
  });

  it('refuses ordinary English sentences of twelve words', () => {
    const sentences = [
      'please send the quarterly report to the finance team before friday noon',
      'we walked along the river and watched the boats drift slowly past',
      'remember to water the garden plants every morning while we are away',
      'the meeting has been moved to next week because several people travel',
    ];
    for (const sentence of sentences) expect(passesBip39(sentence), sentence).toBe(false);
  });

  it('refuses the wrong word counts and huge input', () => {
    expect(passesBip39(mnemonic(randomBytes(16)).split(' ').slice(0, 11).join(' '))).toBe(false);
    expect(passesBip39('')).toBe(false);
    expect(passesBip39('abandon '.repeat(100_000))).toBe(false);
  });
});
