import { z } from 'zod';
import { canonicalJson } from '../canonical.js';

/**
 * Getting back into the cockpit (`silas open`, docs/control-plane.md "Getting back into the
 * cockpit"): the runtime hands out a one-time challenge; a process holding the home's owner key
 * (the OS keyring) signs it, and gets the cockpit link. The signature is the authority, so the
 * calls need only `ask`.
 */

/** Domain separation: an owner signature over this text is good for nothing else. */
export const COCKPIT_LINK_TAG = 'silas-cockpit-link-v1';

const ChallengeText = z.string().regex(/^[A-Za-z0-9_-]{32,64}$/, 'a challenge is the base64url text `cockpit.linkChallenge` returned');
const HomePath = z.string().min(1).max(4096);

export const CockpitLinkChallenge = z
  .object({
    challenge: ChallengeText,
    /** The data home this runtime serves: the signature must name it. */
    home: HomePath,
    /** After this the challenge is refused; ask for a new one. */
    expiresAt: z.string(),
  })
  .strict();
export type CockpitLinkChallenge = z.infer<typeof CockpitLinkChallenge>;

export const CockpitLinkArgs = z
  .object({
    challenge: ChallengeText,
    /** The home the signer meant; a signature for another home is refused by name. */
    home: HomePath,
    /** `ed25519:` and the base64 signature over `cockpitLinkSignedText(home, challenge)` with COCKPIT_LINK_TAG. */
    signature: z.string().regex(/^ed25519:[A-Za-z0-9+/=]{80,96}$/, 'the signature is `ed25519:` followed by a base64 Ed25519 signature'),
  })
  .strict();
export type CockpitLinkArgs = z.infer<typeof CockpitLinkArgs>;

/**
 * A headless runtime answers with the cockpit address, its credential in the fragment; a desktop
 * runtime brings its window (the cockpit, over IPC, needing no credential) to the front.
 */
export const CockpitLinkResult = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('link'), url: z.string().min(1) }).strict(),
  z.object({ kind: z.literal('window') }).strict(),
]);
export type CockpitLinkResult = z.infer<typeof CockpitLinkResult>;

/** `cockpit.revokeSessions`: how many credentials stopped authenticating and how many open sessions were signed out. */
export const CockpitRevokeResult = z
  .object({
    credentials: z.number().int().nonnegative(),
    sessions: z.number().int().nonnegative(),
  })
  .strict();
export type CockpitRevokeResult = z.infer<typeof CockpitRevokeResult>;

/** What the owner key signs (under COCKPIT_LINK_TAG): the home and the challenge, as RFC 8785 JSON. */
export function cockpitLinkSignedText(home: string, challenge: string): string {
  return canonicalJson({ challenge, home });
}
