/*
 * The payment-card check (`x-silas-verify: luhn`): 13 to 19 digits, spaces or dashes between
 * them allowed, whose Luhn (mod 10) check digit is right. One number in ten passes Luhn by
 * chance, so two cheap guards cut the rest: card numbers begin with 2–6 (Mastercard's 2-series,
 * Amex, Visa, Mastercard, Discover/UnionPay/Maestro; the rare airline 1- and fleet 7/8-series are
 * given up), and one digit repeated (`0000 0000 0000 0000`, which passes Luhn) is no card.
 */

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;
/** Digits plus a separator between each pair: anything longer is not one card number. */
const MAX_LENGTH = MAX_DIGITS * 2;

/** The digits of `text` when it is digits with optional single spaces or dashes, else null. */
function cardDigits(text: string): number[] | null {
  if (text.length > MAX_LENGTH) return null;
  const digits: number[] = [];
  for (const c of text) {
    if (c >= '0' && c <= '9') digits.push(c.charCodeAt(0) - 48);
    else if (c !== ' ' && c !== '-') return null;
  }
  return digits;
}

/** Whether the last digit is the Luhn check digit of the others. */
export function luhnValid(digits: readonly number[]): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits[digits.length - 1 - i]!;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Whether `match` reads as a payment card number. */
export function passesLuhn(match: string): boolean {
  const digits = cardDigits(match.trim());
  if (digits === null || digits.length < MIN_DIGITS || digits.length > MAX_DIGITS) return false;
  const first = digits[0]!;
  if (first < 2 || first > 6) return false;
  if (digits.every((d) => d === first)) return false;
  return luhnValid(digits);
}
