import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, SERVERS } from '../proxy-harness.js';

// The proxy benchmark's second floor is only a floor if it does the work it claims: every
// client message read and recorded as a linked row before it is forwarded, and the call still answered.
const AUDIT_RELAY = fileURLToPath(new URL('./audit-relay.mjs', import.meta.url));

describe('audit relay (benchmark floor)', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('answers calls and records one linked row per client message, none for responses', async () => {
    dir = mkdtempSync(join(tmpdir(), 'silas-audit-relay-'));
    const dbPath = join(dir, 'relay.db');
    const transport = new StdioClientTransport({ command: process.execPath, args: [AUDIT_RELAY, dbPath, process.execPath, SERVERS.fileTools], env: childEnv(), stderr: 'ignore' });
    const client = new Client({ name: 'relay-test', version: '1.0.0' });
    await client.connect(transport);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'through the relay' } });
    expect(JSON.stringify(result.content)).toContain('through the relay');
    await client.close();

    const db = new Database(dbPath, { readonly: true });
    const rows = db.prepare('SELECT direction, data, hash FROM entries ORDER BY id').all() as { direction: string; data: string; hash: string }[];
    db.close();
    const calls = rows.filter((r) => r.direction === 'to_server' && JSON.parse(r.data).method === 'tools/call');
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.data).params.arguments).toEqual({ message: 'through the relay' });
    expect(rows.every((r) => r.direction === 'to_server')).toBe(true);
    // initialize, notifications/initialized, tools/call: every client message, each once.
    expect(rows.map((r) => JSON.parse(r.data).method)).toEqual(['initialize', 'notifications/initialized', 'tools/call']);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length);
    for (const row of rows) expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
