// A filesystem MCP server that resolves paths the way @modelcontextprotocol/server-filesystem does:
// relative to the allowed directory named on its command line, whatever its working directory. For
// the proxy's path-base tests (docs/protected-paths.md "Relative paths: every directory the server
// may use").
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const allowed = resolve(process.argv[2] ?? process.cwd());
const server = new McpServer({ name: 'allowed-dir', version: '1.0.0' });
const text = (value) => ({ content: [{ type: 'text', text: value }] });

server.registerTool('read_text_file', { description: 'Read a file under the allowed directory', inputSchema: { path: z.string() } }, async ({ path }) =>
  text(readFileSync(resolve(allowed, path), 'utf8')),
);
server.registerTool('run_command', { description: 'Pretend to run a shell command', inputSchema: { command: z.string() } }, async ({ command }) => text(`would run: ${command}`));

await server.connect(new StdioServerTransport());
