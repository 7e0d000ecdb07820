import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { JsonValue } from '../../../src-shared/schemas/json.js';
import { parseIlpUri } from '../../ilp/agents/uri.js';
import { SliceNavigator } from '../../ilp/navigator/navigator.js';
import { ILP_METHODS, type IlpHeader, type IlpMethod, type IlpRequest } from '../../ilp/protocol/message.js';
import { parseIlpMessage } from '../../ilp/protocol/parse.js';
import { serializeIlpMessage } from '../../ilp/protocol/serialize.js';
import { homePaths, resolveHome } from '../../home/paths.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo } from '../io.js';
import { terminalSafe } from './plan.js';
import { readBoundedFile } from './ilp-file.js';

/*
 * `silas ilp send`: one ILP request to the running runtime over its ILP socket (docs/ilp.md
 * "Transports"), with the ask credential of HOME/control.json; the answer printed as the message
 * it is. The URI's query fills Constitutional-Header fields (§11.2), `--header` adds or replaces
 * whole fields; a request without a Constitutional-Header is sent as it is, and refused with 400
 * by the runtime, never given defaults here.
 */

const ANSWER_TIMEOUT_MS = 10 * 60_000;

export async function sendIlp(argv: string[], io: CliIo, usage: string): Promise<number> {
  const { values, positionals } = parseFlags(argv, { method: { type: 'string' }, header: { type: 'string', multiple: true }, body: { type: 'string' }, home: { type: 'string' }, json: { type: 'boolean' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('ilp send: name one ilp:// URI, e.g. silas ilp send ilp://meta-agent/insight --body query.json', usage);
  const uri = parseIlpUri(positionals[0]!);
  if (!uri.ok) throw new UsageError(`ilp send: ${uri.message}`, usage);
  const method = (values.method?.toUpperCase() ?? uri.uri.method ?? 'THINK') as IlpMethod;
  if (!(ILP_METHODS as readonly string[]).includes(method)) throw new UsageError(`ilp send: --method must be one of ${ILP_METHODS.join(', ')}`, usage);
  const headers = new Map<string, IlpHeader>();
  if (Object.keys(uri.uri.params).length > 0) headers.set('constitutional-header', { name: 'Constitutional-Header', value: uri.uri.params as JsonValue });
  for (const pair of values.header ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`ilp send: --header takes NAME=VALUE, not "${pair.slice(0, 60)}"`, usage);
    const name = pair.slice(0, eq);
    headers.set(name.toLowerCase(), { name, value: jsonOrText(pair.slice(eq + 1)) });
  }
  let body: JsonValue | null = null;
  if (values.body !== undefined) {
    const bytes = readBoundedFile(values.body);
    if (typeof bytes === 'string') {
      io.err(`silas ilp send: --body: ${bytes}`);
      return 1;
    }
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as JsonValue;
    } catch (error) {
      io.err(`silas ilp send: --body ${values.body}: ${(error as Error).message}; give a JSON file such as {"query": "…"}`);
      return 1;
    }
  }
  const home = resolveHome(values.home, io.env);
  let control: { token?: unknown };
  try {
    control = JSON.parse(readFileSync(homePaths(home).controlFile, 'utf8')) as typeof control;
  } catch {
    io.err(`silas ilp send: the Silas control center is not running for ${home} (no control.json); start it with \`silas start\``);
    return 1;
  }
  const request: IlpRequest = {
    kind: 'request',
    method,
    path: uri.uri.path,
    version: '1.0',
    headers: [{ name: 'Authorization', value: `Bearer ${String(control.token)}` }, { name: 'ILP-Agent', value: uri.uri.agent }, ...headers.values()],
    body,
  };
  let text: string;
  try {
    text = serializeIlpMessage(request);
  } catch (error) {
    io.err(`silas ilp send: ${(error as Error).message}`);
    return 1;
  }
  let answer: Buffer;
  try {
    answer = await exchange(homePaths(home).ilpSocket, text);
  } catch (error) {
    io.err(`silas ilp send: the runtime's ILP socket ${homePaths(home).ilpSocket} did not answer (${(error as Error).message}); is \`silas start\` running for ${home}?`);
    return 1;
  }
  const parsed = parseIlpMessage(answer);
  if (!parsed.ok || parsed.message.kind !== 'response') {
    io.err('silas ilp send: the runtime answered with something that is not an ILP response');
    return 1;
  }
  const response = parsed.message;
  if (values.json) io.out(JSON.stringify({ status: response.status, reason: response.reason, headers: Object.fromEntries(response.headers.map((h) => [h.name, h.value])), body: response.body }));
  else io.out(terminalSafe(answer.toString('utf8'), true));
  return response.status === 200 || response.status === 207 ? 0 : 1;
}

function jsonOrText(value: string): JsonValue {
  const trimmed = value.trim();
  if (/^[{["0-9-]/.test(trimmed) || trimmed === 'true' || trimmed === 'false' || trimmed === 'null') {
    try {
      return JSON.parse(trimmed) as JsonValue;
    } catch {
      return value;
    }
  }
  return value;
}

/** Writes one request and reads one whole response (its Content-Length decides where it ends). */
function exchange(path: string, text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in time'));
    }, ANSWER_TIMEOUT_MS);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\n\n');
      if (end < 0) return;
      const length = Number(/(?:^|\n)content-length: *([0-9]+)/i.exec(buffer.subarray(0, end).toString('utf8'))?.[1] ?? 0);
      if (buffer.length < end + 2 + length) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(buffer.subarray(0, end + 2 + length));
    });
    socket.on('close', () => {
      clearTimeout(timer);
      reject(new Error('the connection closed before the answer'));
    });
    socket.write(text);
  });
}

