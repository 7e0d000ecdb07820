import { describe, expect, it } from 'vitest';
import { buildBwrapArgs, orderMounts, presentEtcEntries, type BwrapPlan } from './bwrap-args.js';

const plan: BwrapPlan = {
  system: [
    { path: '/usr', kind: 'dir' },
    { path: '/bin', kind: 'symlink', target: 'usr/bin' },
  ],
  etc: ['/etc/ld.so.cache'],
  mounts: [
    { path: '/data/read', writable: false },
    { path: '/data/work', writable: true },
  ],
  workDir: '/data/work',
  networkAccess: false,
  limits: { prlimitPath: '/usr/bin/prlimit', maxMemoryMb: 512, maxCpuSeconds: 60 },
  argv: ['python3', 'script.py', '--flag', 'a b; rm -rf /'],
};

describe('buildBwrapArgs', () => {
  it('unshares every namespace, drops capabilities and shares the network only when allowed', () => {
    const denied = buildBwrapArgs(plan);
    expect(denied.slice(0, 1)).toEqual(['--unshare-all']);
    expect(denied).not.toContain('--share-net');
    expect(denied).toEqual(expect.arrayContaining(['--die-with-parent', '--new-session', '--cap-drop', 'ALL']));
    expect(buildBwrapArgs({ ...plan, networkAccess: true })).toContain('--share-net');
  });

  it('passes the command as separate arguments after prlimit, never through a shell', () => {
    const args = buildBwrapArgs(plan);
    const tail = args.slice(args.indexOf('--chdir'));
    expect(tail).toEqual(['--chdir', '/data/work', '--', '/usr/bin/prlimit', '--as=536870912', '--cpu=60:61', '--core=0', '--', 'python3', 'script.py', '--flag', 'a b; rm -rf /']);
    const noLimits = buildBwrapArgs({ ...plan, limits: null });
    expect(noLimits.slice(noLimits.indexOf('--') + 1)).toEqual(plan.argv);
  });

  it('recreates system symlinks, binds system dirs read-only and mounts a private /tmp before user paths', () => {
    const args = buildBwrapArgs(plan).join(' ');
    expect(args).toContain('--ro-bind /usr /usr');
    expect(args).toContain('--symlink usr/bin /bin');
    expect(args).toContain('--tmpfs /tmp --ro-bind /data/read /data/read --bind /data/work /data/work');
  });
});

describe('orderMounts', () => {
  it('applies broader mounts first and lets the last listing of a path decide its mode', () => {
    expect(
      orderMounts([
        { path: '/a/b/c', writable: true },
        { path: '/a', writable: false },
        { path: '/a/b', writable: true },
        { path: '/a/b', writable: false },
      ]),
    ).toEqual([
      { path: '/a', writable: false },
      { path: '/a/b', writable: false },
      { path: '/a/b/c', writable: true },
    ]);
  });
});

describe('presentEtcEntries', () => {
  it('adds name resolution files only when the network is shared, and never /etc/ssl/private or passwd', () => {
    const all = () => true;
    expect(presentEtcEntries(false, all)).not.toContain('/etc/resolv.conf');
    expect(presentEtcEntries(true, all)).toContain('/etc/resolv.conf');
    for (const entry of presentEtcEntries(true, all)) expect(entry).not.toMatch(/^\/etc\/(ssl$|ssl\/private|passwd|shadow|group)/);
  });
});
