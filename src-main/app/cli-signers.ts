import { randomBytes } from 'node:crypto';
import { COCKPIT_LINK_TAG, cockpitLinkSignedText } from '../../src-shared/schemas/cockpit-link.js';
import { signedMessageText, type SignedMessageProof } from '../../src-shared/schemas/stream.js';
import { isSilasError } from '../../src-shared/errors.js';
import type { OwnerSigner } from '../keys/owner-key.js';
import { ownerSignTagged } from '../keys/sealed-state.js';

// What `silas open` and `silas chat` sign for the running runtime with the home's owner key. Part
// of the CLI context (app/cli-context.ts), imported only by the commands that sign.

/** Signs one Stream message: scope and text, a fresh nonce and the time (spec 002 §5.12). */
export type MessageSigner = (scope: string, text: string) => SignedMessageProof;

export interface CliSigners {
  /**
   * `silas open` answers the runtime's challenge with the home's owner key from the OS keyring
   * (docs/control-plane.md "Getting back into the cockpit"). Loading the key throws a KeyMissing or
   * Keyring error that says how to unlock the keyring; nothing is signed without it.
   */
  cockpitLink(): (challenge: string) => string;
  /**
   * `silas chat` signs what the person types with the home's owner key from the OS keyring, so the
   * Stream gives it `owner` taint; the runtime checks the signature against its own keyring key,
   * the nonce against replays and the time against its freshness window. Without the key (a locked
   * keyring) messages go unsigned and are taken as `external`: the reason is returned to be shown.
   */
  chatMessages(): { sign: MessageSigner } | { sign: null; reason: string };
}

export function cliSigners(home: string, ownerSigner: () => { signer: OwnerSigner }): CliSigners {
  return {
    cockpitLink() {
      const { signer } = ownerSigner();
      return (challenge) => ownerSignTagged(COCKPIT_LINK_TAG, cockpitLinkSignedText(home, challenge), signer);
    },
    chatMessages() {
      let signer: OwnerSigner;
      try {
        signer = ownerSigner().signer;
      } catch (error) {
        return { sign: null, reason: isSilasError(error) ? error.message : 'the OS keyring could not be read' };
      }
      return {
        sign: (scope, text) => {
          const nonce = randomBytes(18).toString('base64url');
          const timestamp = new Date().toISOString();
          const signature = signer.sign(Buffer.from(signedMessageText({ scope, text, nonce, timestamp }), 'utf8')).toString('base64');
          return { nonce, timestamp, signature };
        },
      };
    },
  };
}
