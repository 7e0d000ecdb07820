import { chownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDirs } from '../testing/temp.js';
import { adoptSessionBus, describeSessionBus, findSessionBus } from './session-bus.js';

// docs/mcp-proxy.md "Starting under any client": the session bus is found as libdbus finds it,
// and only a socket of this user, in a directory of this user, counts.

const tempDir = useTempDirs('silas-session-bus-');
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});
const uid = process.getuid!();

async function socketAt(path: string): Promise<string> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return path;
}

/** A run-user directory holding `<uid>/` and an XDG_RUNTIME_DIR of its own. */
function dirs() {
  const root = tempDir();
  const runUserDir = join(root, 'run-user');
  const runtimeDir = join(root, 'xdg');
  mkdirSync(join(runUserDir, String(uid)), { recursive: true });
  mkdirSync(runtimeDir);
  return { runUserDir, runtimeDir, own: join(runUserDir, String(uid)) };
}

describe('finding the session bus', () => {
  it('keeps an address the environment gives whose socket exists, and any non-path address', async () => {
    const { runUserDir, own } = dirs();
    const socket = await socketAt(join(own, 'elsewhere'));
    const address = `unix:path=${socket},guid=abc`;
    expect(findSessionBus({ env: { DBUS_SESSION_BUS_ADDRESS: address }, uid, runUserDir })).toEqual({ source: 'environment', address });
    expect(findSessionBus({ env: { DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-x' }, uid, runUserDir })).toEqual({ source: 'environment', address: 'unix:abstract=/tmp/dbus-x' });
  });

  it('finds $XDG_RUNTIME_DIR/bus first, then /run/user/$UID/bus', async () => {
    const { runUserDir, runtimeDir, own } = dirs();
    const fallback = await socketAt(join(own, 'bus'));
    expect(findSessionBus({ env: { XDG_RUNTIME_DIR: runtimeDir }, uid, runUserDir })).toEqual({ source: 'discovered', address: `unix:path=${fallback}`, socket: fallback, replaced: null });
    const first = await socketAt(join(runtimeDir, 'bus'));
    expect(findSessionBus({ env: { XDG_RUNTIME_DIR: runtimeDir }, uid, runUserDir })).toMatchObject({ source: 'discovered', socket: first });
  });

  it('looks again when the given address names a socket that is gone (a session that ended)', async () => {
    const { runUserDir, own } = dirs();
    const socket = await socketAt(join(own, 'bus'));
    const gone = 'unix:path=/tmp/dbus-long-gone-session,guid=1';
    const bus = findSessionBus({ env: { DBUS_SESSION_BUS_ADDRESS: gone }, uid, runUserDir });
    expect(bus).toEqual({ source: 'discovered', address: `unix:path=${socket}`, socket, replaced: gone });
    expect(describeSessionBus(bus)).toContain('names a socket that no longer exists');
  });

  it('refuses a regular file, a symbolic link to a socket, and a directory or socket of another user', async () => {
    const { runUserDir, runtimeDir, own } = dirs();
    writeFileSync(join(runtimeDir, 'bus'), 'not a socket');
    const real = await socketAt(join(runtimeDir, 'real-bus'));
    symlinkSync(real, join(own, 'bus'));
    const none = findSessionBus({ env: { XDG_RUNTIME_DIR: runtimeDir }, uid, runUserDir });
    expect(none).toEqual({ source: 'none', replaced: null, tried: [`${join(runtimeDir, 'bus')} is not a socket`, `${join(own, 'bus')} is a symbolic link, not the bus socket`] });
    expect(describeSessionBus(none)).toContain('no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set');

    // The same socket, checked as another user would: its directory is not theirs.
    const other = uid + 4242;
    const { runUserDir: theirs } = dirs();
    mkdirSync(join(theirs, String(other)));
    const foreignDir = findSessionBus({ env: { XDG_RUNTIME_DIR: runtimeDir }, uid: other, runUserDir: theirs });
    expect(foreignDir.source).toBe('none');
    expect((foreignDir as { tried: string[] }).tried[0]).toBe(`${runtimeDir} is not a directory owned by uid ${other}`);

    if (uid === 0) {
      // Root can hand the socket to another user: a bus in our directory that is not ours is refused.
      const dir = join(tempDir(), 'xdg');
      mkdirSync(dir);
      const socket = await socketAt(join(dir, 'bus'));
      chownSync(socket, 4242, 4242);
      expect(findSessionBus({ env: { XDG_RUNTIME_DIR: dir }, uid, runUserDir: join(tempDir(), 'none') })).toMatchObject({ source: 'none', tried: [`${socket} belongs to uid 4242, not to uid 0`, expect.stringContaining('does not exist')] });
    }
  });

  it('ignores a relative XDG_RUNTIME_DIR and searches nothing without a uid', () => {
    const { runUserDir } = dirs();
    expect(findSessionBus({ env: { XDG_RUNTIME_DIR: 'relative/dir' }, uid, runUserDir })).toMatchObject({ source: 'none', tried: [expect.stringContaining(join(runUserDir, String(uid), 'bus'))] });
    expect(findSessionBus({ env: {}, uid: null, runUserDir })).toEqual({ source: 'none', tried: [], replaced: null });
  });

  it('adopting a discovered bus sets it in the given environment and in this process', async () => {
    const { runUserDir, own } = dirs();
    const socket = await socketAt(join(own, 'bus'));
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    try {
      const env: NodeJS.ProcessEnv = {};
      adoptSessionBus(env, { uid, runUserDir });
      expect(env.DBUS_SESSION_BUS_ADDRESS).toBe(`unix:path=${socket}`);
      expect(process.env.DBUS_SESSION_BUS_ADDRESS).toBe(`unix:path=${socket}`);
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});
