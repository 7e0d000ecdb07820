import { canonicalJson } from '../../src-shared/canonical.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import { ownerSignTagged, ownerSignerOfTagged } from '../keys/sealed-state.js';

/*
 * Owner-key signatures over Alignment Cards and AP-Traces (AAP §9.2 asks that
 * cards be signed, §4.7 `tamper_evidence: signed` that traces be). The signed bytes are a domain
 * tag, then the document's RFC 8785 canonical JSON: a trace signature can never pass for a card's,
 * nor for any other message the owner key signs (plans, approvals, policies). The recorder signs
 * its cursor and drift state the same way, so the database alone cannot make it skip decisions or
 * silence an alert. The signing itself is the sealed-state module's owner form
 * (docs/architecture.md §2 "Sealed state"), with the tags these documents have always carried.
 */

/** Cards and traces; and the recorder's own state (its place in the chain, each agent's drift monitor). */
export type AapDocumentKind = 'card' | 'trace' | 'cursor' | 'drift';

export function signAapDocument(kind: AapDocumentKind, document: unknown, signer: Pick<OwnerSigner, 'sign'>): string {
  return ownerSignTagged(`silas-aap-${kind}-v1`, canonicalJson(document), signer);
}

/** The fingerprint of the trusted key that made `signature` over `document`, or null. */
export function aapSigner(kind: AapDocumentKind, document: unknown, signature: string | null, trustedKeys: ReadonlyMap<string, Uint8Array>): string | null {
  return ownerSignerOfTagged(`silas-aap-${kind}-v1`, canonicalJson(document), signature, trustedKeys);
}
