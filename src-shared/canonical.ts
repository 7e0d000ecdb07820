import canonicalizeImport from 'canonicalize';

// The package is CommonJS with an ES-style `export default` declaration: Node hands us the
// function itself, while TypeScript (NodeNext) types the import as the module object.
const serialize = canonicalizeImport as unknown as (input: unknown) => string | undefined;

/**
 * RFC 8785 (JCS) canonical JSON. Every hash and signature in the product is taken over
 * this form so that a verifier in another language reproduces the same bytes.
 */
export function canonicalJson(value: unknown): string {
  const text = serialize(value);
  if (text === undefined) {
    throw new TypeError('canonicalJson: value has no JSON representation');
  }
  return text;
}
