import { COCKPIT_LINK_TAG, cockpitLinkSignedText } from '../../src-shared/schemas/cockpit-link.js';
import { ownerSignTagged } from '../keys/sealed-state.js';
import { ownerSignerForHome, type SecretStore } from './cli-keyring.js';

/**
 * `silas open` answers the runtime's challenge with the home's owner key from the OS keyring
 * (docs/control-plane.md "Getting back into the cockpit"). Loading the key throws a KeyMissing or
 * Keyring error that says how to unlock the keyring; nothing is signed without it.
 */
export function cockpitLinkSigner(home: string, secretStore: SecretStore | undefined): (challenge: string) => string {
  const { signer } = ownerSignerForHome(home, secretStore);
  return (challenge) => ownerSignTagged(COCKPIT_LINK_TAG, cockpitLinkSignedText(home, challenge), signer);
}
