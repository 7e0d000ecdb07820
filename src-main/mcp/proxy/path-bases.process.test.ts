import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SILAS_BIN } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { childEnv, createTestHome, writePolicy } from '../testing/proxy-harness.js';

// Relative paths and their bases, through the real `silas proxy`: a filesystem server that resolves
// paths against the directory on its command line, the proxy launched from `/` as desktop
// clients launch it, and an agent that never writes the protected path literally.

const ALLOWED_DIR_SERVER = fileURLToPath(new URL('../testing/servers/allowed-dir-server.mjs', import.meta.url));
const tempDir = useTempDirs('silas-path-bases-');
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

async function errorOf(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('the call was not refused');
}

describe('silas proxy — relative paths and walk-arounds are refused and recorded as BLOCK', () => {
  it('secrets/private.txt relative to the server\'s allowed directory, and bash -c \'cd ~ && …\', with the proxy started from /', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const userHome = join(dir, 'user');
    const data = join(dir, 'DATA');
    mkdirSync(join(userHome, '.ssh'), { recursive: true });
    mkdirSync(join(data, 'secrets'), { recursive: true });
    writeFileSync(join(userHome, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    writeFileSync(join(data, 'secrets', 'private.txt'), 'the secret');
    writeFileSync(join(data, 'notes.txt'), 'harmless notes');
    const policy = writePolicy(dir, `  allowed_tools: [read_text_file, run_command]\n  protected_paths:\n    - ${JSON.stringify(join(data, 'secrets'))}\n    - "~/.ssh"\n`);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--name', 'fs', '--', process.execPath, ALLOWED_DIR_SERVER, data],
      env: childEnv({ HOME: userHome }),
      cwd: '/',
      stderr: 'pipe',
    });
    const client = new Client({ name: 'path-bases-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);

    expect(await errorOf(client.callTool({ name: 'read_text_file', arguments: { path: 'secrets/private.txt' } }))).toMatchObject({ code: -32007 });
    expect(await errorOf(client.callTool({ name: 'run_command', arguments: { command: "bash -c 'cd ~ && cat .ssh/id_rsa'" } }))).toMatchObject({ code: -32007 });
    expect(await errorOf(client.callTool({ name: 'run_command', arguments: { command: 'cat $(echo ~)/.ssh/id_rsa' } }))).toMatchObject({ code: -32007 });
    const harmless = await client.callTool({ name: 'read_text_file', arguments: { path: 'notes.txt' } });
    expect((harmless.content as { text: string }[])[0]!.text).toBe('harmless notes');
    await client.close();

    const ledger = home.open();
    try {
      const decisions = [...ledger.audit.since()]
        .filter((e) => e.event === 'aip.decision' && e.data.method === 'tools/call')
        .map((e) => [e.data.tool, e.data.decision, e.data.error_code ?? null]);
      expect(decisions).toEqual([
        ['read_text_file', 'BLOCK', -32007],
        ['run_command', 'BLOCK', -32007],
        ['run_command', 'BLOCK', -32007],
        ['read_text_file', 'ALLOW', null],
      ]);
    } finally {
      ledger.close();
    }
  });
});
