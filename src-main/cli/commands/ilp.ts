import { z } from 'zod';
import { existsSync } from 'node:fs';
import { homePaths } from '../../home/paths.js';
import type { OpenForCommand } from '../../app/cli-context.js';
import { runIlpConformance } from '../../ilp/conformance/runner.js';
import { printConformanceReport } from './conformance-report.js';
import { AgentResponse, enforceConstitution, InvocationContext, type ConstitutionalDecision } from '../../ilp/constitution/enforce.js';
import { checkConstitutionalHeader, type ConstitutionalHeader } from '../../ilp/constitution/header.js';
import { HEADER, headerOf, type IlpMessage, type IlpSyntaxError } from '../../ilp/protocol/message.js';
import { parseIlpMessage } from '../../ilp/protocol/parse.js';
import { parseFlags } from '../args.js';
import { UsageError, type CliIo, type Command, runSubcommand } from '../io.js';
import { terminalSafe } from './plan.js';
import { listIlpAgents, sendIlp } from './ilp-send.js';
import { readBoundedFile } from './ilp-file.js';
import { ilpConfig, ilpConfigUsage } from './ilp-config.js';
import { shippedSlicesDir } from '../../app/compose-ilp.js';

const usage = `Usage: silas ilp parse FILE [--json]
       silas ilp enforce --request REQ.ilp --response RESP.json [--context CTX.json] [--json]
       silas ilp conformance PATH… [--json] [--verbose]
       silas ilp send [--method M] URI [--header K=V]… [--body FILE] [--home DIR] [--json]
       silas ilp agents [--home DIR] [--json]
       silas ilp config show|check|apply [FILE] [--home DIR] [--json]

  silas ilp parse FILE [--json]
      Read one ILP/1.0 message (spec 004 §5: a request line or status line, header fields whose
      JSON values may run over several lines, a blank line and a JSON body). Exit 0 when it is a
      valid message, 1 when it is not (the 400 it would get, naming the field).
      --json prints {"kind","method","path","version","status","reason","headers":{NAME: VALUE},"body"}.

  silas ilp enforce --request REQ.ilp --response RESP.json [--context CTX.json] [--json]
      The constitutional enforcer's decision (spec 004 §4, §8.4, §9.1) on an agent's response
      (§7.2 JSON) to the request, under the limits of the request's own Constitutional-Header,
      given the invocation so far: the request body's §7.1 context (previous_agents,
      invocation_count, cost_so_far), overridden by CTX.json, which holds any of {"depth","invocations","cost_usd",
      "previous_agents","agent","domain_from","domain_to","concepts_translated"}. Exit 0 with the
      decision, 1 when an input is invalid (a missing or invalid Constitutional-Header included).
      --json prints {"status","constitutional_status","violations":[{"principle","severity",
      "message","suggested_action"}],"warnings":[…]}.

  silas ilp conformance PATH… [--json] [--verbose]
      Run the ILP conformance data (../shared/conformance/ilp, or files and folders below it): the
      RFC's example messages round-trip, its payloads, and the reference's constitution cases,
      each passed, failed, or passed as a documented deviation (docs/conformance.md). Exit 0 when
      none failed. --json prints {"total","passed","failed","skipped","results"}.

  silas ilp send [--method M] URI [--header K=V]… [--body FILE] [--home DIR] [--json]
      Send one request to the running runtime over its ILP socket and print the answer. URI is
      ilp://AGENT/PATH (spec 004 §11.2); its query fills Constitutional-Header fields, e.g.
      ilp://meta-agent/insight?domain=meta&depth=0&budget_usd=0&max_budget_usd=0.05. --header
      K=V adds a header (a JSON value is read as JSON); --body FILE is the JSON body, e.g.
      {"query": "How can I stabilize my spending?"}. The method is THINK unless --method or the
      path (ilp://meta-agent/trace/export) names one. Exit 0 on 200 or 207, 1 otherwise.

  silas ilp agents [--home DIR] [--json]
      The agents the runtime answers for: the meta-agent (planner model) and one specialist per
      slice domain (executor model), and the remote specialists HOME/ilp.yaml registers, with
      their ilp:// URIs; slices that could not be loaded are reported with file and line.

${ilpConfigUsage}

  Errors print {"error":{"status":400,"field","message"}} with --json.

Options:
  --json       print JSON
  -h, --help   show this help`;

/** The message as `--json` prints it: every key present, null where the kind has none. */
function asJson(message: IlpMessage) {
  return {
    kind: message.kind,
    method: message.kind === 'request' ? message.method : null,
    path: message.kind === 'request' ? message.path : null,
    version: message.version,
    status: message.kind === 'response' ? message.status : null,
    reason: message.kind === 'response' ? message.reason : null,
    headers: Object.fromEntries(message.headers.map((h) => [h.name, h.value])),
    body: message.body,
  };
}

function printMessage(io: CliIo, message: IlpMessage): void {
  const s = (text: string) => terminalSafe(text);
  io.out(message.kind === 'request' ? `request ${message.method} ${s(message.path)} (ILP/${message.version})` : `response ${message.status} ${s(message.reason)} (ILP/${message.version})`);
  for (const header of message.headers) io.out(`  ${s(header.name)}: ${s(typeof header.value === 'string' ? header.value : JSON.stringify(header.value))}`);
  io.out(message.body === null ? 'no body' : `body: ${terminalSafe(JSON.stringify(message.body, null, 2), true)}`);
}

function printError(io: CliIo, error: IlpSyntaxError, json: boolean | undefined): number {
  if (json) io.out(JSON.stringify({ error }));
  else io.err(`refused (${error.status}): ${terminalSafe(error.field)}: ${terminalSafe(error.message)}`);
  return 1;
}

