import RE2 from 're2';
import { forEachMatch } from '../../../aip/dlp/patterns.js';
import { normaliseMapped, originalRange } from './normalise.js';

/**
 * Deterministic PII and secret detectors: the built-in stand-in for guardrails-ai's PII and
 * secrets validators (DESIGN §4). Every pattern is RE2 (linear time on attacker-sized input);
 * checksums (Luhn, IBAN mod 97, SSN ranges) and an entropy floor do what RE2 cannot express and
 * keep order numbers, dates and prose from being redacted.
 */

export const PII_ENTITIES = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'US_SSN', 'IBAN_CODE'] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

/** Presidio-style aliases used in spec examples (§13.2 writes `SSN`). */
export const PII_ALIASES: Record<string, PiiEntity> = { SSN: 'US_SSN', EMAIL: 'EMAIL_ADDRESS', PHONE: 'PHONE_NUMBER', IBAN: 'IBAN_CODE' };

export const SECRET_KINDS = ['AWS_ACCESS_KEY_ID', 'GITHUB_TOKEN', 'SLACK_TOKEN', 'PRIVATE_KEY', 'STRIPE_KEY', 'GOOGLE_API_KEY', 'SK_API_KEY', 'GENERIC_API_KEY'] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface Finding {
  kind: string;
  /** Half-open UTF-16 range of the ORIGINAL text. */
  start: number;
  end: number;
}

interface Detector {
  kind: string;
  regex: RE2;
  /** The part of a match to redact, and whether the match is real; null rejects it. */
  accept?: (match: string) => [number, number] | null;
}

