#!/usr/bin/env node
// The scripted MCP server the benchmark runs behind `silas proxy`: stdio, newline-delimited
// JSON-RPC, no SDK, so what the proxy receives is exactly what the case says. It answers
// initialize, tools/list (the case's definitions, or plain ones for the tools it calls) and
// tools/call (the case's result, else an echo of the arguments). It never opens a connection:
// cases name hosts such as evil.example.com, and a replay must not reach them.
//
// Usage: node replay-server.mjs CASE.json [--baseline]
//   --baseline  announce the baseline definitions (the session before a rug-pull case)
import { createInterface } from 'node:readline';
import { readCase, replayPlan } from './cases.js';

const [file, flag] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: replay-server.mjs CASE.json [--baseline]\n');
  process.exit(2);
}
const plan = replayPlan(readCase(file));
if (!plan) {
  process.stderr.write(`replay-server: ${file} has no MCP replay\n`);
  process.exit(2);
}
const tools = flag === '--baseline' ? plan.baseline ?? plan.tools : plan.tools;

// Results are served per tool in call order, so a sequence calling one tool twice gets each in turn.
const pending = new Map();
for (const step of plan.steps) {
  if (!pending.has(step.tool)) pending.set(step.tool, []);
  pending.get(step.tool).push(step.result);
}

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function answer(request) {
  const { id, method, params } = request;
  switch (method) {
    case 'initialize':
      return { result: { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'egress-bench-replay', version: '1.0.0' } } };
    case 'ping':
      return { result: {} };
    case 'tools/list':
      return { result: { tools } };
    case 'tools/call': {
      const queue = pending.get(params?.name);
      const scripted = queue && queue.length > 0 ? queue.shift() : null;
      return { result: scripted ?? { content: [{ type: 'text', text: JSON.stringify(params?.arguments ?? {}) }] } };
    }
    default:
      return id === undefined ? null : { error: { code: -32601, message: `method not found: ${method}` } };
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === '') return;
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    return;
  }
  // Notifications (no id) are only acknowledged by silence.
  if (request.id === undefined) return;
  const reply = answer(request);
  if (reply) send({ jsonrpc: '2.0', id: request.id, ...reply });
});
