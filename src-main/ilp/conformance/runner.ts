import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { AgentResponse, enforceConstitution } from '../constitution/enforce.js';
import { checkConstitutionalHeader } from '../constitution/header.js';
import { readHeaders } from '../protocol/headers.js';
import { isIlpStatus, type IlpMessage } from '../protocol/message.js';
import { parseIlpMessage } from '../protocol/parse.js';
import { serializeIlpMessage } from '../protocol/serialize.js';
import { CONSTITUTION_DEVIATIONS, MESSAGE_DEVIATIONS } from './deviations.js';
import { navigatorCases } from './navigator-cases.js';
import { attentionCases } from './attention-cases.js';
import { memoryCases } from './memory-cases.js';

/*
 * `silas ilp conformance DIR` (docs/ilp.md): the RFC's example messages and payloads and the
 * reference implementation's observed constitution cases, from ../shared/conformance/ilp or any
 * folder below it. A case where we follow the RFC against the reference (or against one of the
 * RFC's own examples) passes only as its listed deviation (deviations.ts). The navigator,
 * attention and episodic-memory cases run in their own modules (navigator-cases.ts,
 * attention-cases.ts, memory-cases.ts).
 */

type Status = 'passed' | 'failed' | 'skipped';
interface IlpConformanceResult {
  id: string;
  file: string;
  status: Status;
  reason?: string;
}
export interface IlpConformanceReport {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  results: IlpConformanceResult[];
}

/** Reference fixtures whose part is not built yet, skipped with the reason: none today. */
const NOT_YET: Record<string, string> = {};

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

/** What a message says, without the Content-Length the writer computes. */
function meaning(message: IlpMessage): string {
  return JSON.stringify({ ...message, headers: message.headers.filter((h) => h.name.toLowerCase() !== 'content-length') });
}

function messageCase(path: string, file: string): IlpConformanceResult {
  const result = (status: Status, reason?: string): IlpConformanceResult => ({ id: 'round-trip', file, status, ...(reason ? { reason } : {}) });
  let text = readFileSync(path, 'utf8');
  if (/^[A-Za-z0-9-]+:/.test(text)) {
    const read = readHeaders(text.replace(/\r?\n$/, '').split(/\r?\n/));
    return read.ok ? { ...result('passed', `a header section of ${read.headers.length} field(s)`), id: 'headers' } : { ...result('failed', read.error.message), id: 'headers' };
  }
  const deviation = MESSAGE_DEVIATIONS.get(basename(path));
  let note: string | undefined;
  if (deviation) {
    const refused = parseIlpMessage(text);
    if (refused.ok || refused.error.field !== deviation.field) return result('failed', `expected a 400 naming ${deviation.field} (${deviation.why})`);
    const body = text.slice(text.search(/\r?\n\r?\n/)).replace(/^\r?\n\r?\n/, '').replace(/\r?\n$/, '');
    text = text.replace(/Content-Length: *\d+/i, `Content-Length: ${Buffer.byteLength(body, 'utf8')}`);
    note = `documented deviation: refused naming ${deviation.field}, it ${deviation.why}`;
  }
  const parsed = parseIlpMessage(text);
  if (!parsed.ok) return result('failed', `${parsed.error.field}: ${parsed.error.message}`);
  const again = parseIlpMessage(serializeIlpMessage(parsed.message));
  if (!again.ok || meaning(again.message) !== meaning(parsed.message)) return result('failed', 'written again, it reads differently');
  return result('passed', note);
}

function payloadCase(path: string, file: string): IlpConformanceResult {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { id: 'payload', file, status: 'failed', reason: (error as Error).message };
  }
  const error = (value as { error?: Record<string, unknown> } | null)?.error;
  if (error === undefined) return { id: 'payload', file, status: 'passed' };
  // §7.3: an error payload carries its status code, a message and a severity.
  const fine = typeof error.code === 'number' && isIlpStatus(error.code) && typeof error.message === 'string' && ['warning', 'error', 'fatal'].includes(String(error.severity));
  return { id: 'error-payload', file, status: fine ? 'passed' : 'failed', ...(fine ? {} : { reason: 'not a §7.3 error payload' }) };
}

interface ConstitutionCase {
  name: string;
  response: unknown;
  context: { depth: number; invocation_count: number; cost_so_far: number; previous_agents: string[] };
  result: { violations: { principle_id: string }[]; warnings: { principle_id: string }[] };
}

function constitutionCases(path: string, file: string): IlpConformanceResult[] {
  const header = checkConstitutionalHeader({ domain: 'finance', depth: 0, budget_usd: 0 });
  if (!header.ok) throw new Error(header.message);
  const { cases } = JSON.parse(readFileSync(path, 'utf8')) as { cases: ConstitutionCase[] };
  return cases.map((c) => {
    const response = AgentResponse.safeParse(c.response);
    if (!response.success) return { id: c.name, file, status: 'failed' as const, reason: `response: ${response.error.issues[0]!.message}` };
    const context = { depth: c.context.depth, invocations: c.context.invocation_count, cost_usd: c.context.cost_so_far, previous_agents: c.context.previous_agents };
    const decision = enforceConstitution(header.header, response.data, context);
    const ours = [...decision.violations, ...decision.warnings].map((f) => f.principle);
    const deviation = CONSTITUTION_DEVIATIONS.get(c.name);
    if (deviation) {
      const same = decision.status === deviation.status && JSON.stringify(ours) === JSON.stringify(deviation.principles);
      return { id: c.name, file, status: same ? ('passed' as const) : ('failed' as const), reason: same ? `documented deviation: ${deviation.why}` : `expected ${deviation.status} ${deviation.principles.join(', ')}, got ${decision.status} ${ours.join(', ')}` };
    }
    const reference = [...c.result.violations, ...c.result.warnings].map((v) => v.principle_id);
    const same = JSON.stringify([...new Set(ours)]) === JSON.stringify([...new Set(reference)]);
    return { id: c.name, file, status: same ? ('passed' as const) : ('failed' as const), ...(same ? {} : { reason: `reference ${reference.join(', ') || 'nothing'}, ours ${ours.join(', ') || 'nothing'}` }) };
  });
}

export function runIlpConformance(paths: readonly string[]): IlpConformanceReport {
  const results: IlpConformanceResult[] = [];
  for (const root of paths) {
    for (const path of filesUnder(root)) {
      const file = relative(root, path) || basename(path);
      const name = basename(path);
      if (path.endsWith('.ilp')) results.push(messageCase(path, file));
      else if (/[\\/]payloads[\\/][^\\/]+\.json$/.test(path)) results.push(payloadCase(path, file));
      else if (name === 'constitution-cases.json') results.push(...constitutionCases(path, file));
      else if (name === 'navigator-cases.json') results.push(...navigatorCases(path, file));
      else if (name === 'attention-cases.json') results.push(...attentionCases(path, file));
      else if (name === 'episodic-memory-cases.json') results.push(...memoryCases(path, file));
      else if (Object.hasOwn(NOT_YET, name)) results.push({ id: name, file, status: 'skipped', reason: NOT_YET[name]! });
    }
  }
  const count = (status: Status) => results.filter((r) => r.status === status).length;
  return { total: results.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), results };
}
