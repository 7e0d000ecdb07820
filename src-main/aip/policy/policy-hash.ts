import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../src-shared/canonical.js';
import type { JsonObject, JsonValue } from '../../../src-shared/schemas/json.js';

/**
 * §5.2.1 CANONICALIZE: the parsed document without `metadata.signature`, as RFC 8785 JSON,
 * UTF-8 encoded. These are the bytes hashed for the policy hash (§5.2.2) and signed for the
 * policy signature (§3.3.1).
 */
export function policyCanonicalBytes(document: JsonObject): Buffer {
  return Buffer.from(canonicalJson(withoutSignature(document)), 'utf8');
}

/** §5.2.2 POLICY_HASH: 64 lowercase hex characters. */
export function policyHash(document: JsonObject): string {
  return createHash('sha256').update(policyCanonicalBytes(document)).digest('hex');
}

/** A copy of the document with `metadata.signature` removed (if present); the input is untouched. */
function withoutSignature(document: JsonObject): JsonObject {
  const metadata = document.metadata;
  if (!isObject(metadata) || !Object.hasOwn(metadata, 'signature')) return document;
  // Object.fromEntries and spread define own properties, so a key such as "__proto__" stays data.
  const rest: JsonObject = Object.fromEntries(Object.entries(metadata).filter(([key]) => key !== 'signature'));
  return { ...document, metadata: rest };
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
