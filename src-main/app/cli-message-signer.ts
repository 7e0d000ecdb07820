import { randomBytes } from 'node:crypto';
import { signedMessageText, type SignedMessageProof } from '../../src-shared/schemas/stream.js';
import { isSilasError } from '../../src-shared/errors.js';
import { ownerSignerForHome, type SecretStore } from './cli-keyring.js';

/** Signs one Stream message: scope and text, a fresh nonce and the time (spec 002 §5.12). */
export type MessageSigner = (scope: string, text: string) => SignedMessageProof;

/**
 * `silas chat` signs what the person types with the home's owner key from the OS keyring, so the
 * Stream gives it `owner` taint; the runtime checks the signature against its own keyring key,
 * the nonce against replays and the time against its freshness window. Without the key (a locked
 * keyring) messages go unsigned and are taken as `external`: the reason is returned to be shown.
 */
export function chatMessageSigner(home: string, secretStore: SecretStore | undefined): { sign: MessageSigner } | { sign: null; reason: string } {
  let signer: ReturnType<typeof ownerSignerForHome>['signer'];
  try {
    signer = ownerSignerForHome(home, secretStore).signer;
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
}
