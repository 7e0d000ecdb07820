import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { unifiedDiff } from './diff.js';
import { parseClientConfig, parseProxyInvocation, withProxyClient } from './entries.js';
import { readManifest } from './files.js';
import { findClient, type ClientSpec } from './locations.js';
import { applyUnwrap, applyWrap, loadConfig, planUnwrap, planUnwrapEntries, planWrap, type WrapOptions } from './operations.js';
import { CLAUDE_CONFIG, STDIO_SERVERS, writePolicy } from './testing/fixtures.js';

const tempDir = useTempDirs('silas-clients-');
const claude = findClient('claude-desktop')!;
const vscode = findClient('vscode')!;
const runtime = { node: '/opt/node/bin/node', bin: '/opt/silas/bin/silas.js' };
const NOW = new Date('2026-03-01T09:15:30.123Z');

function setup(text: string, name = 'claude_desktop_config.json') {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, text);
  const home = join(dir, 'home');
  const policy = writePolicy(dir);
  const options: WrapOptions = { policy, silasHome: home, homeInCommandLine: false, runtime };
  return { dir, file, home, policy, options };
}

function wrapFile(client: ClientSpec, file: string, options: WrapOptions, now = NOW) {
  const plan = planWrap(loadConfig(client, file), options);
  return { plan, result: applyWrap(plan, options.silasHome, now) };
}

function unwrapFile(client: ClientSpec, file: string, home: string) {
  const plan = planUnwrap(loadConfig(client, file), home, 'silas clients unwrap');
  applyUnwrap(plan, home, NOW, { backupFirst: false });
  return plan;
}

