import { parentPort } from 'node:worker_threads';
import type { PolicyCheckReply, PolicyCheckRequest } from './policy-checker.js';
import { validatePolicyDraft } from './validate-draft.js';
import { loadPolicyText, POLICY_SIGNATURE_INVALID } from '../policy/load.js';

/*
 * The worker-thread entry of draft validation (`policy-checker.ts` starts one and keeps it while
 * the editor is in use): parsing and checking a policy of up to the cap takes hundreds of
 * milliseconds, which must not happen on the runtime's event loop (DESIGN invariant 11,
 * docs/policy-editor.md, Limits). Requests are answered one at a time, in order.
 */
if (!parentPort) throw new Error('policy-check-worker runs only as a worker thread started by policy-checker.ts');
const port = parentPort;
port.on('message', (request: PolicyCheckRequest) => {
  let reply: PolicyCheckReply;
  try {
    if (request.judge) {
      const trustedKeys = new Map(request.judge.trustedKeys.map(([fingerprint, key]) => [fingerprint, new Uint8Array(Buffer.from(key, 'base64'))]));
      const loaded = loadPolicyText(request.text, { sourcePath: request.judge.path, trustedKeys });
      reply = {
        id: request.id,
        judged: {
          loads: loaded.ok,
          signedBy: loaded.ok ? loaded.signedBy : null,
          signatureInvalid: !loaded.ok && loaded.errors.some((e) => e.code === POLICY_SIGNATURE_INVALID),
          hash: loaded.ok ? loaded.policy.hash : null,
        },
      };
    } else reply = { id: request.id, result: validatePolicyDraft(request.text) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
