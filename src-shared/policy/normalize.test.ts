import { describe, expect, it } from 'vitest';
import { normalizeName } from './normalize.js';

describe('normalizeName (§4.1)', () => {
  it.each([
    ['fullwidth letters', 'ｄｅｌｅｔｅ', 'delete'],
    ['fullwidth with fullwidth low line', 'ｄｅｌｅｔｅ＿ｆｉｌｅ', 'delete_file'],
    ['fi ligature', 'ﬁle', 'file'],
    ['fl ligature', 'ﬂow_control', 'flow_control'],
    ['superscript digit', 'tool²', 'tool2'],
    ['mixed case', 'Delete_File', 'delete_file'],
    ['upper case', 'READ_FILE', 'read_file'],
    ['surrounding spaces', '  read_file  ', 'read_file'],
    ['surrounding tabs and newlines', '\t\nread_file\r\n', 'read_file'],
    ['no-break and ideographic spaces at the edges', '\u00A0read_file\u3000', 'read_file'],
    ['method names keep their slash', 'Tools/Call', 'tools/call'],
  ])('%s: %j → %j', (_label, input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });

  it.each([
    ['zero-width space', 'delete\u200Bfile'],
    ['zero-width non-joiner', 'delete\u200Cfile'],
    ['zero-width joiner', 'delete\u200Dfile'],
    ['word joiner', 'delete\u2060file'],
    ['byte order mark', '\uFEFFdeletefile'],
    ['soft hyphen (Cf)', 'delete\u00ADfile'],
    ['bidi override', 'delete\u202Efile'],
    ['bidi isolate', '\u2066deletefile\u2069'],
    ['tag character', 'deletefile\u{E0041}'],
    ['NUL', 'delete\u0000file'],
    ['escape', 'delete\u001Bfile'],
    ['DEL', 'delete\u007Ffile'],
    ['C1 control (NEL)', 'delete\u0085file'],
    ['internal tab', 'delete\tfile'],
    ['line separator', 'delete\u2028file'],
    ['private use', 'delete\uE000file'],
    ['lone surrogate', 'delete\uD800file'],
  ])('removes %s', (_label, input) => {
    expect(normalizeName(input)).toBe('deletefile');
  });

  it('trims spaces exposed by removing invisible padding (the spec order would keep them)', () => {
    expect(normalizeName('read_file\u200B ')).toBe('read_file');
    expect(normalizeName(' \u200B read_file \u200B ')).toBe('read_file');
    expect(normalizeName('\uFEFF read_file')).toBe('read_file');
  });

  it('keeps inner ASCII spaces and maps other spaces to them through NFKC', () => {
    expect(normalizeName('read file')).toBe('read file');
    expect(normalizeName('read\u00A0file')).toBe('read file');
    expect(normalizeName('read\u2003file')).toBe('read file');
  });

  it('lowercases per code point with the simple mapping, as Go strings.ToLower does', () => {
    expect('ΟΔΟΣ'.toLowerCase()).toBe('οδος'); // JavaScript: final sigma
    expect(normalizeName('ΟΔΟΣ')).toBe('οδοσ'); // Go: no final-sigma context
    expect(normalizeName('οδος')).toBe('οδος'); // ς is already lowercase and stays
    expect(normalizeName('İSTANBUL')).toBe('istanbul'); // U+0130 → "i", not "i̇"
    expect(normalizeName('İ')).toHaveLength(1);
    expect(normalizeName('ẞ')).toBe('ß'); // capital sharp s lowercases, but is not case-folded to "ss"
    expect(normalizeName('Ω')).toBe('ω'); // OHM SIGN: NFKC to Greek capital omega, then lowercase
  });

  it('composes a base letter and a combining mark that an invisible character separated', () => {
    expect(normalizeName('cafe\u200B\u0301')).toBe('café'.normalize('NFC'));
    expect(normalizeName('cafe\u200B\u0301')).toBe(normalizeName('café'));
  });

  it('does not fold look-alikes from other scripts (§10.3, documented limitation)', () => {
    const cyrillic = 'dеlete'; // U+0435 CYRILLIC SMALL LETTER IE
    expect(normalizeName(cyrillic)).not.toBe('delete');
    expect(normalizeName('ԁelete')).not.toBe('delete'); // U+0501
    expect(normalizeName('АDMIN')).toBe('аdmin'); // Cyrillic А lowercases to Cyrillic а
    expect(normalizeName('АDMIN')).not.toBe('admin');
  });

  it('returns "" for names made only of invisible characters', () => {
    expect(normalizeName('\u200B\u200C\uFEFF')).toBe('');
    expect(normalizeName('   ')).toBe('');
  });

  it('is idempotent', () => {
    const samples = ['ｄｅｌｅｔｅ', 'ﬁle', ' A\u200B ', 'cafe\u200B\u0301', 'ΟΔΟΣ', 'İ', '\u1E9B\u0323', 'Ⅻ', '㍿', 'ǅ', 'x\u0307\u200B\u0323'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = ['a', 'Z', ' ', '\u200B', '\u0301', '\u0323', 'ﬁ', 'Σ', 'İ', 'ｄ', '\u00A0', '\t', 'é', 'e', '\u1E9B', 'ǅ', '\uFEFF', '_'];
    for (let i = 0; i < 2000; i++) {
      let s = '';
      const length = 1 + Math.floor(random() * 8);
      for (let j = 0; j < length; j++) s += alphabet[Math.floor(random() * alphabet.length)];
      samples.push(s);
    }
    for (const sample of samples) {
      const once = normalizeName(sample);
      expect(normalizeName(once), JSON.stringify(sample)).toBe(once);
    }
  });
});
