import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src-shared/errors.js';
import { COCKPIT_LINK_TAG, cockpitLinkSignedText } from '../../src-shared/schemas/cockpit-link.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime, type RuntimeOverrides } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import { OwnerKeyVault, ownerAccountForHome, type OwnerSigner } from '../keys/owner-key.js';
import { ownerSignTagged } from '../keys/sealed-state.js';
import { MemorySecretStore } from '../keys/secret-store.js';
import { useTempDirs } from '../testing/temp.js';
import { COCKPIT_CHALLENGE_TTL_MS } from './cockpit-links.js';
import { LocalSocketClient } from './local-socket-client.js';

// Getting back into the cockpit, from the attacker's side (docs/control-plane.md): a same-user
// process holds the ask credential (control.json) and can talk to the local socket, but not the
// keyring. Whatever it sends, it gets no cockpit link, and each attempt is audited.
const tempDir = useTempDirs('silas-cockpit-links-');
let runtime: Runtime | null = null;
let client: LocalSocketClient | null = null;

afterEach(async () => {
  client?.close();
  client = null;
  await runtime?.stop('test');
  runtime = null;
});

async function scene(mode: 'headless' | 'desktop' = 'headless', overrides: RuntimeOverrides = {}) {
  const store = new MemorySecretStore();
  let clock = Date.parse('2026-12-01T10:00:00Z');
  runtime = await buildRuntime(
    { home: join(tempDir(), 'home'), mode, ...(mode === 'headless' ? { port: 0, cockpitDir: null } : {}), auditPollMs: 20 },
    { secretStore: store, logger: silentLogger, now: () => new Date(clock), ...overrides },
  );
  await runtime.start();
  const r = runtime;
  const control = JSON.parse(readFileSync(join(r.home, 'control.json'), 'utf8')) as { socket: string; token: string };
  client = await LocalSocketClient.connect(control.socket, control.token);
  const asker = client;
  const owner = new OwnerKeyVault(store, ownerAccountForHome(r.home)).loadOrFail();
  const sign = (signer: OwnerSigner, home: string, challenge: string) => ownerSignTagged(COCKPIT_LINK_TAG, cockpitLinkSignedText(home, challenge), signer);
  const events = (name: string) => r.audit.tail(500).filter((e) => e.event === name).map((e) => e.data as Record<string, unknown>);
  return {
    runtime: r,
    asker,
    owner,
    sign,
    events,
    advance: (ms: number) => (clock += ms),
    challenge: async () => (await asker.call('cockpit.linkChallenge', {})).challenge,
  };
}

/** Another Ed25519 key, as an attacker (or another home's keyring) holds. */
function strangerKey(): OwnerSigner {
  return new OwnerKeyVault(new MemorySecretStore(), 'stranger').ensure().signer;
}

