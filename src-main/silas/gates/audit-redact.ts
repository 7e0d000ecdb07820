import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';
import { findPii, findSecrets, redact } from './content/detectors.js';

/**
 * What the gate runner writes to the audit log about checked values and mutations: PII and
 * secrets redacted, strings clipped, structures bounded. A gate that redacts a credit card from a
 * response must not leave the card number in the ledger while recording that it did so.
 */

const MAX_STRING = 500;
const MAX_KEYS = 50;
const MAX_DEPTH = 6;

export function redactText(text: string): string {
  const clipped = text.length > 20_000 ? text.slice(0, 20_000) : text;
  const findings = [...findPii(clipped), ...findSecrets(clipped)];
  const clean = findings.length > 0 ? redact(clipped, findings) : clipped;
  return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}…[${text.length} chars]` : clean;
}

export function redactForAudit(value: JsonValue | undefined, depth = 0): JsonValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_KEYS).map((item) => redactForAudit(item, depth + 1));
    if (value.length > MAX_KEYS) items.push(`[${value.length - MAX_KEYS} more]`);
    return items;
  }
  const out: JsonObject = {};
  const keys = Object.keys(value);
  for (const key of keys.slice(0, MAX_KEYS)) out[key] = redactForAudit(value[key], depth + 1);
  if (keys.length > MAX_KEYS) out['…'] = `${keys.length - MAX_KEYS} more keys`;
  return out;
}
