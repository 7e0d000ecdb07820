import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CLAUDE_CONFIG, POLICY_YAML, STDIO_SERVERS, writePolicy } from '../../mcp/clients/testing/fixtures.js';
import { runSilas, SILAS_BIN } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { clientsCommand } from './clients.js';
import { commandOpener } from '../../app/cli-context.js';

const tempDir = useTempDirs('silas-clients-cli-');

function setup(text = CLAUDE_CONFIG) {
  const dir = tempDir();
  const file = join(dir, 'claude_desktop_config.json');
  writeFileSync(file, text);
  const home = join(dir, 'home');
  const policy = writePolicy(dir);
  return { dir, file, home, policy };
}

function backups(file: string): string[] {
  return readdirSync(dirname(file)).filter((f) => f.includes('.silas-backup-'));
}

describe('silas clients wrap / unwrap', () => {
  it.each([
    ['with a trailing newline', CLAUDE_CONFIG],
    ['without a trailing newline', CLAUDE_CONFIG.trimEnd()],
  ])('round-trips a real-looking Claude Desktop config byte for byte (%s)', async (_label, text) => {
    const { file, home, policy } = setup(text);
    const original = readFileSync(file);
    const wrap = await runSilas(['clients', 'wrap', 'claude-desktop', '--config', file, '--policy', policy, '--home', home, '--yes']);
    expect(wrap).toMatchObject({ code: 0, err: '' });
    expect(wrap.out).toContain(`Wrapped 4 server(s) in ${file}`);
    expect(wrap.out).toContain('not wrapped: linear: remote servers (url) are not stdio; the proxy relays stdio only');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    for (const name of STDIO_SERVERS) {
      expect(config.mcpServers[name].command).toBe(process.execPath);
      expect(config.mcpServers[name].args.slice(0, 8)).toEqual([SILAS_BIN, 'proxy', '--name', name, '--policy', policy, '--home', home]);
    }
    expect(config.mcpServers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>' });
    const [backup] = backups(file);
    expect(backup).toMatch(/^claude_desktop_config\.json\.silas-backup-\d{4}-\d{2}-\d{2}T\d{6}\.\d{3}Z$/);
    expect(readFileSync(join(dirname(file), backup!)).equals(original)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(home, 'clients', 'wraps.json'), 'utf8'));
    expect(manifest.wraps).toEqual([expect.objectContaining({ client: 'claude-desktop', file, backup: join(dirname(file), backup!), servers: STDIO_SERVERS })]);

    const unwrap = await runSilas(['clients', 'unwrap', 'claude', '--config', file, '--home', home]);
    expect(unwrap).toMatchObject({ code: 0, out: expect.stringContaining('byte for byte') });
    expect(readFileSync(file).equals(original)).toBe(true);
  });

  it('prints a unified diff of the entries that change', async () => {
    const { file, home, policy } = setup();
    const result = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--server', 'github', '--dry-run']);
    expect(result.code).toBe(0);
    const q = (s: string) => JSON.stringify(s);
    const args = [SILAS_BIN, 'proxy', '--name', 'github', '--policy', policy, '--home', home, '--client', 'claude-desktop', '--', 'npx', '-y', '@modelcontextprotocol/server-github'].map(q).join(', ');
    expect(result.out).toContain(
      [
        `--- ${file}`,
        `+++ ${file} (wrapped)`,
        '@@ -10,8 +10,8 @@',
        '       ]',
        '     },',
        '     "github": {',
        '-      "command": "npx",',
        '-      "args": ["-y", "@modelcontextprotocol/server-github"],',
        `+      "command": ${q(process.execPath)},`,
        `+      "args": [${args}],`,
        '       "env": {',
        '         "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"',
        '       }',
      ].join('\n'),
    );
    expect(result.out).toContain(`Dry run: ${file} was not changed.`);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(backups(file)).toEqual([]);
  });

  it('--server wraps only the servers named', async () => {
    const { file, home, policy } = setup();
    const result = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--server', 'mémoire 📝', '--server', 'sqlite', '--yes']);
    expect(result.code).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8')).mcpServers;
    const before = JSON.parse(CLAUDE_CONFIG).mcpServers;
    expect(after.filesystem).toEqual(before.filesystem);
    expect(after.github).toEqual(before.github);
    expect(after['mémoire 📝'].args[1]).toBe('proxy');
    expect(after['mémoire 📝'].env).toEqual(before['mémoire 📝'].env);
    expect(after.sqlite.args.slice(-4)).toEqual(['uvx', ...before.sqlite.args]);
  });

  it('a second wrap is a no-op: no rewrite, no backup, no record', async () => {
    const { file, home, policy } = setup();
    const argv = ['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--yes'];
    expect((await runSilas(argv)).code).toBe(0);
    const once = readFileSync(file);
    const second = await runSilas(argv);
    expect(second.code).toBe(0);
    expect(second.out).toContain('not wrapped: github: already runs through silas proxy');
    expect(second.out).toContain('Nothing to wrap');
    expect(readFileSync(file).equals(once)).toBe(true);
    expect(backups(file)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(home, 'clients', 'wraps.json'), 'utf8')).wraps).toHaveLength(1);
  });

  it.each([
    ['a trailing comma', CLAUDE_CONFIG.replace('"Ctrl+Space"', '"Ctrl+Space",'), /claude_desktop_config\.json:35:1: not valid JSON: trailing comma/],
    ['a comment', CLAUDE_CONFIG.replace('"mcpServers": {', '"mcpServers": { // mine'), /:2:19: not valid JSON: comments are not allowed/],
    ['a truncated file', CLAUDE_CONFIG.slice(0, 200), /not valid JSON: .*unterminated string|not valid JSON/],
    ['a duplicate server', CLAUDE_CONFIG.replace('"sqlite"', '"github"'), /not valid JSON: duplicate key "github"/],
    ['bytes that are not UTF-8', Buffer.concat([Buffer.from('{"mcpServers": {"a": {"command": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}}')]), /is not UTF-8 text/],
  ])('refuses %s and changes nothing', async (_label, content, message) => {
    const { file, home, policy } = setup();
    writeFileSync(file, content);
    const before = readFileSync(file);
    const result = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--yes']);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(message);
    expect(result.err).toContain(file);
    expect(result.err).toContain('Nothing was changed');
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(backups(file)).toEqual([]);
  });

  it('needs a policy: --policy, or HOME/policies/<server>.yaml', async () => {
    const { file, home } = setup();
    const missing = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--home', home, '--server', 'github', '--yes']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no policy for "github"');
    expect(missing.err).toContain('Pass --policy FILE');
    expect(missing.err).toContain(join(home, 'policies', 'github.yaml'));
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);

    mkdirSync(join(home, 'policies'), { recursive: true });
    writeFileSync(join(home, 'policies', 'github.yaml'), POLICY_YAML);
    const found = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--home', home, '--server', 'github', '--yes']);
    expect(found.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.github.args).toContain(join(home, 'policies', 'github.yaml'));
  });

  it("adds a starting sandbox profile to a server's own policy: shown as a diff, written only when applied", async () => {
    const { file, home } = setup();
    const policy = join(home, 'policies', 'filesystem.yaml');
    mkdirSync(dirname(policy), { recursive: true });
    writeFileSync(policy, POLICY_YAML);
    const argv = ['clients', 'wrap', 'claude', '--config', file, '--home', home, '--server', 'filesystem'];
    const dry = await runSilas([...argv, '--dry-run']);
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out).toContain(`--- ${policy}\n+++ ${policy} (sandbox profile)\n`);
    expect(dry.out).toContain('+  x-silas-sandbox:\n+    filesystem:\n+      write:\n+        - /Users/alex/Desktop\n+        - /Users/alex/Downloads\n+        - ~/.npm\n');
    expect(dry.out).toContain(`Sandbox profile for filesystem (${policy}):\n  recognised @modelcontextprotocol/server-filesystem (started with npx)\n`);
    expect(dry.out).toContain(`Dry run: ${file} and ${policy} were not changed.`);
    expect(readFileSync(policy, 'utf8')).toBe(POLICY_YAML);

    const applied = await runSilas([...argv, '--yes']);
    expect(applied).toMatchObject({ code: 0, err: '' });
    expect(applied.out).toContain(`Added a starting sandbox profile for filesystem to ${policy}: review what it grants (unwrap leaves it in place).`);
    const after = readFileSync(policy, 'utf8');
    expect(after.startsWith(POLICY_YAML)).toBe(true);
    expect(after.slice(POLICY_YAML.length)).toMatch(/^ {2}# Starting sandbox profile[^\n]*\n {2}x-silas-sandbox:\n {4}filesystem:\n/);
    expect((await runSilas(['policy', 'validate', policy])).code).toBe(0);
  });

  it('with a shared --policy, prints the profile to add by hand and leaves the policy as it is', async () => {
    const { file, home, policy } = setup();
    const result = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--server', 'github', '--yes']);
    expect(result.code).toBe(0);
    expect(result.out).toContain(`Sandbox profile for github (${policy}):\n`);
    expect(result.out).toContain(`  add this to ${policy} under spec: (it is not the server's own policy, so silas does not edit it):\n    x-silas-sandbox:\n`);
    expect(result.out).not.toContain(`+++ ${policy}`);
    expect(readFileSync(policy, 'utf8')).toBe(POLICY_YAML);
  });

  it('refuses a policy that does not exist or does not load', async () => {
    const { dir, file, home } = setup();
    const absent = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--home', home, '--policy', join(dir, 'nope.yaml'), '--yes']);
    expect(absent).toMatchObject({ code: 1, err: expect.stringContaining('does not exist') });
    writeFileSync(join(dir, 'bad.yaml'), 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nspec:\n  tools: []\n');
    const bad = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--home', home, '--policy', join(dir, 'bad.yaml'), '--yes']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/bad\.yaml is not valid[\s\S]*bad\.yaml:\d+:\d+/);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('asks for --yes when stdin is not a terminal, and writes nothing without it', async () => {
    const { file, home, policy } = setup();
    const result = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home]);
    expect(result.code).toBe(1);
    expect(result.out).toContain('+++');
    expect(result.err).toContain('--yes');
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(backups(file)).toEqual([]);
  });

  it.each([
    ['y', 0, true],
    ['n', 1, false],
  ])('asks on a terminal; answering %s', async (answer, code, written) => {
    const { file, home, policy } = setup();
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const out: string[] = [];
    const run = clientsCommand.run(['wrap', 'claude', '--config', file, '--policy', policy, '--home', home], { out: (t) => out.push(t), err: (t) => out.push(t), env: {}, stdin }, commandOpener({}));
    stdin.write(`${answer}\n`);
    expect(await run).toBe(code);
    expect(out.join('\n')).toContain(`Write these changes to ${file}? [y/N]`);
    expect(readFileSync(file, 'utf8') !== CLAUDE_CONFIG).toBe(written);
    expect(backups(file)).toHaveLength(written ? 1 : 0);
  });

  it('a remote server named with --server is refused with the reason', async () => {
    const { file, home, policy } = setup();
    const result = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--server', 'linear', '--yes']);
    expect(result.code).toBe(1);
    expect(result.out).toContain('not wrapped: linear: remote servers (url) are not stdio; the proxy relays stdio only');
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('unknown clients, servers and subcommands are usage errors (exit 2) listing the known ones', async () => {
    const { file, home, policy } = setup();
    const client = await runSilas(['clients', 'wrap', 'emacs', '--config', file]);
    expect(client).toMatchObject({ code: 2, err: expect.stringContaining('unknown client "emacs"; known clients: claude-desktop (or claude), cursor, vscode (or code), windsurf') });
    const server = await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--server', 'gitlab']);
    expect(server).toMatchObject({ code: 2, err: expect.stringContaining(`no server "gitlab" in ${file}; its servers: "filesystem", "github", "mémoire 📝", "sqlite", "linear"`) });
    expect(await runSilas(['clients', 'wrap'])).toMatchObject({ code: 2, err: expect.stringContaining('name the client') });
    expect(await runSilas(['clients'])).toMatchObject({ code: 2 });
    expect(await runSilas(['clients', 'rewrap'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown clients command') });
    expect(await runSilas(['clients', 'wrap', 'claude', '--polcy', 'x'])).toMatchObject({ code: 2, err: expect.stringContaining('Usage: silas clients') });
    expect(await runSilas(['clients', 'unwrap', 'claude', '--server', 'github'])).toMatchObject({ code: 2, err: expect.stringContaining('--server goes with --force-entries') });
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('a missing configuration file names the file and the fix', async () => {
    const { dir, home, policy } = setup();
    const result = await runSilas(['clients', 'wrap', 'cursor', '--config', join(dir, 'absent.json'), '--policy', policy, '--home', home, '--yes']);
    expect(result.code).toBe(1);
    expect(result.err).toContain(`${join(dir, 'absent.json')} does not exist`);
    expect(result.err).toContain('--config FILE');
  });

  it('unwrap after later edits refuses, naming the backup; --force-entries restores just the entries', async () => {
    const { file, home, policy } = setup();
    await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--yes']);
    const [backup] = backups(file);
    writeFileSync(file, readFileSync(file, 'utf8').replace('Ctrl+Space', 'Alt+Space'));
    const refused = await runSilas(['clients', 'unwrap', 'claude', '--config', file, '--home', home]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('changed since silas wrapped it');
    expect(refused.err).toContain(join(dirname(file), backup!));
    expect(refused.err).toContain(`silas clients unwrap claude-desktop --config ${file} --home ${home} --force-entries`);
    const forced = await runSilas(['clients', 'unwrap', 'claude', '--config', file, '--home', home, '--force-entries']);
    expect(forced.code).toBe(0);
    expect(forced.out).toContain('Restored the command and args of "filesystem", "github", "mémoire 📝", "sqlite"');
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG.replace('Ctrl+Space', 'Alt+Space'));
  });
});

describe('silas clients list', () => {
  it('shows each server with transport, wrapped state and policy', async () => {
    const { file, home, policy } = setup();
    await runSilas(['clients', 'wrap', 'claude', '--config', file, '--policy', policy, '--home', home, '--server', 'github', '--yes']);
    const result = await runSilas(['clients', 'list', 'claude', '--config', file]);
    expect(result.code).toBe(0);
    expect(result.out.split('\n')).toEqual([
      `Claude Desktop (claude-desktop): ${file}`,
      '  filesystem  stdio   not wrapped',
      `  github      stdio   wrapped, policy ${policy}`,
      '  mémoire 📝  stdio   not wrapped',
      '  sqlite      stdio   not wrapped',
      '  linear      remote  not wrapped: remote servers (url) are not stdio; the proxy relays stdio only',
    ]);
    const json = await runSilas(['clients', 'list', '--config', file, '--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out);
    expect(parsed.clients).toHaveLength(1);
    expect(parsed.clients[0]).toMatchObject({ file, found: true, error: null });
    expect(parsed.clients[0].servers).toEqual([
      { name: 'filesystem', transport: 'stdio', wrapped: false, policy: null, note: null },
      { name: 'github', transport: 'stdio', wrapped: true, policy, note: null },
      { name: 'mémoire 📝', transport: 'stdio', wrapped: false, policy: null, note: null },
      { name: 'sqlite', transport: 'stdio', wrapped: false, policy: null, note: null },
      { name: 'linear', transport: 'remote', wrapped: false, policy: null, note: 'remote servers (url) are not stdio; the proxy relays stdio only' },
    ]);
  });

  it('without --config, looks at every client location under the user home', async () => {
    const userHome = tempDir();
    mkdirSync(join(userHome, '.cursor'));
    writeFileSync(join(userHome, '.cursor', 'mcp.json'), '{"mcpServers": {"docs": {"url": "https://example.com/mcp"}, "git": {"command": "uvx", "args": ["mcp-server-git"]}}}');
    mkdirSync(join(userHome, '.codeium', 'windsurf'), { recursive: true });
    writeFileSync(join(userHome, '.codeium', 'windsurf', 'mcp_config.json'), '{"mcpServers": {,}}');
    const env = { HOME: userHome, USERPROFILE: userHome, XDG_CONFIG_HOME: join(userHome, '.config'), APPDATA: join(userHome, 'AppData', 'Roaming') };
    const result = await runSilas(['clients', 'list', '--json'], { env });
    expect(result.code).toBe(0);
    const clients = JSON.parse(result.out).clients as Array<{ client: string; found: boolean; error: string | null; servers: unknown[] }>;
    expect(clients.map((c) => [c.client, c.found])).toEqual([
      ['claude-desktop', false],
      ['cursor', true],
      ['vscode', false],
      ['windsurf', true],
    ]);
    expect(clients[1]!.servers).toEqual([
      { name: 'docs', transport: 'remote', wrapped: false, policy: null, note: 'remote servers (url) are not stdio; the proxy relays stdio only' },
      { name: 'git', transport: 'stdio', wrapped: false, policy: null, note: null },
    ]);
    expect(clients[3]!.error).toContain('not valid JSON');
    const text = await runSilas(['clients', 'list'], { env });
    expect(text.out).toContain('Claude Desktop (claude-desktop): not found at');
    expect(text.out).toContain(`Cursor (cursor): ${join(userHome, '.cursor', 'mcp.json')}`);
    expect(text.out).toMatch(/Windsurf \(windsurf\): .*\n {2}cannot read: .*not valid JSON/);
  });

  it('a named file that is missing is a failure', async () => {
    const dir = tempDir();
    const result = await runSilas(['clients', 'list', 'cursor', '--config', join(dir, 'none.json')]);
    expect(result.code).toBe(1);
    expect(result.err).toContain('does not exist');
  });
});
