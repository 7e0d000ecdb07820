import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import type { NotificationRequest } from '../app/types.js';
import { SERVERS, connectThroughProxy, createTestHome, signPolicyForHome } from '../mcp/testing/proxy-harness.js';
import { SILAS_BIN } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';

// Alignment end to end with real processes: a real MCP server behind a real `silas proxy` allows,
// blocks and asks; the runtime turns each decision into a verified AP-Trace against the card it
// derived from the policy; an agent whose behaviour changes halfway raises exactly one drift alert,
// in the chain and as a notification.
const tempDir = useTempDirs('silas-alignment-process-');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

const POLICY = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: files
spec:
  allowed_tools: [echo, read_file, write_file]
  tool_rules:
    - tool: write_file
      action: ask
    - tool: delete_file
      action: block
`;

describe('alignment of a real proxied server', () => {
  it('records verified traces of allow, block and ask; a change of behaviour halfway raises one drift alert', async () => {
    const dir = tempDir();
    const home = createTestHome(join(dir, 'home'));
    const policy = join(home.home, 'policies', 'files.yaml');
    mkdirSync(join(home.home, 'policies'), { recursive: true });
    writeFileSync(policy, POLICY);
    // Signed by the owner key: a card is derived only from a signed policy (docs/alignment.md).
    signPolicyForHome(home, policy);
    // The client entry that wraps the server names its policy: the card is derived from it.
    const user = join(dir, 'user');
    mkdirSync(join(user, '.config', 'Claude'), { recursive: true });
    const entry = { command: process.execPath, args: [SILAS_BIN, 'proxy', '--name', 'files', '--policy', policy, '--home', home.home, '--client', 'claude-desktop', '--', process.execPath, SERVERS.fileTools] };
    writeFileSync(join(user, '.config', 'Claude', 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { files: entry } }));
    const notified: NotificationRequest[] = [];
    const runtime = await buildRuntime(
      { home: home.home, mode: 'desktop' },
      { secretStore: home.secretStore, logger: silentLogger, clientLocations: { platform: 'linux', env: {}, home: user }, notifier: { notify: (n) => notified.push(n) } },
    );
    await runtime.start();
    open.push({ close: () => runtime.stop('test') });
    const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVERS.fileTools, extra: ['--name', 'files', '--client', 'claude-desktop', '--ask-timeout', '1'] });
    open.unshift({ close: () => proxied.close() });
    const call = (tool: string, args: Record<string, unknown>) =>
      proxied.client.callTool({ name: tool, arguments: args }).then(
        (result) => ((result as { isError?: boolean }).isError ? 'error' : 'allowed'),
        (error: unknown) => (error instanceof McpError ? `refused ${error.code}` : 'failed'),
      );

    // A baseline of plain reads, one blocked delete, then writes nobody approves (each asks, and times out).
    for (let i = 0; i < 12; i += 1) expect(await call('echo', { message: `hi ${i}` })).toBe('allowed');
    expect(await call('delete_file', { path: join(dir, 'x') })).toMatch(/^refused -32\d+$/);
    const writes = await Promise.all(Array.from({ length: 6 }, (_, i) => call('write_file', { path: join(dir, `w${i}`), content: 'x' })));
    expect(writes.every((w) => /^refused -32\d+$/.test(w))).toBe(true);

    const dispatch = async <T>(name: string, args: unknown) => ((await runtime.router.dispatch(name, args, { transport: 'ipc', session: 'session-ipc' })) as { ok: true; value: T }).value;
    await expect
      .poll(async () => (await dispatch<{ agents: Array<{ agentId: string; traces: number }> }>('alignment.agents', {})).agents.find((a) => a.agentId === 'mcp:claude-desktop/files')?.traces, { timeout: 15_000, interval: 200 })
      .toBe(19);
    const traces = runtime.audit
      .tail(5_000)
      .filter((e) => e.event === 'aap.trace')
      .map((e) => e.data as { verified: boolean; violations: string[]; trace: ApTrace; signature: string | null });
    expect(traces.every((t) => t.verified && t.signature?.startsWith('ed25519:'))).toBe(true);
    expect(traces.map((t) => `${t.trace.action.name}:${t.trace.action.type}:${t.trace.escalation?.escalation_status ?? '-'}`)).toEqual([
      ...Array(12).fill('echo:execute:-'),
      'delete_file:deny:-',
      ...Array(6).fill('write_file:deny:timeout'),
    ]);
    const card = await dispatch<{ source: string; signature: string; card: { autonomy_envelope: { bounded_actions: string[]; forbidden_actions: string[] } } }>('alignment.card', { agentId: 'mcp:claude-desktop/files' });
    expect(card).toMatchObject({ source: 'derived', signature: 'owner', card: { autonomy_envelope: { bounded_actions: ['echo', 'read_file'], forbidden_actions: ['delete_file'] } } });

    const alerts = runtime.audit.tail(5_000).filter((e) => e.event === 'aap.drift_alert');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.data).toMatchObject({ agent_id: 'mcp:claude-desktop/files', sustained: 3 });
    expect(notified.filter((n) => n.title === 'mcp:claude-desktop/files is drifting from its baseline')).toHaveLength(1);
    expect(runtime.audit.verifyChain()).toMatchObject({ valid: true });
  }, 60_000);
});
