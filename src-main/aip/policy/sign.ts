import { isMap, isScalar, type Document } from 'yaml';
import type { JsonObject } from '../../../src-shared/schemas/json.js';
import { trustedKeys, type OwnerSigner } from '../../keys/owner-key.js';
import { loadPolicyText, parsePolicyYaml, type PolicyError } from './load.js';
import { policyCanonicalBytes } from './policy-hash.js';

/**
 * §3.3.1 signing input: the §5.2.1 canonical form (document without `metadata.signature`,
 * RFC 8785, UTF-8) — the same bytes the policy hash is taken over.
 */
export function policySigningBytes(document: JsonObject): Buffer {
  return policyCanonicalBytes(document);
}

/** The policy could not be signed; `errors` say why, located in the YAML. */
export class PolicySignError extends Error {
  constructor(readonly errors: PolicyError[]) {
    super(`the policy cannot be signed: ${errors.map((e) => `${e.line}:${e.column} ${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`);
    this.name = 'PolicySignError';
  }
}

/**
 * Signs a policy with the owner key and returns its YAML with `metadata.signature` set to
 * `ed25519:<base64>`. Only the signature's line changes: an existing signature value is
 * replaced in place, or a new `signature:` line is inserted as the first key of `metadata`;
 * comments, ordering, quoting and line endings stay as they were. The policy must be valid
 * (apart from its old signature, which is replaced); the result is re-loaded and verified
 * with the signer's public key before it is returned.
 */
export function signPolicyText(text: string, signer: OwnerSigner): string {
  const parsed = parsePolicyYaml(text);
  if (!parsed.ok) throw new PolicySignError(parsed.errors);
  // Everything must be valid except possibly the old signature, which is about to be replaced.
  const unsigned = loadPolicyText(text, { trustedKeys: trustedKeys(signer) });
  if (!unsigned.ok) {
    const other = unsigned.errors.filter((error) => error.code !== -32010);
    if (other.length > 0) throw new PolicySignError(other);
  }
  if (parsed.json.apiVersion !== 'aip.io/v1alpha2') {
    const { line, col } = parsed.lineCounter.linePos(apiVersionOffset(parsed.doc));
    throw new PolicySignError([{ path: 'apiVersion', line, column: col, message: 'policy signatures are an aip.io/v1alpha2 feature (§3.3.1); change apiVersion to aip.io/v1alpha2 before signing' }]);
  }

  const signature = `ed25519:${signer.sign(policySigningBytes(parsed.json)).toString('base64')}`;
  const signed = withSignature(text, parsed.doc, signature);

  const check = loadPolicyText(signed, { trustedKeys: trustedKeys(signer) });
  if (!check.ok || check.signedBy !== signer.fingerprint) {
    throw new Error(`signing produced a policy that does not verify: ${check.ok ? 'wrong signer' : check.errors.map((e) => e.message).join('; ')}`);
  }
  return signed;
}

function apiVersionOffset(doc: Document.Parsed): number {
  const root = doc.contents;
  if (isMap(root)) {
    const pair = root.items.find((item) => isScalar(item.key) && item.key.value === 'apiVersion');
    const node = pair?.value ?? pair?.key;
    if (node && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) return node.range[0] as number;
  }
  return 0;
}

function withSignature(text: string, doc: Document.Parsed, signature: string): string {
  const quoted = JSON.stringify(signature);
  const metadata = doc.get('metadata', true);
  if (!isMap(metadata)) throw new Error('metadata is not a mapping');
  const existing = metadata.get('signature', true);
  if (isScalar(existing) && existing.range) {
    const [start, end] = existing.range;
    return `${text.slice(0, start)}${quoted}${text.slice(end)}`;
  }
  const first = metadata.items[0]?.key;
  if (!metadata.flow && isScalar(first) && first.range) {
    // Insert `signature: "…"` as a new line before the first key, at the same indentation.
    const keyStart = first.range[0];
    const lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
    const indent = text.slice(lineStart, keyStart);
    if (/^[ ]*$/.test(indent)) {
      const newline = text.includes('\r\n') ? '\r\n' : '\n';
      return `${text.slice(0, lineStart)}${indent}signature: ${quoted}${newline}${text.slice(lineStart)}`;
    }
  }
  // Flow-style metadata ({name: x}) or an unusual layout: let the yaml Document API rewrite it.
  const copy = doc.clone();
  copy.setIn(['metadata', 'signature'], signature);
  return copy.toString();
}
