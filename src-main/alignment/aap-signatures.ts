import { canonicalJson } from '../../src-shared/canonical.js';
import { verifyEd25519 } from '../keys/ed25519.js';
import type { OwnerSigner } from '../keys/owner-key.js';

/*
 * Owner-key signatures over Alignment Cards and AP-Traces (issue 15 item 6; AAP §9.2 asks that
 * cards be signed, §4.7 `tamper_evidence: signed` that traces be). The signed bytes are a domain
 * tag, then the document's RFC 8785 canonical JSON: a trace signature can never pass for a card's,
 * nor for any other message the owner key signs (plans, approvals, policies). The recorder signs
 * its cursor and drift state the same way, so the database alone cannot make it skip decisions or
 * silence an alert.
 */

/** Cards and traces; and the recorder's own state (its place in the chain, each agent's drift monitor). */
export type AapDocumentKind = 'card' | 'trace' | 'cursor' | 'drift';

function message(kind: AapDocumentKind, document: unknown): Buffer {
  return Buffer.from(`silas-aap-${kind}-v1\n${canonicalJson(document)}`, 'utf8');
}

export function signAapDocument(kind: AapDocumentKind, document: unknown, signer: Pick<OwnerSigner, 'sign'>): string {
  return `ed25519:${signer.sign(message(kind, document)).toString('base64')}`;
}

/** The fingerprint of the trusted key that made `signature` over `document`, or null. */
export function aapSigner(kind: AapDocumentKind, document: unknown, signature: string | null, trustedKeys: ReadonlyMap<string, Uint8Array>): string | null {
  if (!signature?.startsWith('ed25519:')) return null;
  const bytes = Buffer.from(signature.slice('ed25519:'.length), 'base64');
  if (bytes.length !== 64) return null;
  const signed = message(kind, document);
  for (const [fingerprint, key] of trustedKeys) if (verifyEd25519(key, signed, bytes)) return fingerprint;
  return null;
}