describe('cockpit links: only the keyring-held owner key gets one', () => {
  it('a challenge signed by another key is refused, audited, and no link is given', async () => {
    const s = await scene();
    const challenge = await s.challenge();
    const home = s.runtime.home;
    await expect(s.asker.call('cockpit.issueLink', { challenge, home, signature: s.sign(strangerKey(), home, challenge) })).rejects.toMatchObject({
      code: ErrorCode.Unauthorized,
      message: expect.stringMatching(/^no cockpit link: the signature is not by this home's owner key as the OS keyring holds it/),
    });
    // Bytes that are no signature at all (the shape is right, the key is nobody's).
    const forged = `ed25519:${Buffer.alloc(64, 7).toString('base64')}`;
    await expect(s.asker.call('cockpit.issueLink', { challenge: await s.challenge(), home, signature: forged })).rejects.toMatchObject({ code: ErrorCode.Unauthorized });
    expect(s.events('control.cockpit_link_refused').map((d) => d.reason)).toEqual(['signature not by the owner key', 'signature not by the owner key']);
    expect(s.events('control.cockpit_link_issued')).toEqual([]);
  });

  it('a challenge is good once: replaying an answer that worked is refused', async () => {
    const s = await scene();
    const challenge = await s.challenge();
    const args = { challenge, home: s.runtime.home, signature: s.sign(s.owner, s.runtime.home, challenge) };
    // A fresh credential of its own, never the one `silas start` printed.
    const issued = (await s.asker.call('cockpit.issueLink', args)) as { kind: string; url: string };
    expect(issued).toEqual({ kind: 'link', url: expect.stringMatching(new RegExp(`^${s.runtime.cockpit!.url.replace(/[.]/g, '\\.')}#token=[A-Za-z0-9_-]{43}$`)) });
    expect(issued.url).not.toContain(s.runtime.cockpit!.token);
    await expect(s.asker.call('cockpit.issueLink', args)).rejects.toMatchObject({ code: ErrorCode.Unauthorized, message: expect.stringMatching(/already answered/) });
    // A challenge the runtime never issued, signed by the owner key (e.g. before a restart).
    const made = 'x'.repeat(43);
    await expect(s.asker.call('cockpit.issueLink', { challenge: made, home: s.runtime.home, signature: s.sign(s.owner, s.runtime.home, made) })).rejects.toMatchObject({
      message: expect.stringMatching(/not issued by this runtime/),
    });
    expect(s.events('control.cockpit_link_refused').map((d) => d.reason)).toEqual(['reused challenge', 'unknown challenge']);
    expect(s.events('control.cockpit_link_issued')).toHaveLength(1);
  });

  it('a failed answer burns its challenge: the right signature afterwards is refused too', async () => {
    const s = await scene();
    const challenge = await s.challenge();
    const home = s.runtime.home;
    await expect(s.asker.call('cockpit.issueLink', { challenge, home, signature: s.sign(strangerKey(), home, challenge) })).rejects.toThrow();
    await expect(s.asker.call('cockpit.issueLink', { challenge, home, signature: s.sign(s.owner, home, challenge) })).rejects.toMatchObject({ message: expect.stringMatching(/already answered/) });
    expect(s.events('control.cockpit_link_issued')).toEqual([]);
  });

  it('an expired challenge is refused, even signed by the owner key', async () => {
    const s = await scene();
    const challenge = await s.challenge();
    s.advance(COCKPIT_CHALLENGE_TTL_MS + 1);
    await expect(s.asker.call('cockpit.issueLink', { challenge, home: s.runtime.home, signature: s.sign(s.owner, s.runtime.home, challenge) })).rejects.toMatchObject({
      code: ErrorCode.Unauthorized,
      message: expect.stringMatching(/this challenge expired \(a challenge lasts 60 s\); run `silas open` again/),
    });
    expect(s.events('control.cockpit_link_refused').map((d) => d.reason)).toEqual(['expired challenge']);
    expect(s.events('control.cockpit_link_issued')).toEqual([]);
  });

  it('a signature over another home is refused, whichever home the request names', async () => {
    const s = await scene();
    const home = s.runtime.home;
    const elsewhere = join(tempDir(), 'other-home');
    const first = await s.challenge();
    await expect(s.asker.call('cockpit.issueLink', { challenge: first, home: elsewhere, signature: s.sign(s.owner, elsewhere, first) })).rejects.toMatchObject({
      message: expect.stringContaining(`the signature is for the data home ${elsewhere}, but this runtime serves ${home}; run \`silas open --home ${home}\``),
    });
    const second = await s.challenge();
    await expect(s.asker.call('cockpit.issueLink', { challenge: second, home, signature: s.sign(s.owner, elsewhere, second) })).rejects.toMatchObject({
      message: expect.stringMatching(/not by this home's owner key/),
    });
    expect(s.events('control.cockpit_link_refused').map((d) => d.reason)).toEqual(['signed for another home', 'signature not by the owner key']);
    expect(s.events('control.cockpit_link_issued')).toEqual([]);
  });

  it('the cockpit itself cannot ask for links (the calls need ask, which the WebSocket does not hold)', async () => {
    const s = await scene();
    const refused = await s.runtime.router.dispatch('cockpit.linkChallenge', {}, { transport: 'websocket' });
    expect(refused).toMatchObject({ ok: false, error: { code: ErrorCode.Unauthorized } });
  });
});

describe('cockpit links on the desktop', () => {
  it("brings the desktop window forward instead of handing out a credential", async () => {
    let shown = 0;
    const s = await scene('desktop', { showCockpitWindow: () => (shown += 1) });
    const challenge = await s.challenge();
    expect(await s.asker.call('cockpit.issueLink', { challenge, home: s.runtime.home, signature: s.sign(s.owner, s.runtime.home, challenge) })).toEqual({ kind: 'window' });
    expect(shown).toBe(1);
    expect(s.events('control.cockpit_link_issued')).toEqual([{ owner_fingerprint: s.runtime.info().ownerFingerprint, delivered: 'window', transport: 'local-socket', peer: expect.any(String) }]);
  });
});
