import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHandlers } from '../../control/handlers.js';
import { ControlRouter } from '../../control/router.js';
import { createTestLedger } from '../../testing/ledger.js';
import { testServices } from '../../testing/handlers.js';
import { useTempDirs } from '../../testing/temp.js';
import { ClientsService, diffHash } from './clients-service.js';
import { readManifest } from './files.js';
import { CLAUDE_CONFIG, POLICY_YAML, STDIO_SERVERS, writePolicy } from './testing/fixtures.js';

const tempDir = useTempDirs('silas-clients-service-');
const runtime = { node: '/opt/node/bin/node', bin: '/opt/silas/bin/silas.js' };
const NOW = new Date('2026-03-01T09:15:30.123Z');

/** A user home with Claude Desktop's configuration where Linux keeps it, a policy and a data home. */
function setup(text = CLAUDE_CONFIG, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const userHome = join(dir, 'user');
  const file = join(userHome, '.config', 'Claude', 'claude_desktop_config.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const policy = writePolicy(dir);
  const silasHome = join(dir, 'silas-home');
  const ledger = createTestLedger(dir);
  const service = new ClientsService({ silasHome, audit: ledger.audit, runtime, locations: { platform: 'linux', env, home: userHome }, now: () => NOW });
  const router = new ControlRouter(
    createHandlers({ audit: ledger.audit, ...testServices(ledger.db, ledger.audit), clients: service, runtimeInfo: () => ({}) as never }),
    { error: () => {} },
  );
  const events = () => [...ledger.audit.since()].map((e) => e.event);
  return { dir, userHome, file, policy, silasHome, ledger, service, router, events };
}

describe('agent clients in the cockpit', () => {
  it('lists every known client with its file, found or not, and each server with transport, status and reason', () => {
    const { service, userHome, file } = setup();
    const clients = service.list();
    expect(clients.map((c) => [c.client, c.file, c.found])).toEqual([
      ['claude-desktop', file, true],
      ['cursor', join(userHome, '.cursor', 'mcp.json'), false],
      ['vscode', join(userHome, '.config', 'Code', 'User', 'mcp.json'), false],
      ['windsurf', join(userHome, '.codeium', 'windsurf', 'mcp_config.json'), false],
    ]);
    const claude = clients[0]!;
    expect(claude).toMatchObject({ label: 'Claude Desktop', error: null, lastWrap: null });
    expect(claude.servers.map((s) => s.name)).toEqual([...STDIO_SERVERS, 'linear']);
    expect(claude.servers.find((s) => s.name === 'github')).toEqual({ name: 'github', transport: 'stdio', wrapped: false, policy: null, reason: null });
    expect(claude.servers.find((s) => s.name === 'linear')).toEqual({
      name: 'linear',
      transport: 'remote',
      wrapped: false,
      policy: null,
      reason: 'remote servers (url) are not stdio; the proxy relays stdio only',
    });
  });

  it("previews and writes the runtime session's bus address into each wrapped entry's env (docs/mcp-proxy.md \"Starting under any client\")", async () => {
    const bus = 'unix:path=/run/user/1000/bus';
    const { service, router, file, policy } = setup(CLAUDE_CONFIG, { DBUS_SESSION_BUS_ADDRESS: bus });
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    expect(plan.diff).toContain(`+        "DBUS_SESSION_BUS_ADDRESS": "${bus}"`);
    expect(await router.dispatch('clients.wrap', { client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash }, { transport: 'ipc' })).toMatchObject({ ok: true });
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.mcpServers.github.env).toEqual({ GITHUB_PERSONAL_ACCESS_TOKEN: '<YOUR_TOKEN>', DBUS_SESSION_BUS_ADDRESS: bus });
    expect(after.mcpServers.filesystem.env).toEqual({ DBUS_SESSION_BUS_ADDRESS: bus });
  });

  it('previews a wrap without writing or auditing anything', () => {
    const { service, file, policy, events } = setup();
    const before = events();
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    expect(plan.file).toBe(file);
    expect(plan.policy).toBe(policy);
    expect(plan.wrap).toEqual(STDIO_SERVERS.map((name) => ({ name, policy })));
    expect(plan.skipped).toEqual([{ name: 'linear', reason: 'remote servers (url) are not stdio; the proxy relays stdio only' }]);
    expect(plan.diff).toContain(`--- ${file}`);
    expect(plan.diff).toContain(`+      "command": "${runtime.node}",`);
    expect(plan.diffHash).toBe(diffHash(plan.diff, Buffer.from(CLAUDE_CONFIG)));
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(events()).toEqual(before);
    // Only the named servers, when named.
    expect(service.planWrap({ client: 'claude', servers: ['github'], policy }).wrap).toEqual([{ name: 'github', policy }]);
  });

  it('wraps what was previewed: backup, manifest, audited before the rewrite, and the list shows it wrapped', () => {
    const { service, file, policy, silasHome, ledger } = setup();
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    const result = service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash });
    expect(result).toEqual({ client: 'claude-desktop', file, backup: `${file}.silas-backup-2026-03-01T091530.123Z`, servers: STDIO_SERVERS });

    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.mcpServers.github.command).toBe(runtime.node);
    expect(after.mcpServers.github.args).toEqual([runtime.bin, 'proxy', '--name', 'github', '--policy', policy, '--home', silasHome, '--client', 'claude-desktop', '--', 'npx', '-y', '@modelcontextprotocol/server-github']);
    expect(after.mcpServers.linear).toEqual({ type: 'http', url: 'https://mcp.linear.app/mcp' });
    expect(readFileSync(result.backup, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(readManifest(silasHome).wraps).toEqual([expect.objectContaining({ client: 'claude-desktop', file, backup: result.backup, servers: STDIO_SERVERS })]);

    const entry = ledger.audit.tail(1)[0]!;
    expect(entry).toMatchObject({ event: 'mcp.client_wrapped', data: { client: 'claude-desktop', file, servers: STDIO_SERVERS, policies: [policy], backup: result.backup } });
    expect(ledger.audit.verifyChain()).toMatchObject({ valid: true });

    const claude = service.list()[0]!;
    expect(claude.servers.find((s) => s.name === 'github')).toMatchObject({ wrapped: true, policy, reason: null });
    expect(claude.lastWrap).toEqual({ backup: result.backup, wrappedAt: NOW.toISOString(), servers: STDIO_SERVERS });
    // Wrapped servers are not wrapped twice.
    const again = service.planWrap({ client: 'claude-desktop', policy });
    expect(again.wrap).toEqual([]);
    expect(() => service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: again.diffHash })).toThrow(/nothing to wrap in .*claude_desktop_config\.json.*nothing was changed/);
  });

  it('refuses to apply a plan that changed since the preview, and changes nothing', () => {
    const { service, file, policy, dir, events } = setup();
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    const edited = CLAUDE_CONFIG.replace('"globalShortcut": "Ctrl+Space"', '"globalShortcut": "Ctrl+Space",\n  "extra": true').replace('"/Users/alex/Downloads"', '"/Users/alex/Music"');
    writeFileSync(file, edited);
    const before = events();
    expect(() => service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash })).toThrow(
      expect.objectContaining({ code: 'E_BAD_REQUEST', message: expect.stringMatching(/claude_desktop_config\.json or the policy changed since the preview.*Preview the changes again/) }),
    );
    // Another policy than the one previewed is another plan too.
    writeFileSync(file, CLAUDE_CONFIG);
    const other = writePolicy(dir, 'other.yaml');
    expect(() => service.wrap({ client: 'claude-desktop', policy: other, expectedDiffHash: plan.diffHash })).toThrow(/changed since the preview/);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(events()).toEqual(before);
    expect(existsSync(join(dirname(file), 'claude_desktop_config.json.silas-backup-2026-03-01T091530.123Z'))).toBe(false);
  });

  it("previews a sandbox profile for a server under its own policy, binds it to the hash, and writes it only with the wrap", () => {
    const { service, silasHome } = setup();
    const policy = join(silasHome, 'policies', 'github.yaml');
    mkdirSync(dirname(policy), { recursive: true });
    writeFileSync(policy, POLICY_YAML);
    const request = { client: 'claude-desktop', servers: ['github'], policy };
    const plan = service.planWrap(request);
    const [profile] = plan.sandboxProfiles!;
    expect(profile).toMatchObject({ server: 'github', file: policy });
    expect(profile!.diff).toContain('+  x-silas-sandbox:\n');
    expect(profile!.diff).toContain('+        GITHUB_PERSONAL_ACCESS_TOKEN: github-token\n');
    expect(profile!.notes.join('\n')).toContain('silas secrets set github-token');
    expect(plan.diffHash).not.toBe(diffHash(plan.diff, Buffer.from(CLAUDE_CONFIG)));
    expect(readFileSync(policy, 'utf8')).toBe(POLICY_YAML);
    // The policy's bytes are part of what was previewed.
    writeFileSync(policy, `${POLICY_YAML}# edited\n`);
    expect(() => service.wrap({ ...request, expectedDiffHash: plan.diffHash })).toThrow(/changed since the preview/);
    writeFileSync(policy, POLICY_YAML);
    service.wrap({ ...request, expectedDiffHash: plan.diffHash });
    expect(readFileSync(policy, 'utf8')).toBe(`${POLICY_YAML}${profile!.diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1)).join('\n')}\n`);
  });

  it('unwraps byte for byte, audited, and settles the manifest', () => {
    const { service, file, policy, silasHome, ledger } = setup();
    const original = readFileSync(file);
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    const wrapped = service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash });
    const result = service.unwrap({ client: 'claude-desktop' });
    expect(result).toEqual({ client: 'claude-desktop', file, backup: wrapped.backup, servers: STDIO_SERVERS });
    expect(readFileSync(file).equals(original)).toBe(true);
    expect(readManifest(silasHome).wraps).toEqual([]);
    expect(ledger.audit.tail(1)[0]).toMatchObject({ event: 'mcp.client_unwrapped', data: { client: 'claude-desktop', file, backup: wrapped.backup, servers: STDIO_SERVERS } });
    expect(service.list()[0]!.servers.every((s) => !s.wrapped)).toBe(true);
    // Nothing left to unwrap: the message names the manifest and the fix.
    expect(() => service.unwrap({ client: 'claude-desktop' })).toThrow(/no wrap of .*claude_desktop_config\.json is recorded.*--force-entries/);
  });

  it('refuses to unwrap a file edited since the wrap, naming the backup, and changes nothing', () => {
    const { service, file, policy, events } = setup();
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    const { backup } = service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash });
    const edited = readFileSync(file, 'utf8').replace('"Ctrl+Space"', '"Ctrl+Shift+Space"');
    writeFileSync(file, edited);
    const before = events();
    expect(() => service.unwrap({ client: 'claude-desktop' })).toThrow(new RegExp(`changed since silas wrapped it.*${backup.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(events()).toEqual(before);
  });

  it('refuses a configuration that is not valid JSON, naming the file, line and column, and changes nothing', () => {
    const broken = CLAUDE_CONFIG.replace('"globalShortcut"', '"globalShortcut" oops');
    const { service, file, policy, events } = setup(broken);
    const before = events();
    expect(() => service.planWrap({ client: 'claude-desktop', policy })).toThrow(
      expect.objectContaining({ code: 'E_CFG_INVALID', message: expect.stringMatching(/claude_desktop_config\.json:\d+:\d+: not valid JSON.*Nothing was changed/) }),
    );
    expect(() => service.wrap({ client: 'claude-desktop', policy, expectedDiffHash: `sha256:${'0'.repeat(64)}` })).toThrow(/not valid JSON/);
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(events()).toEqual(before);
    expect(service.list()[0]).toMatchObject({ found: true, servers: [], error: expect.stringMatching(/not valid JSON/) });
  });

  it('refuses a missing, relative or invalid policy with the validation errors, and an unknown client or server', () => {
    const { service, dir, userHome, file } = setup();
    expect(() => service.planWrap({ client: 'claude-desktop', policy: join(dir, 'missing.yaml') })).toThrow(/missing\.yaml does not exist; nothing was changed/);
    expect(() => service.planWrap({ client: 'claude-desktop', policy: 'policy.yaml' })).toThrow(/"policy\.yaml" is a relative path; give its full path/);
    const invalid = join(dir, 'invalid.yaml');
    writeFileSync(invalid, 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: bad\nspec:\n  mode: enforce\n  alowed_tools: [read_file]\n');
    expect(() => service.planWrap({ client: 'claude-desktop', policy: invalid })).toThrow(new RegExp(`${invalid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:\\d+ `));
    writePolicy(userHome, 'home-policy.yaml');
    expect(service.planWrap({ client: 'claude-desktop', policy: '~/home-policy.yaml' }).policy).toBe(join(userHome, 'home-policy.yaml'));
    expect(() => service.planWrap({ client: 'notepad', policy: invalid })).toThrow(/unknown client "notepad"; known clients: claude-desktop/);
    expect(() => service.planWrap({ client: 'claude-desktop', servers: ['nope'], policy: writePolicy(dir) })).toThrow(/no server "nope" in .*; its servers: "filesystem"/);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
  });

  it('a proxy on the local socket can neither list clients nor preview, wrap or unwrap', async () => {
    const { router, file, policy, service } = setup();
    const plan = service.planWrap({ client: 'claude-desktop', policy });
    const viaSocket = { transport: 'local-socket' as const };
    expect(await router.dispatch('clients.planWrap', { client: 'claude-desktop', policy }, viaSocket)).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(await router.dispatch('clients.wrap', { client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash }, viaSocket)).toMatchObject({
      ok: false,
      error: { code: 'E_UNAUTHORIZED', message: expect.stringContaining('clients.wrap needs the "decide" capability') },
    });
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);

    const wrapped = await router.dispatch('clients.wrap', { client: 'claude-desktop', policy, expectedDiffHash: plan.diffHash }, { transport: 'websocket' });
    expect(wrapped).toMatchObject({ ok: true, value: { servers: STDIO_SERVERS } });
    expect(await router.dispatch('clients.unwrap', { client: 'claude-desktop' }, viaSocket)).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(readFileSync(file, 'utf8')).not.toBe(CLAUDE_CONFIG);
    expect(await router.dispatch('clients.unwrap', { client: 'claude-desktop' }, { transport: 'ipc' })).toMatchObject({ ok: true });
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_CONFIG);
    expect(await router.dispatch('clients.list', {}, viaSocket)).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    // The contract refuses a malformed hash before any service runs.
    expect(await router.dispatch('clients.wrap', { client: 'claude-desktop', policy, expectedDiffHash: 'abc' }, { transport: 'ipc' })).toMatchObject({ ok: false, error: { code: 'E_INVALID_ARGS' } });
  });
});
