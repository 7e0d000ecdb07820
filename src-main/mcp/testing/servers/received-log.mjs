// Records every raw line the server receives on stdin to $MCP_RECEIVED_LOG, so a test can
// prove the proxy never forwarded a message it refused, and marks $MCP_STARTED_FILE so a test
// can prove the server was never started. Attached before the SDK transport.
import { appendFileSync, writeFileSync } from 'node:fs';

export function logReceivedLines() {
  if (process.env.MCP_STARTED_FILE) writeFileSync(process.env.MCP_STARTED_FILE, String(process.pid));
  const file = process.env.MCP_RECEIVED_LOG;
  if (!file) return;
  process.stdin.on('data', (chunk) => appendFileSync(file, chunk));
}