/**
 * `silas ilp agents`: the agents a runtime on this installation answers for — the meta-agent on the
 * planner role's model and one specialist per slice domain on the executor's — derived from the
 * same shipped slices the runtime loads, so it needs no running runtime.
 */
/** What HOME/ilp.yaml registers (docs/ilp.md "Configuration"): its remote specialists, or why none are in force. */
export type RemoteSpecialistsOf = (home: string) => Promise<{ specialists: { id: string; domain: string; url: string }[] } | { problem: string }>;

export async function listIlpAgents(argv: string[], io: CliIo, usage: string, sliceDirs: readonly string[], remoteOf: RemoteSpecialistsOf): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, home: { type: 'string' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError('ilp agents takes no arguments', usage);
  const remote = await remoteOf(resolveHome(values.home, io.env));
  const navigator = new SliceNavigator(sliceDirs);
  try {
    const byDomain = new Map<string, number>();
    for (const id of navigator.ids()) {
      const domain = navigator.loadSlice(id)?.slice.metadata.domain;
      if (domain !== undefined) byDomain.set(domain, (byDomain.get(domain) ?? 0) + 1);
    }
    const local = [...byDomain.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([domain, slices]) => ({ id: `${domain}-agent`, kind: 'specialist', domain, role: 'executor', slices, uri: `ilp://${domain}-agent/insight` }));
    const taken = new Set(local.map((a) => a.id));
    const agents = [
      { id: 'meta-agent', kind: 'meta', domain: 'meta', role: 'planner', slices: 0, uri: 'ilp://meta-agent/insight' },
      ...local,
      ...('specialists' in remote ? remote.specialists.filter((s) => !taken.has(s.id)).map((s) => ({ id: s.id, kind: 'remote', domain: s.domain, role: null, slices: 0, uri: `ilp://${s.id}/insight`, url: s.url })) : []),
    ];
    const problems = navigator.problems();
    const remoteProblem = 'problem' in remote ? remote.problem : null;
    if (values.json) {
      io.out(JSON.stringify({ agents, slice_problems: problems, remote_problem: remoteProblem }));
      return 0;
    }
    for (const a of agents) io.out(`${a.uri.padEnd(36)} ${a.kind.padEnd(10)} ${a.domain.padEnd(12)} ${a.role ? `${a.role} model` : `at ${terminalSafe((a as { url?: string }).url ?? '')}`}${a.slices ? `, ${a.slices} slice${a.slices === 1 ? '' : 's'}` : ''}`);
    for (const p of problems) io.err(`slice not loaded: ${terminalSafe(p.file)}:${p.line} ${terminalSafe(p.field)}: ${terminalSafe(p.message)}`);
    if (remoteProblem !== null) io.err(`remote specialists not listed: ${terminalSafe(remoteProblem)}`);
    return 0;
  } finally {
    navigator.close();
  }
}
