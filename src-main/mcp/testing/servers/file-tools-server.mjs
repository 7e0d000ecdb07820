// A real MCP server (SDK McpServer over stdio) with file tools for the proxy tests: read,
// write and delete files, plus echo, slow and crash for relay and lifecycle tests.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { logReceivedLines } from './received-log.mjs';

logReceivedLines();
const server = new McpServer({ name: 'file-tools', version: '1.0.0' });
const text = (value) => ({ content: [{ type: 'text', text: value }] });

server.registerTool('read_file', { description: 'Read a UTF-8 file', inputSchema: { path: z.string() } }, async ({ path }) => text(readFileSync(path, 'utf8')));
server.registerTool('write_file', { description: 'Write a UTF-8 file', inputSchema: { path: z.string(), content: z.string() } }, async ({ path, content }) => {
  writeFileSync(path, content);
  return text(`wrote ${content.length} characters to ${path}`);
});
server.registerTool('delete_file', { description: 'Delete a file', inputSchema: { path: z.string() } }, async ({ path }) => {
  unlinkSync(path);
  return text(`deleted ${path}`);
});
server.registerTool('echo', { description: 'Echo the message', inputSchema: { message: z.string() } }, async ({ message }) => text(message));
server.registerTool('slow', { description: 'Answer after ms milliseconds', inputSchema: { ms: z.number() } }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return text(`slept ${ms}`);
});
server.registerTool('crash', { description: 'Exit the process mid-call', inputSchema: {} }, async () => {
  process.stderr.write('file-tools: crashing on purpose\n');
  process.exit(3);
});

await server.connect(new StdioServerTransport());
