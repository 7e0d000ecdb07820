import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildRuntime } from '../../app/runtime.js';
import { silentLogger } from '../../app/logger.js';
import { MemorySecretStore } from '../../keys/secret-store.js';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { ClientsService } from './clients-service.js';
import { CLAUDE_CONFIG, STDIO_SERVERS, writePolicy } from './testing/fixtures.js';

/** The next atomic rewrite of a client configuration fails, as on a read-only file (tests run as root, where chmod cannot). */
const failRewrite = vi.hoisted(() => ({ next: false }));
vi.mock('./files.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./files.js')>();
  return {
    ...actual,
    writeFileAtomic: (file: string, bytes: Uint8Array, mode: number) => {
      if (failRewrite.next && !file.endsWith('wraps.json')) {
        failRewrite.next = false;
        throw Object.assign(new Error(`EROFS: read-only file system, open '${file}'`), { code: 'EROFS' });
      }
      actual.writeFileAtomic(file, bytes, mode);
    },
  };
});

const tempDir = useTempDirs('silas-clients-failure-');
const runtime = { node: '/opt/node/bin/node', bin: '/opt/silas/bin/silas.js' };

function setup() {
  const dir = tempDir();
  const userHome = join(dir, 'user');
  const file = join(userHome, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, CLAUDE_CONFIG);
  return { dir, userHome, file, policy: writePolicy(dir), locations: { platform: 'linux' as const, env: {}, home: userHome } };
}

describe('agent client rewrites that fail', () => {
  it('a wrap audited before a rewrite that fails is followed by mcp.client_wrap_failed, and the file is unchanged', () => {
    const { dir, file, policy, locations } = setup();
    const ledger = createTestLedger(dir);
    const service = new ClientsService({ silasHome: join(dir, 'silas-home'), audit: ledger.audit, runtime, locations });
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    failRewrite.next = true;
    expect(() => service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash })).toThrow(
      expect.objectContaining({ code: 'E_PERMISSION', message: expect.stringMatching(/cannot rewrite .*claude_desktop_config\.json: EROFS.*the file is unchanged \(a copy is in .*silas-backup-.*\)\. Make it writable/) }),
    );
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    const [wrapped, failed] = ledger.audit.tail(2);
    expect(wrapped).toMatchObject({ event: 'mcp.client_wrapped', data: { servers: STDIO_SERVERS } });
    expect(failed).toMatchObject({ event: 'mcp.client_wrap_failed', data: { file, backup: wrapped!.data.backup, rewritten: false, error: expect.stringMatching(/EROFS/) } });
  });

  it('an unwrap whose rewrite fails is recorded as mcp.client_unwrap_failed, and the file stays wrapped', () => {
    const { dir, file, policy, locations } = setup();
    const ledger = createTestLedger(dir);
    const service = new ClientsService({ silasHome: join(dir, 'silas-home'), audit: ledger.audit, runtime, locations });
    service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: service.planWrap({ client: 'claude-desktop', policy }).diffHash });
    const wrapped = readFileSync(file, 'utf8');
    failRewrite.next = true;
    expect(() => service.unwrap({ client: 'claude-desktop' })).toThrow(/cannot rewrite .*claude_desktop_config\.json: EROFS/);
    expect(readFileSync(file, 'utf8')).toBe(wrapped);
    expect(ledger.audit.tail(2).map((e) => [e.event, e.data.restored])).toEqual([
      ['mcp.client_unwrapped', undefined],
      ['mcp.client_unwrap_failed', false],
    ]);
    // Nothing was settled: a second try restores the original.
    service.unwrap({ client: 'claude-desktop' });
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('stopping the runtime never unwraps: a configuration wrapped from the cockpit stays wrapped', async () => {
    const { dir, file, policy, locations } = setup();
    const built = await buildRuntime(
      { home: join(dir, 'silas-home'), mode: 'desktop' },
      { secretStore: new MemorySecretStore(), logger: silentLogger, clientLocations: locations, proxyRuntime: runtime },
    );
    await built.start();
    const plan = await built.router.dispatch('clients.planWrap', { client: 'claude-desktop', policy }, { transport: 'in-process' });
    expect(plan).toMatchObject({ ok: true });
    const { diffHash } = (plan as { value: { diffHash: string } }).value;
    expect(await built.router.dispatch('clients.wrap', { client: 'claude-desktop', policy, expectedDiffHash: diffHash }, { transport: 'in-process' })).toMatchObject({ ok: true });
    const wrapped = readFileSync(file, 'utf8');
    expect(wrapped).toContain('"proxy"');
    await built.stop('test');
    expect(readFileSync(file, 'utf8')).toBe(wrapped);
  });
});
