import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectThroughProxy, createTestHome, writePolicy, type ProxiedClient } from '../testing/proxy-harness.js';
import { useTempDirs } from '../../testing/temp.js';

// The real @modelcontextprotocol/server-filesystem, as people run it, inside its sandbox: it works
// in the folder it was granted, and sees nothing else of the machine.

const require = createRequire(import.meta.url);
const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const tempDir = useTempDirs('silas-fs-server-');
const open: ProxiedClient[] = [];
afterEach(async () => {
  for (const p of open.splice(0)) await p.close().catch(() => undefined);
});

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content.map((c) => c.text).join('\n');

describe('the real filesystem MCP server in its sandbox', () => {
  it('reads, lists and writes in its granted folder, and the rest of the home does not exist for it', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'silas-home'));
    const userHome = join(dir, 'user');
    const docs = join(userHome, 'docs');
    mkdirSync(join(userHome, '.ssh'), { recursive: true });
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(userHome, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    writeFileSync(join(docs, 'plan.md'), '# the plan');
    const policy = writePolicy(
      dir,
      '  allowed_tools: [read_text_file, write_file, list_directory, list_allowed_directories]\n  protected_paths: ["~/.ssh"]\n  x-silas-sandbox:\n    filesystem:\n      write: ["~/docs"]\n',
    );
    // Told about two folders, the granted one and the whole home: the sandbox, not the server's
    // own configuration, decides what it can reach.
    const proxied = await connectThroughProxy({ home: home.home, policy, server: FILESYSTEM_SERVER, serverArgs: [docs, userHome], sandbox: true, env: { HOME: userHome } });
    open.push(proxied);
    const { client } = proxied;

    expect(textOf(await client.callTool({ name: 'read_text_file', arguments: { path: join(docs, 'plan.md') } }))).toBe('# the plan');
    expect(textOf(await client.callTool({ name: 'list_directory', arguments: { path: docs } }))).toContain('[FILE] plan.md');
    await client.callTool({ name: 'write_file', arguments: { path: join(docs, 'out.md'), content: 'written inside' } });
    expect(readFileSync(join(docs, 'out.md'), 'utf8')).toBe('written inside');
    // The home it was also given is, in its sandbox, a private folder holding only its grant.
    const listing = textOf(await client.callTool({ name: 'list_directory', arguments: { path: userHome } }));
    expect(listing).not.toContain('.ssh');
    expect(listing).toContain('docs');
  });
});
