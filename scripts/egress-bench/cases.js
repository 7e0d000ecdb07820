// How each case of agent-egress-bench becomes something `silas proxy` can judge: carried natively
// (the case is MCP), carried as an MCP call (its payload is a request's arguments or a response's
// body, which an agent's `fetch`/`send_message` tool call carries the same way), or not
// applicable (the case is about a transport the product does not proxy). Pure: the runner and the
// scripted server (replay-server.mjs) both derive the replay from the case file alone, so the
// server needs nothing but the path it is given.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The tool a carried URL, header, body or response case is replayed as: an agent's web fetch. */
const FETCH_TOOL = 'fetch';
/** The tool a carried A2A message is replayed as: an agent handing a message to another agent. */
const SEND_TOOL = 'send_message';
/** The tool a native tool-result case is answered on: the case gives the result, never the call. */
const RESULT_TOOL = 'read_output';

const MCP_TRANSPORTS = new Set(['mcp_stdio', 'mcp_http']);

// Whole categories whose threat lives below the request the product sees.
const CATEGORY_NOT_APPLICABLE = {
  websocket_dlp: 'WebSocket frames: the product proxies MCP over stdio and has no WebSocket transport to scan frames on',
  ssrf_bypass:
    'SSRF is decided where a connection is made (the address a name or literal resolves to); a replayed call never connects, and the server sandbox only reaches hosts through the egress proxy, which is not exercised by a scripted server',
  hostname_exfiltration:
    'data in DNS labels leaves when the name is resolved, before any request; the product resolves no names for a call it relays, and the scripted server never resolves one',
};

// Capability tags that need something the replay cannot give, whatever the category.
const TAG_NOT_APPLICABLE = {
  ssrf: CATEGORY_NOT_APPLICABLE.ssrf_bypass,
  domain_blocklist:
    'needs the benchmark domain seeded into a blocklist (RUNNER.md); the product keeps host lists in the server sandbox (egress proxy), which a replayed call never reaches, and the policy under test is not edited beyond tool names',
};

/** Every case file under `dir` (its sub-folders), sorted by path so runs are comparable. */
export function loadCases(dir) {
  const files = [];
  for (const folder of readdirSync(dir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const name of readdirSync(join(dir, folder.name))) if (name.endsWith('.json')) files.push(join(dir, folder.name, name));
  }
  return files.sort().map((file) => ({ file, case: readCase(file) }));
}

