import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PolicyFileStatus, PolicyVersionView } from '../../../src-shared/schemas/policy-editor.js';
import { silentLogger } from '../../app/logger.js';
import { buildRuntime } from '../../app/runtime.js';
import { SERVERS, connectThroughProxy, createTestHome } from '../../mcp/testing/proxy-harness.js';
import { useTempDirs } from '../../testing/temp.js';

// Saving a policy end to end with real processes: a policy saved from the cockpit's contract is
// signed, written and hot-reloaded by a running proxy, which enforces the new rule on a real MCP
// call; restoring the previous version brings the old rule back.
const tempDir = useTempDirs('silas-policy-save-');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

const policy = (tools: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: files\nspec:\n  mode: enforce\n  allowed_tools: [${tools}]\n`;

describe('a policy saved in the cockpit governs a running proxy', () => {
  it('a hand-written file is enforced once adopted; save blocks echo on the next call; an outside edit is not enforced until adopted; restoring blocks it again', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    mkdirSync(join(home.home, 'policies'));
    const file = join(home.home, 'policies', 'files.yaml');
    writeFileSync(file, policy('echo, read_file'));
    const runtime = await buildRuntime({ home: home.home, mode: 'desktop' }, { secretStore: home.secretStore, logger: silentLogger, clientLocations: { platform: 'linux', env: {}, home: join(dir, 'user') } });
    await runtime.start();
    open.push({ close: () => runtime.stop('test') });
    const call = (ipc: string, args: unknown) => runtime.router.dispatch(ipc, args, { transport: 'ipc', session: 'session-ipc' });
    // The file was written by hand: nothing the owner signed is in force, so the person adopts it first.
    const listed = (await call('policies.list', {})) as { ok: true; value: { policies: PolicyFileStatus[] } };
    expect(listed.value.policies).toEqual([expect.objectContaining({ path: file, signature: 'unsigned', modifiedOutside: true, inForce: false, inForceSeq: null })]);
    const first = (await call('policies.adopt', { path: file })) as { ok: true; value: { status: PolicyFileStatus } };
    expect(first.value.status).toMatchObject({ signature: 'owner', inForce: true });
    const proxied = await connectThroughProxy({ home: home.home, policy: file, server: SERVERS.fileTools, extra: ['--name', 'files'] });
    open.unshift({ close: () => proxied.close() });
    const echo = () => proxied.client.callTool({ name: 'echo', arguments: { message: 'hi' } }).then(
      (result) => ((result as { isError?: boolean }).isError ? 'error' : 'allowed'),
      (error: unknown) => (error instanceof McpError ? `refused ${error.code}` : 'failed'),
    );
    expect(await echo()).toBe('allowed');

    const read = (await call('policies.read', { path: file })) as { ok: true; value: { status: PolicyFileStatus; text: string } };
    const saved = (await call('policies.save', { path: file, text: policy('read_file'), expected_sha256: read.value.status.textSha256 })) as { ok: true; value: { version: PolicyVersionView } };
    expect(saved.ok).toBe(true);
    await expect.poll(echo, { timeout: 10_000, interval: 200 }).toMatch(/^refused -32\d+$/);

    const history = (await call('policies.history', { path: file })) as { ok: true; value: { versions: PolicyVersionView[] } };
    expect(history.value.versions.map((v) => v.seq)).toEqual([2, 1]);
    // An edit outside the cockpit is not enforced: the proxy keeps version 2 until the person adopts it.
    writeFileSync(file, policy('echo, read_file'));
    await expect.poll(() => runtime.audit.tail(200).some((e) => e.event === 'aip.policy_refused'), { timeout: 10_000, interval: 200 }).toBe(true);
    expect(await echo()).toMatch(/^refused -32\d+$/);
    const relisted = (await call('policies.list', {})) as { ok: true; value: { policies: PolicyFileStatus[] } };
    expect(relisted.value.policies).toEqual([expect.objectContaining({ path: file, signature: 'unsigned', inForce: false, inForceSeq: 2 })]);
    const adopted = (await call('policies.adopt', { path: file })) as { ok: true; value: { version: PolicyVersionView } };
    expect(adopted.ok).toBe(true);
    await expect.poll(echo, { timeout: 10_000, interval: 200 }).toBe('allowed');
    const restored = await call('policies.restore', { id: saved.value.version.id });
    expect(restored.ok).toBe(true);
    await expect.poll(echo, { timeout: 10_000, interval: 200 }).toMatch(/^refused -32\d+$/);

    const audit = runtime.audit.tail(200).filter((e) => e.event === 'policies.saved').map((e) => (e.data as { action: string }).action);
    expect(audit).toEqual(['adopt', 'save', 'adopt', 'restore']);
    // The cockpit cannot write anything else through this call.
    expect(await call('policies.save', { path: join(home.home, 'silas.db'), text: policy('read_file'), expected_sha256: null })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
    expect(await runtime.router.dispatch('policies.save', { path: file, text: policy('echo'), expected_sha256: null }, { transport: 'local-socket' })).toMatchObject({ ok: false, error: { code: 'E_UNAUTHORIZED' } });
  });
});
