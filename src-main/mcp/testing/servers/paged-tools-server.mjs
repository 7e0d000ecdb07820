// An MCP server whose tools/list comes in two pages (nextCursor "page-2"), for the tests of what
// the proxy offers: every tool is answered with "ran NAME", so a test can tell which tool ran,
// and every line it receives goes to $MCP_RECEIVED_LOG.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { logReceivedLines } from './received-log.mjs';

logReceivedLines();
const tool = (name, description) => ({ name, description, inputSchema: { type: 'object', properties: { path: { type: 'string' } } } });
const pages = [
  [tool('read_file', 'Read a file'), tool('delete_file', 'Delete a file'), tool('write_file', 'Write a file')],
  [tool('fetch', 'Fetch a URL'), tool('shell', 'Run a command'), tool('echo', 'Echo the message')],
];

const server = new Server({ name: 'paged-tools', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async (request) =>
  request.params?.cursor === 'page-2' ? { tools: pages[1] } : { tools: pages[0], nextCursor: 'page-2' },
);
server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `ran ${request.params.name}` }] }));

await server.connect(new StdioServerTransport());
