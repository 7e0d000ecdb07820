import canonicalize from 'canonicalize';

/**
 * RFC 8785 (JCS) canonical JSON. Every hash and signature in the product is taken over
 * this form so that a verifier in another language reproduces the same bytes.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new TypeError('canonicalJson: value has no JSON representation');
  }
  return text;
}