describe('wrapping a configuration', () => {
  it('rewrites only command and args, in the proxy form, and round-trips byte for byte', () => {
    const { file, home, policy, options } = setup(CLAUDE_CONFIG);
    const { plan, result } = wrapFile(claude, file, options);
    expect(plan.wrapped.map((w) => w.name)).toEqual(STDIO_SERVERS);
    expect(plan.skipped).toEqual([{ name: 'linear', reason: 'remote servers (url) are not stdio; the proxy relays stdio only' }]);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    const before = JSON.parse(CLAUDE_CONFIG);
    expect(after.mcpServers.github).toEqual({
      command: runtime.node,
      args: [runtime.bin, 'proxy', '--name', 'github', '--policy', policy, '--client', 'claude-desktop', '--', 'npx', '-y', '@modelcontextprotocol/server-github'],
      env: before.mcpServers.github.env,
    });
    expect(after.mcpServers['mémoire 📝'].args).toEqual([runtime.bin, 'proxy', '--name', 'mémoire 📝', '--policy', policy, '--client', 'claude-desktop', '--', '/usr/local/bin/memory-server']);
    expect(after.mcpServers.linear).toEqual(before.mcpServers.linear);
    expect(after.globalShortcut).toBe('Ctrl+Space');
    // Key order and layout: the one-line args stay on one line, the multi-line ones stay one per line.
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`      "args": ["${runtime.bin}", "proxy", "--name", "github"`);
    expect(text).toContain(`      "args": [\n        "${runtime.bin}",\n        "proxy",`);
    expect(text).toContain(`      "command": "${runtime.node}",\n      "args": ["${runtime.bin}", "proxy", "--name", "mémoire 📝"`);
    expect(Object.keys(after.mcpServers)).toEqual(Object.keys(before.mcpServers));
    expect(readFileSync(result.backup, 'utf8')).toBe(CLAUDE_CONFIG);
    unwrapFile(claude, file, home);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(readManifest(home).wraps).toEqual([]);
  });

  it.each([
    ['tabs and CRLF', CLAUDE_CONFIG.replace(/ {2}/g, '\t').replace(/\n/g, '\r\n')],
    ['4-space indent, no trailing newline', CLAUDE_CONFIG.replace(/ {2}/g, '    ').trimEnd()],
    ['a UTF-8 byte-order mark', `\uFEFF${CLAUDE_CONFIG}`],
    ['compact one-line JSON', JSON.stringify(JSON.parse(CLAUDE_CONFIG))],
  ])('keeps %s, and unwrap restores the bytes', (_label, text) => {
    const { file, home, options } = setup(text);
    const original = readFileSync(file);
    wrapFile(claude, file, options);
    const wrapped = readFileSync(file, 'utf8');
    if (text.includes('\r\n')) expect(wrapped.replace(/\r\n/g, '')).not.toContain('\n');
    if (text.includes('\t')) expect(wrapped).not.toMatch(/^ +"/m);
    expect(wrapped.startsWith('\uFEFF')).toBe(text.startsWith('\uFEFF'));
    expect(wrapped.endsWith('\n')).toBe(text.endsWith('\n'));
    expect(parseClientConfig(wrapped, claude).servers.filter((s) => s.wrapped).map((s) => s.name)).toEqual(STDIO_SERVERS);
    unwrapFile(claude, file, home);
    expect(readFileSync(file).equals(original)).toBe(true);
  });

  it('handles VS Code mcp.json with comments and trailing commas, which survive untouched', () => {
    const text = `// My MCP servers
{
  "inputs": [{"type": "promptString", "id": "token", "password": true}],
  "servers": {
    /* local files */
    "files": {
      "type": "stdio",
      "command": "npx", // pinned below
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}",],
    },
    "remote": {"type": "http", "url": "https://example.com/mcp"},
  },
}
`;
    const { file, home, policy, options } = setup(text, 'mcp.json');
    expect(() => loadConfig(claude, file)).toThrow(/comments are not allowed/);
    const { plan } = wrapFile(vscode, file, options);
    expect(plan.wrapped.map((w) => w.name)).toEqual(['files']);
    const wrapped = readFileSync(file, 'utf8');
    expect(wrapped).toContain('"command": "/opt/node/bin/node", // pinned below');
    expect(wrapped).toContain('/* local files */');
    expect(wrapped).toContain(`"args": ["${runtime.bin}", "proxy", "--name", "files", "--policy", "${policy}", "--client", "vscode", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "\${workspaceFolder}"],`);
    unwrapFile(vscode, file, home);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('reads VS Code servers under mcp.servers in a settings.json', () => {
    const text = '{\n  "editor.fontSize": 14,\n  "mcp": {\n    "servers": {\n      "git": {"command": "uvx", "args": ["mcp-server-git"]}\n    }\n  }\n}\n';
    const { file, options } = setup(text, 'settings.json');
    const { plan } = wrapFile(vscode, file, options);
    expect(plan.wrapped.map((w) => w.name)).toEqual(['git']);
    expect(JSON.parse(readFileSync(file, 'utf8'))['editor.fontSize']).toBe(14);
  });

  it('never double-wraps, and a second wrap of other entries chains so unwrap still restores the original', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    wrapFile(claude, file, { ...options, servers: ['github'] });
    const once = readFileSync(file);
    const again = planWrap(loadConfig(claude, file), { ...options, servers: ['github'] });
    expect(again.wrapped).toEqual([]);
    expect(again.skipped[0]).toMatchObject({ name: 'github', reason: expect.stringContaining('already runs through silas proxy') });
    expect(again.after).toBe(once.toString('utf8'));
    wrapFile(claude, file, options, new Date(NOW.getTime() + 1000));
    expect(readManifest(home).wraps.map((r) => r.servers)).toEqual([['github'], ['filesystem', 'mémoire 📝', 'sqlite']]);
    const plan = unwrapFile(claude, file, home);
    expect(plan.restored.sort()).toEqual([...STDIO_SERVERS].sort());
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('never overwrites a backup: a taken name gets a numeric suffix', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    const stem = `${file}.silas-backup-2026-03-01T091530.123Z`;
    writeFileSync(stem, 'an older backup');
    const { result } = wrapFile(claude, file, options);
    expect(result.backup).toBe(`${stem}-2`);
    expect(readFileSync(stem, 'utf8')).toBe('an older backup');
    unwrapFile(claude, file, home);
    const second = wrapFile(claude, file, options);
    expect(second.result.backup).toBe(`${stem}-3`);
    expect(readFileSync(`${stem}-2`, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('keeps the file mode, and keeps a symbolic link a link', () => {
    const { dir, file, home, options } = setup(CLAUDE_CONFIG);
    chmodSync(file, 0o600);
    mkdirSync(join(dir, 'dotfiles'));
    const real = join(dir, 'dotfiles', 'claude.json');
    writeFileSync(real, CLAUDE_CONFIG);
    chmodSync(real, 0o640);
    const link = join(dir, 'link.json');
    symlinkSync(real, link);
    const { result } = wrapFile(claude, file, options);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(result.backup).mode & 0o777).toBe(0o600);
    wrapFile(claude, link, options);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(statSync(real).mode & 0o777).toBe(0o640);
    expect(readFileSync(real, 'utf8')).toContain('"proxy"');
    unwrapFile(claude, link, home);
    expect(readFileSync(real, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(readdirSync(join(dir, 'dotfiles'))).toEqual(['claude.json']);
  });

  it('refuses to write when the file changed between reading and writing', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    const plan = planWrap(loadConfig(claude, file), options);
    writeFileSync(file, CLAUDE_CONFIG.replace('Ctrl+Space', 'Alt+Space'));
    expect(() => applyWrap(plan, home, NOW)).toThrow(/changed while silas was editing it/);
    expect(readFileSync(file, 'utf8')).toContain('Alt+Space');
    expect(existsSync(join(home, 'clients', 'wraps.json'))).toBe(false);
  });

  it('puts --home into the command line when asked', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    wrapFile(claude, file, { ...options, homeInCommandLine: true, servers: ['sqlite'] });
    const args = JSON.parse(readFileSync(file, 'utf8')).mcpServers.sqlite.args as string[];
    expect(args.slice(4, 11)).toEqual(['--policy', options.policy, '--home', home, '--client', 'claude-desktop', '--']);
    expect(args.slice(11)).toEqual(['uvx', 'mcp-server-sqlite', '--db-path', 'C:\\data\\test.db']);
  });
});

describe('unwrapping', () => {
  it('refuses a file restore after later edits, and an altered backup', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    const { result } = wrapFile(claude, file, options);
    const wrapped = readFileSync(file, 'utf8');
    writeFileSync(file, wrapped.replace('Ctrl+Space', 'Alt+Space'));
    expect(() => planUnwrap(loadConfig(claude, file), home, 'silas clients unwrap claude-desktop')).toThrow(
      new RegExp(`changed since silas wrapped it[\\s\\S]*${result.backup.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\\s\\S]*--force-entries`),
    );
    writeFileSync(file, wrapped);
    writeFileSync(result.backup, CLAUDE_CONFIG.replace('github', 'gitlab'));
    expect(() => planUnwrap(loadConfig(claude, file), home, 'x')).toThrow(/is not the file silas saved/);
    expect(readFileSync(file, 'utf8')).toBe(wrapped);
  });

  it('restores entries from the backup verbatim with --force-entries, keeping other edits', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    wrapFile(claude, file, options);
    const edited = readFileSync(file, 'utf8').replace('Ctrl+Space', 'Alt+Space');
    writeFileSync(file, edited);
    const plan = planUnwrapEntries(loadConfig(claude, file), home);
    expect(plan.restored).toEqual(STDIO_SERVERS);
    expect(plan.notes).toEqual([]);
    const result = applyUnwrap(plan, home, NOW, { backupFirst: true });
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG.replace('Ctrl+Space', 'Alt+Space'));
    expect(readFileSync(result.safetyBackup!, 'utf8')).toBe(edited);
    expect(readManifest(home).wraps).toEqual([]);
  });

  it('rebuilds entries from the proxy command line when no backup is recorded', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    wrapFile(claude, file, { ...options, silasHome: join(home, '..', 'other-home'), servers: ['github', 'sqlite'] });
    const plan = planUnwrapEntries(loadConfig(claude, file), home, ['github']);
    expect(plan.restored).toEqual(['github']);
    expect(plan.notes[0]).toContain('rebuilt from the proxy command line');
    applyUnwrap(plan, home, NOW, { backupFirst: false });
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.mcpServers.github).toEqual(JSON.parse(CLAUDE_CONFIG).mcpServers.github);
    expect(after.mcpServers.sqlite.args[1]).toBe('proxy');
  });

  it('without any record, a file restore says how to proceed', () => {
    const { file, home } = setup(CLAUDE_CONFIG);
    expect(() => planUnwrap(loadConfig(claude, file), home, 'silas clients unwrap claude-desktop')).toThrow(/no wrap of .* is recorded[\s\S]*--home[\s\S]*--force-entries/);
  });
});