const digitsOf = (text: string): string => text.replace(/\D/g, '');

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/ /g, '');
  if (iban.length < 15 || iban.length > 34) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of value) remainder = (remainder * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

function ssnValid(match: string): boolean {
  const [area, group, serial] = [match.slice(0, 3), match.slice(4, 6), match.slice(7, 11)];
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000' && match[3] === match[6];
}

/** Shannon entropy in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const whole = (match: string): [number, number] => [0, match.length];

const PII_DETECTORS: Record<PiiEntity, Detector> = {
  EMAIL_ADDRESS: { kind: 'EMAIL_ADDRESS', regex: new RE2(String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}`, 'gu') },
  CREDIT_CARD: {
    kind: 'CREDIT_CARD',
    regex: new RE2(String.raw`\b[2-6](?:[ -]?\d){12,18}\b`, 'gu'),
    accept: (m) => {
      const d = digitsOf(m);
      return d.length >= 13 && d.length <= 19 && luhnValid(d) ? whole(m) : null;
    },
  },
  US_SSN: { kind: 'US_SSN', regex: new RE2(String.raw`\b\d{3}[- ]\d{2}[- ]\d{4}\b`, 'gu'), accept: (m) => (ssnValid(m) ? whole(m) : null) },
  PHONE_NUMBER: {
    kind: 'PHONE_NUMBER',
    regex: new RE2(String.raw`\+\d[\d ().-]{6,20}\d|(?:\(\d{3}\) ?|\b\d{3}[-. ])\d{3}[-. ]\d{4}\b`, 'gu'),
    accept: (m) => {
      const n = digitsOf(m).length;
      return n >= 10 && n <= 15 ? whole(m) : null;
    },
  },
  IBAN_CODE: {
    kind: 'IBAN_CODE',
    regex: new RE2(String.raw`\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b`, 'gu'),
    accept: (m) => (ibanValid(m) ? whole(m) : null),
  },
};

const SECRET_DETECTORS: Record<SecretKind, Detector> = {
  AWS_ACCESS_KEY_ID: { kind: 'AWS_ACCESS_KEY_ID', regex: new RE2(String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`, 'gu') },
  GITHUB_TOKEN: { kind: 'GITHUB_TOKEN', regex: new RE2(String.raw`\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`, 'gu') },
  SLACK_TOKEN: { kind: 'SLACK_TOKEN', regex: new RE2(String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,250}`, 'gu') },
  PRIVATE_KEY: {
    kind: 'PRIVATE_KEY',
    // The header alone is enough to flag; when the END line is present the whole block is redacted.
    regex: new RE2(String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,-]*?-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?`, 'gu'),
  },
  STRIPE_KEY: { kind: 'STRIPE_KEY', regex: new RE2(String.raw`\b[rs]k_live_[A-Za-z0-9]{16,247}\b`, 'gu') },
  GOOGLE_API_KEY: { kind: 'GOOGLE_API_KEY', regex: new RE2(String.raw`\bAIza[0-9A-Za-z_-]{35}`, 'gu') },
  SK_API_KEY: { kind: 'SK_API_KEY', regex: new RE2(String.raw`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,255}`, 'gu') },
  GENERIC_API_KEY: {
    kind: 'GENERIC_API_KEY',
    regex: new RE2(
      String.raw`(?i)\b(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key|password|passwd|secret|token)["']?\s{0,8}[:=]\s{0,8}["']?([A-Za-z0-9_\-+/=.~]{16,512})`,
      'gu',
    ),
    accept: () => null, // replaced per call: the entropy floor is configurable
  },
};

function scan(text: string, detectors: readonly Detector[]): Finding[] {
  const mapped = normaliseMapped(text);
  const found: Finding[] = [];
  for (const detector of detectors) {
    forEachMatch(detector.regex, mapped.text, (start, end) => {
      if (end <= start) return;
      const range = detector.accept ? detector.accept(mapped.text.slice(start, end)) : whole(mapped.text.slice(start, end));
      if (range === null) return;
      const [from, to] = originalRange(mapped, start + range[0], start + range[1]);
      found.push({ kind: detector.kind, start: from, end: to });
    });
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
}

export function findPii(text: string, entities: readonly PiiEntity[] = PII_ENTITIES): Finding[] {
  // Cards before phones and SSNs: an overlapping span keeps the kind found first.
  const order: PiiEntity[] = ['CREDIT_CARD', 'IBAN_CODE', 'US_SSN', 'EMAIL_ADDRESS', 'PHONE_NUMBER'];
  return scan(
    text,
    order.filter((e) => entities.includes(e)).map((e) => PII_DETECTORS[e]),
  );
}

const DEFAULT_MIN_ENTROPY = 3.5;

export function findSecrets(text: string, kinds: readonly SecretKind[] = SECRET_KINDS, minEntropy = DEFAULT_MIN_ENTROPY): Finding[] {
  const detectors = kinds.map((kind) => {
    if (kind !== 'GENERIC_API_KEY') return SECRET_DETECTORS[kind];
    const generic = SECRET_DETECTORS.GENERIC_API_KEY;
    return {
      ...generic,
      accept: (m: string): [number, number] | null => {
        const value = /([A-Za-z0-9_\-+/=.~]{16,512})$/.exec(m)?.[1];
        if (value === undefined || entropy(value) < minEntropy) return null;
        return [m.length - value.length, m.length];
      },
    };
  });
  return scan(text, detectors);
}

/** Replaces each finding with `[REDACTED:<KIND>]`; overlapping findings merge into one marker (the earliest kind wins). */
export function redact(text: string, findings: readonly Finding[]): string {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: string[] = [];
  let cursor = 0;
  let i = 0;
  while (i < sorted.length) {
    const first = sorted[i]!;
    let end = first.end;
    i++;
    while (i < sorted.length && sorted[i]!.start < end) {
      end = Math.max(end, sorted[i]!.end);
      i++;
    }
    out.push(text.slice(cursor, first.start), `[REDACTED:${first.kind}]`);
    cursor = end;
  }
  out.push(text.slice(cursor));
  return out.join('');
}

/** `{kind: count}` for reasons and audit entries: never the matched text itself. */
export function summarise(findings: readonly Finding[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${kind} (${n})`).join(', ');
}
