import { ILP_METHODS, type IlpMethod } from '../protocol/message.js';
import { AGENT_ID } from './agent.js';

/*
 * `ilp://agent-id/method?params` (spec 004 §11.2): the agent is the authority, the path is the
 * request path it is sent to, and the query parameters fill the Constitutional-Header fields they
 * name (`ilp://financial-agent/insight?domain=finance&depth=2`). A path that names one of the five
 * methods (`ilp://meta-agent/trace/export`) also chooses the method; otherwise the caller's
 * method (THINK by default) is used.
 */

interface IlpUri {
  agent: string;
  path: string;
  method: IlpMethod | null;
  /** Header fields from the query, read as numbers or booleans where they look like them. */
  params: Record<string, string | number | boolean>;
}

export type IlpUriResult = { ok: true; uri: IlpUri } | { ok: false; message: string };

export function parseIlpUri(text: string): IlpUriResult {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `"${text.slice(0, 80)}" is not a URI; write ilp://agent-id/path, e.g. ilp://meta-agent/insight` };
  }
  if (url.protocol !== 'ilp:') return { ok: false, message: `the scheme is ${url.protocol.replace(/:$/, '')}, not ilp; write ilp://agent-id/path` };
  if (url.username !== '' || url.password !== '' || url.port !== '') return { ok: false, message: 'an ilp:// URI names an agent, without user, password or port' };
  const agent = url.hostname;
  if (!AGENT_ID.test(agent)) return { ok: false, message: `"${agent}" is not an agent id (lower-case letters, digits and hyphens); \`silas ilp agents\` lists them` };
  const path = url.pathname === '' ? '/' : decodeURIComponent(url.pathname);
  if (path.includes('..') || /[\s\0]/.test(path)) return { ok: false, message: `the path "${path.slice(0, 80)}" may not hold "..", spaces or control characters` };
  const first = path.split('/')[1]?.toUpperCase() ?? '';
  const method = (ILP_METHODS as readonly string[]).includes(first) ? (first as IlpMethod) : null;
  const params: IlpUri['params'] = {};
  for (const [key, value] of url.searchParams) params[key] = typed(value);
  return { ok: true, uri: { agent, path: method === null ? path : path.slice(first.length + 1) || '/', method, params } };
}

function typed(value: string): string | number | boolean {
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^-?[0-9]+(\.[0-9]+)?$/.test(value)) return Number(value);
  return value;
}
