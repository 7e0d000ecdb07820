import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../../aip/policy/load.js';
import { policyText } from '../../aip/policy/testing/policy.js';
import { renderSection } from './policy-sandbox.js';
import { deriveSandboxProfile, NO_PROFILE_NOTE, type ProfileEntry } from './sandbox-profile.js';

const NPX = { write: ['~/.npm'], hosts: ['registry.npmjs.org'] };
const UVX = { write: ['~/.cache/uv'], hosts: ['pypi.org', 'files.pythonhosted.org'] };

const entry = (command: string, args: string[] = [], env?: Record<string, string>): ProfileEntry => ({ command, args, ...(env ? { env } : {}) });

/** The section as the proxy will read it: inside a policy, through the loader and its schema. */
function loadedSandbox(section: Record<string, unknown>) {
  const result = loadPolicyText(policyText(`${renderSection(section, 2).join('\n')}\n`));
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('; '));
  return result.policy.sandbox;
}

describe('deriveSandboxProfile', () => {
  it.each([
    ['npx -y', entry('npx', ['-y', '@modelcontextprotocol/server-filesystem', '/srv/a', '/srv/b']), { filesystem: { write: ['/srv/a', '/srv/b', ...NPX.write] }, network: { mode: 'hosts', hosts: NPX.hosts } }],
    ['npx with a version', entry('npx', ['@modelcontextprotocol/server-filesystem@2025.1.14', '/srv/a']), { filesystem: { write: ['/srv/a', ...NPX.write] }, network: { mode: 'hosts', hosts: NPX.hosts } }],
    ['node and its installed script', entry('/usr/bin/node', ['/opt/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '/srv/a']), { filesystem: { write: ['/srv/a'] } }],
    ['its bin name', entry('/usr/local/bin/mcp-server-filesystem', ['/srv/a']), { filesystem: { write: ['/srv/a'] } }],
    ['cmd /c npx on Windows', entry('cmd', ['/c', 'npx', '-y', '@modelcontextprotocol/server-filesystem', 'C:\\data']), { filesystem: { write: ['C:\\data', ...NPX.write] }, network: { mode: 'hosts', hosts: NPX.hosts } }],
  ])('filesystem server through %s: its directories are writable', (_how, server, section) => {
    const profile = deriveSandboxProfile(server);
    expect(profile.section).toEqual(section);
    expect(profile.notes[0]).toBe(`recognised @modelcontextprotocol/server-filesystem${server.command === '/usr/bin/node' || server.command.endsWith('filesystem') ? '' : ' (started with npx)'}`);
    expect(profile.notes.join('\n')).toMatch(/may read and write the directories it is given: .*\/srv\/a|C:\\data/);
    expect(loadedSandbox(profile.section!)!.filesystem!.write).toEqual((section.filesystem as { write: string[] }).write);
  });

  it.each([
    ['uvx', entry('uvx', ['mcp-server-git', '--repository', '/src/app']), { filesystem: { write: ['/src/app', ...UVX.write] }, network: { mode: 'hosts', hosts: UVX.hosts } }],
    ['python -m', entry('python3', ['-m', 'mcp_server_git', '-r', '/src/app']), { filesystem: { write: ['/src/app'] } }],
    ['npx', entry('npx', ['-y', '@modelcontextprotocol/server-git', '--repository=/src/app']), { filesystem: { write: ['/src/app', ...NPX.write] }, network: { mode: 'hosts', hosts: NPX.hosts } }],
    ['its bin name', entry('mcp-server-git', ['-r', '/src/app']), { filesystem: { write: ['/src/app'] } }],
  ])('git server through %s: the repository is writable', (_how, server, section) => {
    const profile = deriveSandboxProfile(server);
    expect(profile.section).toEqual(section);
    expect(profile.notes).toContain('may read and write the repository /src/app');
    expect(loadedSandbox(profile.section!)).toMatchObject(section);
  });

  it('resolves a relative path against the working directory, and says so when there is none', () => {
    const server = entry('uvx', ['mcp-server-git', '--repository', '.']);
    expect(deriveSandboxProfile(server, { cwd: '/src/app' }).section).toMatchObject({ filesystem: { write: ['/src/app', '~/.cache/uv'] } });
    const unknownCwd = deriveSandboxProfile(server);
    expect(unknownCwd.section).toMatchObject({ filesystem: { write: ['~/.cache/uv'] } });
    expect(unknownCwd.notes).toContain('"." is a relative path and where the client starts the server is unknown: list its full path under filesystem.write');
  });

  it('never grants the whole home folder or /, and says what to do instead', () => {
    const profile = deriveSandboxProfile(entry('mcp-server-filesystem', ['/home/ada', '/', '/home/ada/notes']), { home: '/home/ada' });
    expect(profile.section).toEqual({ filesystem: { write: ['/home/ada/notes'] } });
    expect(profile.notes.filter((n) => n.includes('which a sandbox never grants'))).toHaveLength(2);
  });

  it('never proposes what the sandbox would refuse at start: a shared socket folder, the home written as ~/.', () => {
    const profile = deriveSandboxProfile(entry('mcp-server-filesystem', ['/tmp', '/run/', '~/.', '/tmp/scratch']), { home: '/home/ada' });
    expect(profile.section).toEqual({ filesystem: { write: ['/tmp/scratch'] } });
    expect(profile.notes.filter((n) => n.includes('which a sandbox never grants'))).toHaveLength(3);
  });

  it('uv run --directory: the project uv syncs is writable too', () => {
    const profile = deriveSandboxProfile(entry('uv', ['--directory', '/opt/servers/src/git', 'run', 'mcp-server-git', '-r', '/src/app']));
    expect(profile.section).toMatchObject({ filesystem: { write: ['/src/app', '/opt/servers/src/git', '~/.cache/uv'] } });
  });

  it.each([
    ['uvx', entry('uvx', ['mcp-server-fetch']), { network: { mode: 'hosts', hosts: ['*', ...UVX.hosts] }, filesystem: { write: UVX.write } }],
    ['npx', entry('npx', ['-y', '@modelcontextprotocol/server-fetch']), { network: { mode: 'hosts', hosts: ['*', ...NPX.hosts] }, filesystem: { write: NPX.write } }],
    ['python -m', entry('python', ['-m', 'mcp_server_fetch']), { network: { mode: 'hosts', hosts: ['*'] } }],
  ])('fetch server through %s: any public host ("*"), with a note to narrow it', (_how, server, section) => {
    const profile = deriveSandboxProfile(server);
    expect(profile.section).toEqual(section);
    expect(profile.notes).not.toContain(NO_PROFILE_NOTE);
    expect(profile.notes.join('\n')).toMatch(/any public host through the egress proxy \(never your loopback or local network\); narrow it/);
  });

  it('memory server: its MEMORY_FILE_PATH folder is writable and the variable passed; the default is explained', () => {
    const withFile = deriveSandboxProfile(entry('npx', ['-y', '@modelcontextprotocol/server-memory'], { MEMORY_FILE_PATH: '/home/ada/.local/share/memory/memory.json' }));
    expect(withFile.section).toEqual({
      filesystem: { write: ['/home/ada/.local/share/memory', ...NPX.write] },
      env: { pass: ['MEMORY_FILE_PATH'] },
      network: { mode: 'hosts', hosts: NPX.hosts },
    });
    expect(withFile.notes.join('\n')).toContain('keeps its knowledge graph in /home/ada/.local/share/memory/memory.json');
    const installed = deriveSandboxProfile(entry('mcp-server-memory'));
    expect(installed.section).toBeNull();
    expect(installed.notes.join('\n')).toMatch(/next to its own program, a folder that is read-only in the sandbox.*set MEMORY_FILE_PATH/);
    expect(deriveSandboxProfile(entry('npx', ['-y', '@modelcontextprotocol/server-memory'])).notes.join('\n')).toContain('inside the npx cache');
  });

  it('github server: api.github.com, and its token from the keyring rather than the configuration', () => {
    const profile = deriveSandboxProfile(entry('npx', ['-y', '@modelcontextprotocol/server-github'], { GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>', GITHUB_TOOLSETS: 'repos' }));
    expect(profile.section).toEqual({
      filesystem: { write: NPX.write },
      env: { pass: ['GITHUB_TOOLSETS'], secrets: { GITHUB_PERSONAL_ACCESS_TOKEN: 'github-token' } },
      network: { mode: 'hosts', hosts: ['api.github.com', ...NPX.hosts] },
    });
    expect(profile.notes.join('\n')).toContain('run `silas secrets set github-token`');
    const sandbox = loadedSandbox(profile.section!)!;
    expect([...sandbox.env!.secrets]).toEqual([['GITHUB_PERSONAL_ACCESS_TOKEN', 'github-token']]);
    expect(sandbox.network).toEqual({ mode: 'hosts', hosts: ['api.github.com', 'registry.npmjs.org'], loopback_ports: [] });
  });

  it.each([
    ['an unknown npx package', entry('npx', ['-y', 'some-mcp-server']), /starts with npx, which also needs ~\/\.npm/],
    ['an unknown program', entry('/usr/local/bin/memory-server', [], { MEMORY_FILE_PATH: '/x/m.json' }), /its configuration sets MEMORY_FILE_PATH: list them under env\.pass/],
    ['node without a script', entry('node', ['--version']), null],
  ])('%s gets no profile, and the note says what that means', (_what, server, more) => {
    const profile = deriveSandboxProfile(server);
    expect(profile.section).toBeNull();
    expect(profile.notes[0]).toBe('no starting profile: the server gets no files, network or environment until you add x-silas-sandbox to its policy');
    if (more) expect(profile.notes.join('\n')).toMatch(more);
  });

  it.each(['docker', '/usr/bin/podman'])('%s servers are not sandboxed by silas: no profile, a note to choose --no-sandbox consciously', (command) => {
    const profile = deriveSandboxProfile(entry(command, ['run', '-i', '--rm', '-v', '/srv:/projects', 'mcp/filesystem', '/projects']));
    expect(profile.section).toBeNull();
    expect(profile.notes).toHaveLength(1);
    expect(profile.notes[0]).toMatch(/servers are not sandboxed by silas.*--no-sandbox.*consciously/);
  });
});
