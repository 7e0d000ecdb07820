import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxSchema, type SandboxDocument } from '../../../src-shared/policy/schema-sandbox.js';
import type { RunLimiter } from '../../sandbox/run-limits.js';
import { useTempDirs } from '../../testing/temp.js';
import { prepareSandboxedServer, SandboxSetupError, type ServerSandboxInput } from './server-sandbox.js';
import { resolveServerCommand } from './runtime-paths.js';

// The plan of a server's sandbox, without starting it: what is mounted, hidden, passed, and
// every mistake refused before anything runs (sandbox.process.test.ts runs real ones).

const tempDir = useTempDirs('silas-server-sandbox-');
const noCgroups: RunLimiter = { mechanism: null, unavailableReason: 'no cgroup here', create: () => { throw new Error('unavailable'); } };
const available = { available: true, bwrapPath: '/usr/bin/bwrap', prlimitPath: null, reason: null };

function layout() {
  const dir = tempDir();
  const home = join(dir, 'home');
  const dataHome = join(home, '.local', 'share', 'silas');
  const project = join(home, 'project');
  for (const path of [join(home, '.ssh'), dataHome, join(project, 'secrets'), join(project, 'node_modules', 'srv', 'bin'), join(home, 'bin')]) mkdirSync(path, { recursive: true });
  writeFileSync(join(project, 'secrets', 'key'), 'k');
  writeFileSync(join(project, 'package.json'), '{}');
  const script = join(project, 'node_modules', 'srv', 'bin', 'server.js');
  writeFileSync(script, '#!/usr/bin/env node\n');
  chmodSync(script, 0o755);
  symlinkSync(script, join(home, 'bin', 'srv'));
  return { dir, home, dataHome, project, script };
}

function input(l: ReturnType<typeof layout>, sandbox: unknown, overrides: Partial<ServerSandboxInput> = {}): ServerSandboxInput {
  return {
    command: 'srv',
    args: [],
    sandbox: sandbox === null ? null : (sandboxSchema('aip.io/v1alpha2').parse(sandbox) as SandboxDocument),
    protectedPaths: ['~/.ssh', join(l.project, 'secrets'), '.env', '*.pem'],
    policyFile: join(l.home, 'policy.yaml'),
    homeDir: l.home,
    dataHome: l.dataHome,
    cwd: l.project,
    environment: { PATH: `${join(l.home, 'bin')}:/usr/bin:/bin`, LANG: 'C.UTF-8', SECRET_OF_PARENT: 'x' },
    availability: available,
    limiter: noCgroups,
    secrets: (refs) => Object.fromEntries([...refs].map(([variable, name]) => [variable, `value-of-${name}`])),
    ...overrides,
  };
}

const pairs = (args: string[], flag: string) => args.flatMap((arg, i) => (arg === flag ? [args[i + 1]!] : []));