async function parse(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('ilp parse: name one message file, e.g. silas ilp parse request.ilp', usage);
  const bytes = readBoundedFile(positionals[0]!);
  if (typeof bytes === 'string') {
    if (values.json) io.out(JSON.stringify({ error: { status: 400, field: 'file', message: bytes } }));
    else io.err(bytes);
    return 1;
  }
  const parsed = parseIlpMessage(bytes);
  if (!parsed.ok) return printError(io, parsed.error, values.json);
  if (values.json) io.out(JSON.stringify(asJson(parsed.message)));
  else printMessage(io, parsed.message);
  return 0;
}

type Input<T> = { ok: true; value: T } | { ok: false; error: IlpSyntaxError };
const bad = (field: string, message: string): { ok: false; error: IlpSyntaxError } => ({ ok: false, error: { status: 400, field, message } });

/** A JSON file checked by `schema`; problems name `field` and the path inside it. */
function readJsonFile<T>(file: string, field: string, schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } } }): Input<T> {
  const bytes = readBoundedFile(file);
  if (typeof bytes === 'string') return bad(field, bytes);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    return bad(field, `${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const path = issue.path.map(String).join('.');
  return bad(path ? `${field}.${path}` : field, issue.message);
}

/** The §7.1 recursion context of a request's body, as the enforcer's context: what --context omits. */
function bodyContext(body: unknown): InvocationContext {
  const context = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { context?: unknown }).context : undefined;
  const parsed = z.object({ previous_agents: z.array(z.string().max(200)).max(100_000).optional(), invocation_count: z.number().int().nonnegative().optional(), cost_so_far: z.number().finite().nonnegative().optional() }).safeParse(context ?? {});
  if (!parsed.success) return {};
  const { previous_agents, invocation_count, cost_so_far } = parsed.data;
  return { ...(previous_agents ? { previous_agents } : {}), ...(invocation_count !== undefined ? { invocations: invocation_count } : {}), ...(cost_so_far !== undefined ? { cost_usd: cost_so_far } : {}) };
}

function requestHeader(file: string): Input<{ header: ConstitutionalHeader; context: InvocationContext }> {
  const bytes = readBoundedFile(file);
  if (typeof bytes === 'string') return bad('request', bytes);
  const parsed = parseIlpMessage(bytes);
  if (!parsed.ok) return parsed;
  if (parsed.message.kind !== 'request') return bad('request', `${file} holds a response; give the request the response answers`);
  const header = checkConstitutionalHeader(headerOf(parsed.message, HEADER.constitutional)?.value);
  return header.ok ? { ok: true, value: { header: header.header, context: bodyContext(parsed.message.body) } } : bad(header.field, header.message);
}

function printDecision(io: CliIo, decision: ConstitutionalDecision): void {
  io.out(`${decision.status} ${decision.constitutional_status}`);
  for (const f of [...decision.violations, ...decision.warnings]) io.out(`  ${f.severity} ${f.principle}: ${terminalSafe(f.message)} (${terminalSafe(f.suggested_action)})`);
}

async function enforce(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { request: { type: 'string' }, response: { type: 'string' }, context: { type: 'string' }, json: { type: 'boolean' } }, usage, false);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length > 0 || !values.request || !values.response) throw new UsageError('ilp enforce: give --request REQ.ilp and --response RESP.json', usage);
  const header = requestHeader(values.request);
  if (!header.ok) return printError(io, header.error, values.json);
  const response = readJsonFile(values.response, 'response', AgentResponse);
  if (!response.ok) return printError(io, response.error, values.json);
  const context = values.context === undefined ? { ok: true as const, value: {} } : readJsonFile(values.context, 'context', InvocationContext);
  if (!context.ok) return printError(io, context.error, values.json);
  const decision = enforceConstitution(header.value.header, response.value, { ...header.value.context, ...context.value });
  if (values.json) io.out(JSON.stringify(decision));
  else printDecision(io, decision);
  return 0;
}

async function conformance(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, verbose: { type: 'boolean' } }, usage, true);
  if (values.help) {
    io.out(usage);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('ilp conformance: give the data folder, e.g. ../shared/conformance/ilp', usage);
  const missing = positionals.filter((p) => !existsSync(p));
  if (missing.length > 0) throw new UsageError(`ilp conformance: no such file or folder: ${missing.join(', ')}`, usage);
  return printConformanceReport(io, 'ILP', runIlpConformance(positionals), values);
}

/** The remote specialists of HOME/ilp.yaml as the runtime would use them; a home or keyring out of reach is said, not fatal. */
async function configuredRemote(open: OpenForCommand, home: string): Promise<{ specialists: { id: string; domain: string; url: string }[] } | { problem: string }> {
  if (!existsSync(homePaths(home).database)) return { specialists: [] };
  try {
    const ledger = (await (await open(home)).database()).openIlpConfig('verify');
    try {
      const loaded = ledger.load();
      return loaded.ok ? { specialists: loaded.config.specialists.map(({ id, domain, url }) => ({ id, domain, url })) } : { problem: loaded.problem };
    } finally {
      ledger.close();
    }
  } catch (error) {
    return { problem: `HOME/ilp.yaml could not be checked (${(error as Error).message})` };
  }
}

export const ilpCommand: Command = {
  name: 'ilp',
  usage,
  run: (argv, io, open) =>
    runSubcommand(
      'ilp',
      usage,
      {
        parse,
        enforce,
        conformance,
        send: (args, sendIo) => sendIlp(args, sendIo, usage),
        config: (args, configIo, configOpen) => ilpConfig(args, configIo, configOpen, usage),
        agents: (args, agentsIo, agentsOpen) => listIlpAgents(args, agentsIo, usage, [shippedSlicesDir()], (home) => configuredRemote(agentsOpen, home)),
      },
      argv,
      io,
      open,
    ),
};
