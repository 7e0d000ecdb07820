import type { IlpRequest, IlpResponse } from '../protocol/message.js';
import { ILP_LIMITS } from '../protocol/limits.js';
import { responseFromHttp, toHttp } from '../transport/http-mapping.js';
import { AgentUnavailableError, type AgentAnswer, type IlpAgent } from './agent.js';

/*
 * A specialist on another machine or port (spec 004 Appendix B Level 3, "distributed agent
 * federation"), reached with the HTTP mapping (docs/ilp.md "Transports"). Its answer is read by the
 * same codec and judged by the same enforcer as a local one; what it says it cost is all that can
 * be known of its cost. An agent that cannot be reached, or answers with something that is not an
 * ILP response, is unavailable for that hop (503), and the composition goes on without it.
 */

export interface RemoteAgentOptions {
  id: string;
  domain: string;
  description: string;
  /** `https://host/ilp/agent-id`, or `http://127.0.0.1:PORT/…` (plain HTTP only to loopback). */
  url: string;
  /** A bearer credential the remote side expects, read from the keyring when the hop is made. */
  bearer?: () => string | null;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_RESPONSE_BYTES = ILP_LIMITS.headerSection + ILP_LIMITS.body;

/** Whether `url` may carry a hop: HTTPS, or HTTP to this machine only (credentials never travel in the clear). */
export function remoteUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url.slice(0, 80)}" is not a URL`;
  }
  if (parsed.username !== '' || parsed.password !== '') return 'the URL may not hold a user or password; store the credential with `silas secrets set NAME --origin ORIGIN` and name it in credential_secret';
  if (parsed.search !== '' || parsed.hash !== '') return "the URL may not hold a query or fragment; give the agent's base address";
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(parsed.hostname)) return null;
  return 'a remote agent is reached over https:// (plain http:// only on this machine: 127.0.0.1, [::1], localhost)';
}

export function remoteAgent(options: RemoteAgentOptions): IlpAgent {
  const problem = remoteUrlProblem(options.url);
  if (problem !== null) throw new Error(`remote agent ${options.id}: ${problem}`);
  const base = options.url.replace(/\/+$/, '');
  return {
    id: options.id,
    domain: options.domain,
    kind: 'remote',
    description: options.description,
    endpoint: base,
    async answer(request: IlpRequest, signal: AbortSignal): Promise<AgentAnswer> {
      const { headers, body } = toHttp(request);
      const bearer = options.bearer?.();
      if (bearer) headers['Authorization'] = `Bearer ${bearer}`;
      const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      let res: Response;
      try {
        res = await fetch(`${base}${request.path}`, { method: 'POST', headers, body, signal: AbortSignal.any([signal, timeout]), redirect: 'error' });
      } catch (error) {
        throw new AgentUnavailableError(`the remote agent ${options.id} at ${base} could not be reached: ${(error as Error).message}`);
      }
      const bytes = await readCapped(res);
      if (bytes === null) throw new AgentUnavailableError(`the remote agent ${options.id} answered with more than ${MAX_RESPONSE_BYTES} bytes`);
      const parsed = responseFromHttp(res.status, Object.fromEntries(res.headers), bytes);
      if (!parsed.ok) throw new AgentUnavailableError(`the remote agent ${options.id} did not answer with an ILP response (${parsed.error.field}: ${parsed.error.message})`);
      if (parsed.message.kind !== 'response') throw new AgentUnavailableError(`the remote agent ${options.id} answered with a request`);
      return { response: parsed.message as IlpResponse, measuredCostUsd: null, slices: [] };
    },
  };
}

async function readCapped(res: Response): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (res.body === null) return Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      await res.body.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
