// A real MCP server that leaks secrets in every way a response can: result text,
// structuredContent, a JSON-RPC error (message and data), and stderr.
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { logReceivedLines } from './received-log.mjs';

export const AWS_KEY = 'AKIAABCDEFGHIJKLMNOP';
logReceivedLines();
const server = new McpServer({ name: 'secrets', version: '1.0.0' });

server.registerTool('leak_text', { description: 'Returns a key in text', inputSchema: {} }, async () => {
  process.stderr.write(`secrets: debug key=${AWS_KEY}\n`);
  return { content: [{ type: 'text', text: `here is the key ${AWS_KEY}` }] };
});
server.registerTool(
  'leak_structured',
  { description: 'Returns a key in structuredContent', inputSchema: {}, outputSchema: { key: z.string(), note: z.string() } },
  async () => ({ content: [{ type: 'text', text: JSON.stringify({ key: AWS_KEY }) }], structuredContent: { key: AWS_KEY, note: 'structured' } }),
);
server.registerTool('leak_error', { description: 'Fails with a key in the JSON-RPC error', inputSchema: {} }, async () => {
  // UrlElicitationRequired is the one McpError code McpServer passes through as a JSON-RPC
  // error instead of wrapping it in an isError result.
  throw new McpError(-32042, `backend refused key ${AWS_KEY}`, { key: AWS_KEY, elicitations: [] });
});

await server.connect(new StdioServerTransport());
