import { parentPort } from 'node:worker_threads';
import type { PolicyCheckReply, PolicyCheckRequest } from './policy-checker.js';
import { validatePolicyDraft } from './validate-draft.js';

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
    reply = { id: request.id, result: validatePolicyDraft(request.text) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
