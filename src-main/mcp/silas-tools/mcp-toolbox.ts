import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { JsonObject } from '../../../src-shared/schemas/json.js';
import type { ToolDefinition } from '../../silas/executor/tools.js';
import type { ConnectedServer } from './connected-servers.js';

/*
 * Silas as an MCP client of the servers the person connected (docs/silas/stream.md "MCP servers").
 * Each server is started through its `silas proxy` command line, so every call Silas makes passes
 * the server's AIP policy, DLP and approvals like any other agent's (an `ask` rule reaches the
 * person in Review); the proxy also runs the server in its sandbox. Tools are offered to the
 * executor as `mcp__SERVER__TOOL`; results are external input (taint `external`).
 */

const MCP_TOOL_PREFIX = 'mcp__';
const MAX_ARGS_CHARS = 1_000_000;
const SAFE = /[^A-Za-z0-9_-]/g;

export interface McpToolInfo {
  name: string;
  server: string;
  tool: string;
  description: string;
}

interface Connection {
  server: ConnectedServer;
  client: Client;
}

export interface McpToolboxOptions {
  /** The environment the proxies start with (the runtime's, with SILAS_HOME set). */
  env: Record<string, string>;
  /** Per call; an `ask` waits for the person, so this is long. */
  callTimeoutMs: number;
  /** A server that could not be started or listed: said in the conversation, the rest still work. */
  onProblem?: (server: string, problem: string) => void;
}

export class McpToolbox {
  private constructor(
    private readonly tools: ReadonlyMap<string, McpToolInfo & { connection: Connection }>,
    private readonly connections: readonly Connection[],
    private readonly options: McpToolboxOptions,
  ) {}

  static async open(servers: readonly ConnectedServer[], options: McpToolboxOptions): Promise<McpToolbox> {
    const connections: Connection[] = [];
    const tools = new Map<string, McpToolInfo & { connection: Connection }>();
    for (const server of servers) {
      const client = new Client({ name: 'silas', version: '1.0.0' });
      try {
        await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: options.env, stderr: 'ignore' }));
        const connection = { server, client };
        connections.push(connection);
        const listed = await client.listTools();
        for (const tool of listed.tools) {
          const name = `${MCP_TOOL_PREFIX}${server.name.replace(SAFE, '_')}__${tool.name.replace(SAFE, '_')}`.slice(0, 100);
          // Two tools that sanitise to one name would be ambiguous: the first keeps it.
          if (!tools.has(name)) tools.set(name, { name, server: server.name, tool: tool.name, description: (tool.description ?? '').slice(0, 500), connection });
        }
      } catch (error) {
        options.onProblem?.(server.name, error instanceof Error ? error.message : String(error));
        await client.close().catch(() => undefined);
      }
    }
    return new McpToolbox(tools, connections, options);
  }

  list(): McpToolInfo[] {
    return [...this.tools.values()].map(({ connection: _connection, ...info }) => info);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** The executor's view: each tool takes one JSON object of arguments, checked by the server's own schema. */
  definitions(): ToolDefinition[] {
    return [...this.tools.keys()].map((name) => ({
      name,
      validate(args: unknown) {
        const parsed = JsonObject.safeParse(args);
        if (!parsed.success) return { ok: false, field: 'args', message: 'expected a JSON object of the tool\'s arguments' };
        if (JSON.stringify(parsed.data).length > MAX_ARGS_CHARS) return { ok: false, field: 'args', message: `at most ${MAX_ARGS_CHARS} characters of arguments` };
        return { ok: true, args: parsed.data };
      },
    }));
  }

  /** One tools/call through the server's proxy; a refusal by its policy comes back as the error. */
  async call(name: string, args: JsonObject, signal?: AbortSignal): Promise<{ ok: boolean; text: string; error: string | null }> {
    const tool = this.tools.get(name);
    if (!tool) return { ok: false, text: '', error: `unknown MCP tool ${name}` };
    try {
      const result = await tool.connection.client.callTool({ name: tool.tool, arguments: args }, undefined, { timeout: this.options.callTimeoutMs, ...(signal ? { signal } : {}) });
      const content = Array.isArray(result.content) ? result.content : [];
      const text = content.map((part) => (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text' ? String((part as { text?: unknown }).text ?? '') : JSON.stringify(part))).join('\n');
      return result.isError === true ? { ok: false, text, error: text || 'the tool reported an error' } : { ok: true, text, error: null };
    } catch (error) {
      // The proxy answers a refused call with a JSON-RPC error naming the policy's reason.
      return { ok: false, text: '', error: error instanceof Error ? error.message : String(error) };
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.client.close().catch(() => undefined)));
  }
}