export function readCase(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/**
 * How the product carries `c`: `{ kind: 'native' | 'carried' | 'not_applicable', reason }`.
 * Native MCP cases are carried whatever their `requires` (the published anchor counts them all).
 */
export function carriage(c) {
  if (MCP_TRANSPORTS.has(c.transport)) {
    const note = c.transport === 'mcp_http' ? 'MCP over HTTP carried over stdio (the JSON-RPC is the same; the proxy has a stdio client side)' : '';
    return { kind: 'native', reason: note };
  }
  const byCategory = CATEGORY_NOT_APPLICABLE[c.category];
  if (byCategory) return { kind: 'not_applicable', reason: byCategory };
  for (const tag of c.capability_tags ?? []) if (TAG_NOT_APPLICABLE[tag]) return { kind: 'not_applicable', reason: TAG_NOT_APPLICABLE[tag] };
  switch (c.input_type) {
    case 'url':
    case 'header':
    case 'request_body':
      return { kind: 'carried', reason: `the request as the arguments of a \`${FETCH_TOOL}\` call {url, method, headers, body}` };
    case 'response_content': {
      const tls = (c.requires ?? []).includes('tls_interception') ? '; TLS interception itself is not exercised' : '';
      return { kind: 'carried', reason: `the response body as the result of a \`${FETCH_TOOL}\` call of its URL${tls}` };
    }
    case 'a2a_message':
      return { kind: 'carried', reason: `the A2A request params as the arguments of a \`${SEND_TOOL}\` call` };
    case 'a2a_agent_card':
      return { kind: 'carried', reason: `the agent card as the result of a \`${FETCH_TOOL}\` call of its well-known URL` };
    default:
      return { kind: 'not_applicable', reason: `input type ${c.input_type} has no MCP shape` };
  }
}

const messages = (c) => c.payload?.jsonrpc_messages ?? [];

function schemaFor(args) {
  const type = (v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'string');
  const properties = {};
  for (const [key, value] of Object.entries(args ?? {})) properties[key] = { type: type(value) };
  return { type: 'object', properties };
}

/** A plain definition for a tool the case only calls. */
function plainTool(name, args) {
  return { name, description: `Replays the ${name} calls of a benchmark case.`, inputSchema: schemaFor(args) };
}

function fetchCall(p) {
  const args = { url: p.url, method: p.method ?? 'GET' };
  const headers = { ...(p.headers ?? {}) };
  if (p.content_type) headers['Content-Type'] = p.content_type;
  if (Object.keys(headers).length > 0) args.headers = headers;
  if (p.body !== undefined) args.body = p.body;
  return args;
}

const FETCH_DEFINITION = {
  name: FETCH_TOOL,
  description: 'Fetches a URL and returns the response body.',
  inputSchema: { type: 'object', properties: { url: { type: 'string' }, method: { type: 'string' }, headers: { type: 'object' }, body: { type: 'string' } }, required: ['url'] },
};

const textResult = (text) => ({ content: [{ type: 'text', text }] });

/**
 * The replay of `c`: the tools the scripted server announces, the calls the client makes in one
 * session (each with the result the server sends, or `null` to echo the arguments), and what the
 * verdict is read from (`tools`: the client's tools/list; `calls`: the calls' answers; `result`:
 * the one call's result against what the server sent). `baseline` (tool-definition cases that
 * require one) is what a first session announces, so the case's definitions are a change.
 */
export function replayPlan(c) {
  const kind = carriage(c).kind;
  if (kind === 'not_applicable') return null;
  const p = c.payload ?? {};
  if (kind === 'carried') {
    if (c.input_type === 'response_content') return { observe: 'result', tools: [FETCH_DEFINITION], steps: [{ tool: FETCH_TOOL, arguments: { url: p.url, method: 'GET' }, result: textResult(p.response_body ?? '') }] };
    if (c.input_type === 'a2a_agent_card') {
      const base = String(p.agent_card?.url ?? 'https://agent.invalid').replace(/\/+$/, '');
      return { observe: 'result', tools: [FETCH_DEFINITION], steps: [{ tool: FETCH_TOOL, arguments: { url: `${base}/.well-known/agent-card.json`, method: 'GET' }, result: textResult(JSON.stringify(p.agent_card, null, 2)) }] };
    }
    if (c.input_type === 'a2a_message') {
      const steps = messages(c).filter((m) => typeof m.method === 'string').map((m) => ({ tool: SEND_TOOL, arguments: m.params ?? {}, result: null }));
      return { observe: 'calls', tools: [plainTool(SEND_TOOL, steps[0]?.arguments)], steps };
    }
    return { observe: 'calls', tools: [FETCH_DEFINITION], steps: [{ tool: FETCH_TOOL, arguments: fetchCall(p), result: null }] };
  }
  switch (c.input_type) {
    case 'mcp_tool_definition': {
      const tools = messages(c).flatMap((m) => m.result?.tools ?? []);
      const plan = { observe: 'tools', tools, steps: [] };
      if ((c.requires ?? []).includes('mcp_tool_baseline')) plan.baseline = tools.map((t) => ({ ...t, description: `Baseline definition of ${t.name}.` }));
      return plan;
    }
    case 'mcp_tool_result': {
      const results = messages(c).filter((m) => m.result !== undefined);
      return { observe: 'result', tools: [plainTool(RESULT_TOOL, {})], steps: results.map((m) => ({ tool: RESULT_TOOL, arguments: {}, result: m.result })) };
    }
    default: {
      // mcp_tool_call and mcp_tool_sequence: every tools/call in order, in one session.
      const steps = messages(c)
        .filter((m) => m.method === 'tools/call')
        .map((m) => ({ tool: m.params?.name, arguments: m.params?.arguments ?? {}, result: null }));
      const tools = [];
      for (const step of steps) if (!tools.some((t) => t.name === step.tool)) tools.push(plainTool(step.tool, step.arguments));
      return { observe: 'calls', tools, steps };
    }
  }
}

/** Every tool name the replay of `c` announces or calls: the names the policy copy allows. */
export function toolNames(plan) {
  const names = new Set();
  for (const t of [...plan.tools, ...(plan.baseline ?? [])]) if (typeof t?.name === 'string') names.add(t.name);
  for (const s of plan.steps) if (typeof s.tool === 'string') names.add(s.tool);
  return [...names];
}
