import { JsonSyntaxError, getProp, parseJsonText, type JsonNode, type JsonObjectNode, type JsonScalarNode } from './jsonc.js';
import type { ClientSpec } from './locations.js';

/* Reading the MCP server entries of a client configuration, and recognising a `silas proxy` wrap. */

type Transport = 'stdio' | 'remote' | 'unknown';

export interface ProxyInvocation {
  name?: string;
  policy?: string;
  home?: string;
  client?: string;
  /** The command the proxy runs, after `--`; undefined when given as `--target "CMD ARGS"`. */
  original?: { command: string; args: string[] };
  target?: string;
}

export interface ServerEntry {
  name: string;
  node: JsonObjectNode;
  transport: Transport;
  command?: string;
  args?: string[];
  url?: string;
  /** Set when the entry already runs through `silas proxy`. */
  wrapped?: ProxyInvocation;
  /** Why the entry cannot be wrapped, when it cannot. */
  problem?: string;
}

export interface ParsedConfig {
  text: string;
  root: JsonNode;
  /** Where the server map was found ([] when absent). */
  serverPath: readonly string[];
  serverMap?: JsonObjectNode;
  servers: ServerEntry[];
}

export const REMOTE_REASON = 'remote servers (url) are not stdio; the proxy relays stdio only';

const REMOTE_TYPES = new Set(['http', 'sse', 'streamable-http', 'streamablehttp', 'streamable_http', 'ws', 'websocket']);

export class ConfigFormatError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
    this.name = 'ConfigFormatError';
  }
}

/** Parses a client configuration; throws ConfigFormatError with a line and column for bad input. */
export function parseClientConfig(text: string, client: ClientSpec): ParsedConfig {
  let root: JsonNode;
  try {
    root = parseJsonText(text, { jsonc: client.jsonc });
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new ConfigFormatError(error.message, error.line, error.column);
    throw error;
  }
  if (!client.jsonc) {
    // Belt and braces: what we accept as plain JSON, JSON.parse must accept too.
    try {
      JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (error) {
      throw new ConfigFormatError(`not valid JSON: ${(error as Error).message}`);
    }
  }
  if (root.kind !== 'object') throw new ConfigFormatError(`the top level is ${root.kind === 'array' ? 'an array' : `a ${root.kind}`}; expected a JSON object`);
  for (const path of client.serverPaths) {
    let node: JsonNode | undefined = root;
    for (const key of path) node = getProp(node, key)?.value;
    if (node === undefined) continue;
    if (node.kind !== 'object') throw new ConfigFormatError(`"${path.join('.')}" is ${node.kind === 'array' ? 'an array' : `a ${node.kind}`}; expected an object of servers`);
    return { text, root, serverPath: path, serverMap: node, servers: node.props.map((p) => readEntry(p.key, p.value)) };
  }
  return { text, root, serverPath: [], servers: [] };
}

function readEntry(name: string, node: JsonNode): ServerEntry {
  if (node.kind !== 'object') {
    return { name, node: { kind: 'object', start: node.start, end: node.end, props: [] }, transport: 'unknown', problem: 'the entry is not an object' };
  }
  const str = (key: string): string | undefined => {
    const value = getProp(node, key)?.value;
    return value?.kind === 'string' ? (value.value as string) : undefined;
  };
  const url = str('url') ?? str('serverUrl') ?? str('httpUrl');
  const type = str('type')?.toLowerCase();
  if (url !== undefined || (type !== undefined && REMOTE_TYPES.has(type))) {
    return { name, node, transport: 'remote', url, problem: REMOTE_REASON };
  }
  const commandNode = getProp(node, 'command')?.value;
  if (!commandNode) return { name, node, transport: 'unknown', problem: 'the entry has neither "command" nor "url"' };
  if (commandNode.kind !== 'string' || (commandNode.value as string).length === 0) {
    return { name, node, transport: 'unknown', problem: '"command" is not a non-empty string' };
  }
  const command = commandNode.value as string;
  const argsNode = getProp(node, 'args')?.value;
  let args: string[] = [];
  if (argsNode) {
    if (argsNode.kind !== 'array' || argsNode.items.some((item) => item.kind !== 'string')) {
      return { name, node, transport: 'stdio', command, problem: '"args" is not an array of strings' };
    }
    args = argsNode.items.map((item) => (item as JsonScalarNode).value as string);
  }
  const entry: ServerEntry = { name, node, transport: 'stdio', command, args };
  const wrapped = parseProxyInvocation(command, args);
  if (wrapped) entry.wrapped = wrapped;
  return entry;
}

function baseName(path: string): string {
  const last = path.split(/[\\/]/).pop() ?? path;
  return last.toLowerCase().replace(/\.(exe|cmd|bat|ps1|js|mjs|cjs|ts)$/, '');
}

/**
 * Recognises an entry that already runs `silas proxy`: `silas proxy …`, `node …/silas.js proxy …`,
 * `npx [-y] silas proxy …`. Returns the proxy's flags and the original command after `--`.
 */
export function parseProxyInvocation(command: string, args: readonly string[]): ProxyInvocation | undefined {
  const at = proxyArgsAt(command, args);
  if (at === null) return undefined;
  const rest = args.slice(at);
  const found: ProxyInvocation = {};
  for (let i = 1; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--') {
      const [cmd, ...cmdArgs] = rest.slice(i + 1);
      if (cmd !== undefined) found.original = { command: cmd, args: cmdArgs };
      break;
    }
    const match = /^--(name|policy|home|target|client)(?:=(.*))?$/s.exec(arg);
    if (!match) continue;
    const value = match[2] ?? rest[++i];
    if (value === undefined) break;
    const key = match[1] as 'name' | 'policy' | 'home' | 'target' | 'client';
    found[key] = value;
  }
  return found;
}

/** Where `proxy` sits in `args` of a `silas proxy` command line (null when it is not one). */
function proxyArgsAt(command: string, args: readonly string[]): number | null {
  let at = 0;
  if (baseName(command) !== 'silas') {
    const silas = args.findIndex((a) => !a.startsWith('-'));
    if (silas === -1 || baseName(args[silas]!) !== 'silas') return null;
    at = silas + 1;
  }
  return args[at] === 'proxy' ? at : null;
}

/** The proxy's options that take a value as the next argument: a value is never read as an option. */
const PROXY_VALUE_OPTIONS = new Set(['--name', '--policy', '--home', '--target', '--client', '--ask-timeout']);

/**
 * A wrapped entry's `silas proxy` arguments with `--client` set to `client`, any other `--client`
 * removed; undefined when the command line is not a `silas proxy`. The proxy records its caller
 * with every decision, so a caller other than the entry's client (Silas itself) must say so.
 */
export function withProxyClient(command: string, args: readonly string[], client: string): string[] | undefined {
  const at = proxyArgsAt(command, args);
  if (at === null) return undefined;
  const options: string[] = [];
  let i = at + 1;
  for (; i < args.length && args[i] !== '--'; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--client=')) continue;
    if (arg === '--client') {
      i += 1;
      continue;
    }
    options.push(arg);
    if (PROXY_VALUE_OPTIONS.has(arg) && i + 1 < args.length) options.push(args[++i]!);
  }
  return [...args.slice(0, at + 1), '--client', client, ...options, ...args.slice(i)];
}