describe('recognising silas proxy', () => {
  it.each([
    [['/usr/bin/node', ['/opt/silas/bin/silas.js', 'proxy', '--name', 'a', '--policy', '/p.yaml', '--', 'npx', '-y', 'x']]],
    [['silas', ['proxy', '--policy=/p.yaml', '--name=a', '--', 'npx', '-y', 'x']]],
    [['C:\\Program Files\\nodejs\\node.exe', ['C:\\silas\\bin\\silas.js', 'proxy', '--name', 'a', '--policy', '/p.yaml', '--', 'npx', '-y', 'x']]],
    [['npx', ['-y', 'silas', 'proxy', '--name', 'a', '--policy', '/p.yaml', '--', 'npx', '-y', 'x']]],
  ] as const)('%j', ([command, args]) => {
    expect(parseProxyInvocation(command, args)).toEqual({ name: 'a', policy: '/p.yaml', original: { command: 'npx', args: ['-y', 'x'] } });
  });

  it('does not mistake other commands', () => {
    expect(parseProxyInvocation('npx', ['-y', '@modelcontextprotocol/server-filesystem', 'proxy'])).toBeUndefined();
    expect(parseProxyInvocation('silas-mcp', ['proxy'])).toBeUndefined();
    expect(parseProxyInvocation('silas', ['start'])).toBeUndefined();
    expect(parseProxyInvocation('silas', ['proxy', '--policy', 'p', '--target', 'npx -y x'])).toEqual({ policy: 'p', target: 'npx -y x' });
  });

  it('tells a wrapped entry\'s proxy who calls it (Silas starting a connected server)', () => {
    const node = ['/opt/silas/bin/silas.js', 'proxy', '--name', 'a', '--client', 'claude-desktop', '--policy', '/p.yaml', '--', 'npx', '-y', 'x', '--client', 'y'];
    expect(withProxyClient('/usr/bin/node', node, 'silas')).toEqual(['/opt/silas/bin/silas.js', 'proxy', '--client', 'silas', '--name', 'a', '--policy', '/p.yaml', '--', 'npx', '-y', 'x', '--client', 'y']);
    expect(withProxyClient('silas', ['proxy', '--client=cursor', '--name', '--client', '--policy', '/p.yaml', '--', 'x'], 'silas')).toEqual(['proxy', '--client', 'silas', '--name', '--client', '--policy', '/p.yaml', '--', 'x']);
    expect(withProxyClient('npx', ['-y', 'silas', 'proxy', '--target', 'npx -y x'], 'silas')).toEqual(['-y', 'silas', 'proxy', '--client', 'silas', '--target', 'npx -y x']);
    expect(parseProxyInvocation('silas', withProxyClient('silas', ['proxy', '--client', 'cursor', '--policy', '/p.yaml', '--', 'x'], 'silas')!)).toMatchObject({ client: 'silas', policy: '/p.yaml' });
    expect(withProxyClient('npx', ['-y', 'server-filesystem'], 'silas')).toBeUndefined();
  });
});

describe('unified diff', () => {
  it('shows changed lines with context and hunk headers', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n');
    const after = before.replace('b', 'B').replace('k', 'K1\nK2');
    expect(unifiedDiff(before, after, 'x', 'y')).toBe(
      ['--- x', '+++ y', '@@ -1,5 +1,5 @@', ' a', '-b', '+B', ' c', ' d', ' e', '@@ -8,5 +8,6 @@', ' h', ' i', ' j', '-k', '+K1', '+K2', ' l'].join('\n'),
    );
    expect(unifiedDiff('same', 'same', 'x', 'y')).toBe('');
  });
});
