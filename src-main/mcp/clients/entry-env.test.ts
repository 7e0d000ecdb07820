import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../testing/temp.js';
import { proxyEnvironment } from './entry-env.js';
import { readManifest } from './files.js';
import { findClient } from './locations.js';
import { applyUnwrap, applyWrap, loadConfig, planUnwrap, planUnwrapEntries, planWrap, type WrapOptions } from './operations.js';
import { CLAUDE_CONFIG, writePolicy } from './testing/fixtures.js';

// docs/mcp-proxy.md "Starting under any client": wrap writes the session bus of the wrapping
// session into each wrapped entry's env, keeps the person's own variables, shows it in the
// preview, and unwrap takes back exactly what it added.

const tempDir = useTempDirs('silas-entry-env-');
const claude = findClient('claude-desktop')!;
const vscode = findClient('vscode')!;
const runtime = { node: '/opt/node/bin/node', bin: '/opt/silas/bin/silas.js' };
const NOW = new Date('2026-03-01T09:15:30.123Z');
const BUS = 'unix:path=/run/user/1000/bus';

function setup(text: string, name = 'claude_desktop_config.json') {
  const dir = tempDir();
  const file = join(dir, name);
  writeFileSync(file, text);
  const home = join(dir, 'home');
  const options: WrapOptions = { policy: writePolicy(dir), silasHome: home, homeInCommandLine: false, runtime, proxyEnv: { DBUS_SESSION_BUS_ADDRESS: BUS } };
  return { file, home, options };
}

describe('the environment a wrapped entry carries for its proxy', () => {
  it('is the session bus address on Linux when it is a socket address, and nothing otherwise', () => {
    expect(proxyEnvironment({ DBUS_SESSION_BUS_ADDRESS: BUS }, 'linux')).toEqual({ DBUS_SESSION_BUS_ADDRESS: BUS });
    expect(proxyEnvironment({ DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-x,guid=1' }, 'linux')).toEqual({ DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-x,guid=1' });
    expect(proxyEnvironment({ DBUS_SESSION_BUS_ADDRESS: 'tcp:host=localhost,port=1' }, 'linux')).toEqual({});
    expect(proxyEnvironment({}, 'linux')).toEqual({});
    expect(proxyEnvironment({ DBUS_SESSION_BUS_ADDRESS: BUS }, 'darwin')).toEqual({});
  });

  it('is added to each wrapped entry, inside its own env or as a new one, shown in the diff and recorded', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    const plan = planWrap(loadConfig(claude, file), options);
    expect(plan.diff).toContain(`+        "DBUS_SESSION_BUS_ADDRESS": "${BUS}"`);
    const { record } = applyWrap(plan, home, NOW);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    const before = JSON.parse(CLAUDE_CONFIG);
    expect(after.mcpServers.github.env).toEqual({ ...before.mcpServers.github.env, DBUS_SESSION_BUS_ADDRESS: BUS });
    expect(after.mcpServers.filesystem.env).toEqual({ DBUS_SESSION_BUS_ADDRESS: BUS });
    expect(after.mcpServers.linear).toEqual(before.mcpServers.linear);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`"GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>",\n        "DBUS_SESSION_BUS_ADDRESS": "${BUS}"\n      }`);
    expect(text).toContain(`],\n      "env": {\n        "DBUS_SESSION_BUS_ADDRESS": "${BUS}"\n      }\n    },`);
    expect(record.env?.github).toEqual({ vars: { DBUS_SESSION_BUS_ADDRESS: BUS }, created: false });
    expect(record.env?.filesystem).toEqual({ vars: { DBUS_SESSION_BUS_ADDRESS: BUS }, created: true });
    // The whole file comes back byte for byte.
    applyUnwrap(planUnwrap(loadConfig(claude, file), home, 'silas clients unwrap'), home, NOW, { backupFirst: false });
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it("never changes the person's own value of a variable", () => {
    const text = `{"mcpServers": {"mine": {"command": "srv", "env": {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/home/ada/bus"}}}}`;
    const { file, home, options } = setup(text);
    const plan = planWrap(loadConfig(claude, file), options);
    expect(plan.env).toEqual({});
    applyWrap(plan, home, NOW);
    expect(JSON.parse(readFileSync(file, 'utf8')).mcpServers.mine.env).toEqual({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/home/ada/bus' });
  });

  it('an entry unwrap removes exactly what wrap added: the person\'s variables and later edits stay', () => {
    const { file, home, options } = setup(CLAUDE_CONFIG);
    applyWrap(planWrap(loadConfig(claude, file), options), home, NOW);
    // The person adds a variable of their own to the created env afterwards, and changes nothing else.
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    edited.mcpServers.sqlite.env.SQLITE_MODE = 'ro';
    edited.globalShortcut = 'Ctrl+Alt+Space';
    writeFileSync(file, JSON.stringify(edited, null, 2));
    const plan = planUnwrapEntries(loadConfig(claude, file), home);
    expect(plan.diff).toContain(`-        "DBUS_SESSION_BUS_ADDRESS": "${BUS}"`);
    applyUnwrap(plan, home, NOW, { backupFirst: true });
    const after = JSON.parse(readFileSync(file, 'utf8'));
    const before = JSON.parse(CLAUDE_CONFIG);
    expect(after.mcpServers.github).toEqual(before.mcpServers.github);
    expect(after.mcpServers.filesystem).toEqual(before.mcpServers.filesystem);
    expect(after.mcpServers['mémoire 📝']).toEqual(before.mcpServers['mémoire 📝']);
    expect(after.mcpServers.sqlite).toEqual({ ...before.mcpServers.sqlite, env: { SQLITE_MODE: 'ro' } });
    expect(after.globalShortcut).toBe('Ctrl+Alt+Space');
    expect(readManifest(home).wraps).toEqual([]);
  });

  it('goes into a VS Code mcp.json (JSONC) entry too, comments kept', () => {
    const text = `{\n  // mine\n  "servers": {\n    "files": {"type": "stdio", "command": "npx", "args": ["-y", "srv"],},\n  },\n}\n`;
    const { file, home, options } = setup(text, 'mcp.json');
    applyWrap(planWrap(loadConfig(vscode, file), options), home, NOW);
    const wrapped = readFileSync(file, 'utf8');
    expect(wrapped).toContain('// mine');
    expect(wrapped).toContain(`, "env": { "DBUS_SESSION_BUS_ADDRESS": "${BUS}" },}`);
    applyUnwrap(planUnwrapEntries(loadConfig(vscode, file), home), home, NOW, { backupFirst: false });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
