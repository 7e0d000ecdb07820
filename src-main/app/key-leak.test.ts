import { once } from 'node:events';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Entry } from '@napi-rs/keyring';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { EventTargets, registerIpcTransport, type IpcInvokeEventLike } from '../control/electron-ipc.js';
import { ownerAccountForHome } from '../keys/owner-key.js';
import { KEYRING_SERVICE } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { buildRuntime } from './runtime.js';

// DESIGN invariant 2: the private key never leaves the OS keyring. This test runs the real
// runtime against the real keyring, drives every transport, then searches everything the
// runtime wrote or sent for any encoding of the private key.
const tempDir = useTempDirs();

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('private key confinement', () => {
  it('no encoding of the owner private key appears in the database, logs, control.json, WebSocket or IPC traffic', async () => {
    const home = join(tempDir(), 'home');
    const runtime = await buildRuntime({ home, mode: 'headless', port: 0, cockpitDir: null, auditPollMs: 20 });
    await runtime.start();

    const record = new Entry(KEYRING_SERVICE, ownerAccountForHome(home), { linux: { store: 'secret-service' } }).getPassword()!;
    const pkcs8 = Buffer.from((JSON.parse(record) as { pkcs8: string }).pkcs8, 'base64');
    const seed = pkcs8.subarray(-32);
    const textForms = [seed.toString('hex'), seed.toString('base64').replace(/=+$/, ''), seed.toString('base64url'), pkcs8.toString('base64').replace(/=+$/, ''), record];
    const binaryForms = [seed, pkcs8];

    const traffic: string[] = [];
    const controlJson = readFileSync(join(home, 'control.json'), 'utf8');
    const ws = new WebSocket(runtime.cockpit!.wsUrl, { origin: new URL(runtime.cockpit!.url).origin });
    ws.on('message', (data) => traffic.push(data.toString()));
    await once(ws, 'open');
    const send = (frame: unknown) => {
      const text = JSON.stringify(frame);
      traffic.push(text);
      ws.send(text);
    };
    send({ type: 'auth', token: runtime.cockpit!.token });
    for (const [id, name] of ['runtime.info', 'audit.list', 'audit.verify', 'keys.export'].entries()) send({ type: 'call', id, name, args: {} });
    runtime.audit.append('operator.note', { text: 'traffic while watching' });
    await expect.poll(() => traffic.filter((t) => t.includes('"type":"result"')).length).toBe(4);
    await expect.poll(() => traffic.some((t) => t.includes('traffic while watching'))).toBe(true);

    let handler: ((event: IpcInvokeEventLike, ...args: unknown[]) => unknown) | undefined;
    const sentToRenderer: unknown[] = [];
    const targets = new EventTargets();
    targets.add({ isDestroyed: () => false, getURL: () => 'app://cockpit/index.html', send: (...args) => sentToRenderer.push(args) });
    const dispose = registerIpcTransport({
      ipcMain: { handle: (_c, fn) => (handler = fn), removeHandler: () => {} },
      router: runtime.router,
      events: runtime.events,
      isTrustedSender: (url) => url.startsWith('app://cockpit/'),
      targets,
    });
    const trusted = { senderFrame: { url: 'app://cockpit/index.html' } };
    const ipcReplies = await Promise.all(['runtime.info', 'audit.list', 'audit.verify'].map((name) => handler!(trusted, name, {})));
    runtime.audit.append('operator.note', { text: 'ipc event' });
    await expect.poll(() => sentToRenderer.length).toBeGreaterThan(0);
    dispose();
    expect(ipcReplies.map((r) => (r as { ok: boolean }).ok)).toEqual([true, true, true]);

    ws.close();
    await runtime.stop('test');

    const haystacks = [controlJson, ...traffic, JSON.stringify(ipcReplies), JSON.stringify(sentToRenderer), JSON.stringify(process.env)];
    for (const form of textForms) for (const text of haystacks) expect(text.includes(form)).toBe(false);
    const files = filesUnder(home);
    expect(files.some((f) => f.endsWith('silas.db'))).toBe(true);
    expect(files.some((f) => f.endsWith('runtime.log'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const form of binaryForms) expect(bytes.indexOf(form), `${file} contains key bytes`).toBe(-1);
      const text = bytes.toString('latin1');
      for (const form of textForms) expect(text.includes(form), `${file} contains an encoded key`).toBe(false);
    }
  });
});
