import { describe, expect, it } from 'vitest';
import { passesLuhn } from './luhn.js';
import { cardNumber } from './testing/encode.js';

describe('luhn', () => {
  it('accepts card numbers of every length 13–19 with a right check digit, plain or grouped', () => {
    for (let length = 13; length <= 19; length++) expect(passesLuhn(cardNumber('4', length)), `length ${length}`).toBe(true);
    const card = cardNumber('5', 16);
    expect(passesLuhn(card.replace(/(\d{4})(?=\d)/g, '$1 '))).toBe(true);
    expect(passesLuhn(card.replace(/(\d{4})(?=\d)/g, '$1-'))).toBe(true);
    expect(passesLuhn(cardNumber('37', 15))).toBe(true);
    expect(passesLuhn(cardNumber('62', 19))).toBe(true);
  });

  it('refuses a wrong check digit, the wrong length, a non-card first digit, one repeated digit', () => {
    const card = cardNumber('4', 16);
    const wrong = card.slice(0, -1) + String((Number(card.at(-1)) + 1) % 10);
    expect(passesLuhn(wrong)).toBe(false);
    expect(passesLuhn(cardNumber('4', 12))).toBe(false);
    expect(passesLuhn(cardNumber('4', 20))).toBe(false);
    expect(passesLuhn(cardNumber('1', 16))).toBe(false);
    expect(passesLuhn(cardNumber('9', 16))).toBe(false);
    expect(passesLuhn('0000 0000 0000 0000')).toBe(false);
  });

  it('refuses order numbers and other digit strings that fail the checksum', () => {
    // Made-up order and invoice numbers, each checked to fail Luhn.
    for (const order of ['4000 1234 5678 9011', '5123-4567-8901-2345', '3141592653589793', '2024061512345678']) expect(passesLuhn(order), order).toBe(false);
  });

  it('refuses text that is not digits and separators, and huge input', () => {
    expect(passesLuhn('4111 1111 1111 111a')).toBe(false);
    expect(passesLuhn('4111_1111_1111_1111')).toBe(false);
    expect(passesLuhn('4'.repeat(1_000_000))).toBe(false);
    expect(passesLuhn('')).toBe(false);
  });
});