describe('prepareSandboxedServer', () => {
  it('mounts the program\'s packages and the grants, hides protected paths inside them, and passes only the listed environment', () => {
    const l = layout();
    const launch = prepareSandboxedServer(input(l, { filesystem: { read: ['~/project'] }, env: { pass: ['LANG'], secrets: { TOKEN: 'tok' } } }));
    expect(launch.file).toBe('/usr/bin/bwrap');
    expect(pairs(launch.args, '--ro-bind')).toEqual(expect.arrayContaining([join(l.project, 'node_modules'), l.project]));
    expect(pairs(launch.args, '--tmpfs')).toEqual(expect.arrayContaining(['/tmp', l.home, join(l.project, 'secrets')]));
    expect(launch.args).toContain('--unshare-all');
    expect(launch.args).not.toContain('--share-net');
    const mounted = [...pairs(launch.args, '--ro-bind'), ...pairs(launch.args, '--bind')];
    for (const hidden of [l.dataHome, join(l.home, '.ssh'), l.home]) expect(mounted).not.toContain(hidden);
    expect(launch.env).toEqual({ PATH: expect.stringMatching(/\/usr\/bin:\/bin$/), HOME: l.home, TMPDIR: '/tmp', LANG: 'C.UTF-8', TOKEN: 'value-of-tok' });
    expect(launch.summary).toMatchObject({ backend: 'bubblewrap', read: [l.project], masked: [join(l.project, 'secrets')], secrets: ['TOKEN'], limits: { mechanism: null } });
    expect(launch.args.slice(launch.args.indexOf('--') + 1)).toEqual([l.script]);
  });

  it.each([
    [{ filesystem: { read: ['~/.ssh'] } }, /filesystem\.read\.0: "~\/\.ssh" is inside .*\.ssh, which no MCP server may see/],
    [{ filesystem: { write: ['~/.local/share/silas'] } }, /filesystem\.write\.0: .* is inside .*silas/],
    [{ filesystem: { read: ['~'] } }, /grants the whole home directory/],
    [{ filesystem: { read: ['/'] } }, /may not be exposed to the sandbox/],
    [{ filesystem: { read: ['~/no-such-folder'] } }, /filesystem\.read\.0: .*no-such-folder" does not exist on this machine/],
    [{ filesystem: { read: ['~/project/../.ssh'] } }, /contains a "\.\." segment/],
    [{ limits: { max_processes: 8 } }, /limits: the policy requires limits that cannot be enforced here: no cgroup here/],
    [{ filesystem: { write: ['/tmp'] } }, /filesystem\.write\.0: "\/tmp" contains \/tmp, where other programs keep their sockets/],
    [{ filesystem: { read: ['/run'] } }, /contains \/run, where other programs keep their sockets/],
  ])('refuses %j before anything starts', (sandbox, message) => {
    const l = layout();
    expect(() => prepareSandboxedServer(input(l, sandbox))).toThrow(message);
  });

  it('hides the session bus socket when a grant contains it', () => {
    const l = layout();
    const bus = join(l.project, 'bus');
    writeFileSync(bus, '');
    const launch = prepareSandboxedServer(input(l, { filesystem: { read: ['~/project'] } }, { environment: { PATH: `${join(l.home, 'bin')}:/usr/bin:/bin`, DBUS_SESSION_BUS_ADDRESS: `unix:path=${bus},guid=x` } }));
    expect(launch.summary.masked).toContain(bus);
    expect(pairs(launch.args, '--ro-bind')).toContain('/dev/null');
  });

  it('refuses a grant that reaches a protected path through a symlink', () => {
    const l = layout();
    symlinkSync(join(l.home, '.ssh'), join(l.home, 'innocent'));
    expect(() => prepareSandboxedServer(input(l, { filesystem: { read: ['~/innocent'] } }))).toThrow(SandboxSetupError);
  });

  it('says which command or interpreter cannot be resolved, and that a missing backend needs bubblewrap', () => {
    const l = layout();
    expect(() => prepareSandboxedServer(input(l, null, { command: 'no-such-server' }))).toThrow(/"no-such-server" was not found on PATH .*; give its full path/);
    writeFileSync(l.script, '#!/usr/bin/env no-such-interpreter\n');
    expect(() => prepareSandboxedServer(input(l, null))).toThrow(/interpreter "no-such-interpreter" named by the first line of .*server\.js cannot be resolved on PATH/);
    expect(() => prepareSandboxedServer(input(l, null, { availability: { ...available, available: false, reason: 'bubblewrap was not found at /usr/bin/bwrap' } }))).toThrow(/not available: bubblewrap was not found/);
  });

  it('puts the server in its cgroup when the host can limit it', () => {
    const l = layout();
    const made: unknown[] = [];
    const limiter: RunLimiter = { mechanism: 'cgroup2', unavailableReason: null, create: (limits) => (made.push(limits), { procsFiles: ['/sys/fs/cgroup/x/cgroup.procs'], finish: () => Promise.resolve({ mechanism: 'cgroup2', max_processes: 8, max_memory_mb: 64, process_limit_hit: false, memory_limit_hit: false, peak_memory_mb: 1 }) }) };
    const launch = prepareSandboxedServer(input(l, { limits: { max_processes: 8, max_memory_mb: 64 } }, { limiter }));
    expect(made).toEqual([{ maxProcesses: 8, maxMemoryMb: 64 }]);
    expect(launch.file).toBe('/bin/sh');
    expect(launch.args).toContain('/sys/fs/cgroup/x/cgroup.procs');
    expect(launch.summary.limits).toEqual({ mechanism: 'cgroup2', max_processes: 8, max_memory_mb: 64 });
  });
});

describe('resolveServerCommand', () => {
  it('finds the program through PATH and symlinks, its #! interpreter, and narrows a package root that would expose the home', () => {
    const l = layout();
    const resolved = resolveServerCommand('srv', [], { cwd: l.project, pathVariable: `${join(l.home, 'bin')}:/usr/bin:/bin`, forbidden: [] });
    expect(resolved.program).toBe(l.script);
    expect(resolved.interpreter).toMatch(/\/node$/);
    expect(resolved.runtime).toContain(join(l.project, 'node_modules'));
    const loose = join(l.home, 'server.js');
    writeFileSync(loose, '');
    writeFileSync(join(l.home, 'package.json'), '{}');
    expect(resolveServerCommand('/usr/bin/node', [loose], { cwd: l.home, pathVariable: '/usr/bin', forbidden: [join(l.home, '.ssh')] }).runtime).toEqual([loose]);
  });
});
