import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exportedAudit, writePolicy } from './fixtures/mcp-proxy.js';
import { SILAS_BIN } from './fixtures/silas-runtime.js';
import { expect, test } from './fixtures/silas-runtime-env.js';
import { mainNav, openCockpit } from './fixtures/test.js';

/** A Claude Desktop configuration as people have them: two stdio servers (one with env), one remote, another setting. */
const CONFIG = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/home/alex/Documents"
      ]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"
      }
    },
    "linear": {
      "type": "http",
      "url": "https://mcp.linear.app/mcp"
    }
  },
  "globalShortcut": "Ctrl+Space"
}
`;

test('wrap a Claude Desktop configuration from the Servers page, then unwrap it byte for byte', async ({ page, silas, userHome, browserProblems }) => {
  const file = join(userHome, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, CONFIG);
  const original = readFileSync(file);
  const policy = writePolicy(userHome, 'workstation', '  allowed_tools: [read_file]\n');

  await openCockpit(page, silas);
  await mainNav(page).getByRole('link', { name: /^Servers/ }).click();
  const clients = page.getByRole('region', { name: 'Agent clients' });
  const claude = clients.getByRole('region', { name: 'Claude Desktop' });
  await expect(claude).toContainText(file);
  const rows = claude.getByRole('table', { name: 'MCP servers of Claude Desktop' }).getByRole('row');
  await expect(rows).toHaveText([/Server/, /filesystem\s*stdio\s*Not wrapped/, /github\s*stdio\s*Not wrapped/, /linear\s*remote \(HTTP\)\s*Not wrappable: remote servers/]);

  // A relative policy path is refused inline by the runtime; nothing is written.
  await claude.getByRole('button', { name: 'Wrap servers…' }).click();
  const flow = claude.getByRole('group', { name: 'Wrap servers of Claude Desktop' });
  const input = flow.getByRole('textbox', { name: 'Policy file' });
  await input.fill('workstation.yaml');
  await flow.getByRole('button', { name: 'Preview changes' }).click();
  await expect(flow.getByRole('alert')).toContainText('"workstation.yaml" is a relative path; give its full path');
  await expect(input).toHaveAttribute('aria-invalid', 'true');

  // Preview: the exact diff, and Apply with its consequence.
  await input.fill(policy);
  await flow.getByRole('button', { name: 'Preview changes' }).click();
  const diff = flow.getByLabel(`Diff of ${file}`, { exact: true });
  await expect(diff).toContainText(`--- ${file}`);
  // One policy for both servers: each one's starting sandbox is proposed as a note, not written into it.
  await expect(flow.getByRole('region', { name: 'Sandbox profiles' })).toContainText('x-silas-sandbox');
  await expect(diff).toContainText(`+      "command": "${process.execPath}",`);
  await expect(diff).toContainText('"DBUS_SESSION_BUS_ADDRESS"');
  expect(readFileSync(file).equals(original)).toBe(true);
  const apply = flow.getByRole('button', { name: 'Apply' });
  await expect(apply).toHaveAccessibleDescription(`Rewrites ${file}; a backup is kept; Unwrap restores it byte for byte`);
  await apply.click();

  await expect(claude.getByRole('status')).toContainText(`Wrapped 2 servers in ${file}. Backup: ${file}.silas-backup-`);
  await expect(rows.nth(1)).toContainText(`Wrapped — policy ${policy}`);
  await expect(rows.nth(3)).toContainText('Not wrappable');

  // The file now starts both stdio servers through silas proxy; the remote one and the rest are untouched.
  const wrapped = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, { command?: string; args?: string[]; env?: unknown; url?: string }>; globalShortcut: string };
  for (const [name, rest] of [
    ['filesystem', ['npx', '-y', '@modelcontextprotocol/server-filesystem', '/home/alex/Documents']],
    ['github', ['npx', '-y', '@modelcontextprotocol/server-github']],
  ] as const) {
    expect(wrapped.mcpServers[name]!.command).toBe(process.execPath);
    expect(wrapped.mcpServers[name]!.args).toEqual([SILAS_BIN, 'proxy', '--name', name, '--policy', policy, '--home', silas.home, '--client', 'claude-desktop', '--', ...rest]);
  }
  // Each wrapped entry also carries the session bus the keyring answers on, since the client passes its
  // children only a few variables (docs/mcp-proxy.md "Starting under any client"); the person's own stay.
  const bus = process.env.DBUS_SESSION_BUS_ADDRESS!;
  expect(wrapped.mcpServers.filesystem!.env).toEqual({ DBUS_SESSION_BUS_ADDRESS: bus });
  expect(wrapped.mcpServers.github!.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>', DBUS_SESSION_BUS_ADDRESS: bus });
  expect(wrapped.mcpServers.linear).toEqual({ type: 'http', url: 'https://mcp.linear.app/mcp' });
  expect(wrapped.globalShortcut).toBe('Ctrl+Space');
  const backups = readdirSync(dirname(file)).filter((name) => name.startsWith('claude_desktop_config.json.silas-backup-'));
  expect(backups).toHaveLength(1);
  expect(readFileSync(join(dirname(file), backups[0]!)).equals(original)).toBe(true);
  const audit = await exportedAudit(silas);
  expect(audit.filter((e) => e.event === 'mcp.client_wrapped')).toEqual([expect.objectContaining({ client: 'claude-desktop', file, servers: ['filesystem', 'github'], backup: join(dirname(file), backups[0]!) })]);

  // Unwrap from the page: the file is byte-identical to the original.
  const unwrap = claude.getByRole('button', { name: 'Unwrap' });
  await expect(unwrap).toHaveAccessibleDescription(`Restores ${file} exactly as it was before wrapping`);
  await unwrap.click();
  await expect(claude.getByRole('status')).toContainText(`Restored ${file} byte for byte from ${join(dirname(file), backups[0]!)}`);
  await expect(rows.nth(1)).toContainText('Not wrapped');
  await expect(claude.getByRole('button', { name: 'Unwrap' })).toHaveCount(0);
  expect(readFileSync(file).equals(original)).toBe(true);
  expect((await exportedAudit(silas)).some((e) => e.event === 'mcp.client_unwrapped' && e.file === file)).toBe(true);
  expect(browserProblems).toEqual([]);
});
