import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApTrace } from '../../src-shared/aap/trace.js';
import { silentLogger } from '../app/logger.js';
import { buildRuntime } from '../app/runtime.js';
import type { Runtime } from '../app/types.js';
import type { LocationContext } from '../mcp/clients/locations.js';
import { connectedServers } from '../mcp/silas-tools/connected-servers.js';
import { McpToolbox } from '../mcp/silas-tools/mcp-toolbox.js';
import { SERVERS, childEnv, connectThroughProxy, createTestHome, signPolicyForHome, type TestHome } from '../mcp/testing/proxy-harness.js';
import { SILAS_BIN } from '../testing/cli.js';
import { useTempDirs } from '../testing/temp.js';

// Alignment tells the truth about who called (docs/alignment.md "Governed agents and their
// cards"), with real processes: a proxy a person starts by hand (no --client, no wrapped entry)
// is judged on the card derived from the policy it enforces, and Silas's calls through a server a
// client wrapped are Silas's, not that client's. The policy allows `echo` through a `tool_rules`
// allow rule only, as wrapped Claude Desktop servers often are.
const tempDir = useTempDirs('silas-alignment-callers-');
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

const POLICY = `apiVersion: aip.io/v1alpha2
kind: AgentPolicy
metadata:
  name: files
spec:
  allowed_tools: [read_file]
  tool_rules:
    - tool: echo
      action: allow
    - tool: write_file
      action: ask
    - tool: delete_file
      action: block
`;

interface Setup {
  home: TestHome;
  policy: string;
  locations: LocationContext;
  runtime: Runtime;
}

/** A home with the signed policy, `claudeEntry` (if any) in Claude Desktop's configuration, and the runtime started. */
async function setup(claudeEntry?: (home: TestHome, policy: string) => { command: string; args: string[] }): Promise<Setup> {
  const dir = tempDir();
  const home = createTestHome(join(dir, 'home'));
  const policy = join(home.home, 'policies', 'files.yaml');
  mkdirSync(join(home.home, 'policies'), { recursive: true });
  writeFileSync(policy, POLICY);
  signPolicyForHome(home, policy);
  const user = join(dir, 'user');
  mkdirSync(join(user, '.config', 'Claude'), { recursive: true });
  if (claudeEntry) writeFileSync(join(user, '.config', 'Claude', 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { files: claudeEntry(home, policy) } }));
  const locations: LocationContext = { platform: 'linux', env: {}, home: user };
  const runtime = await buildRuntime({ home: home.home, mode: 'desktop' }, { secretStore: home.secretStore, logger: silentLogger, clientLocations: locations, notifier: { notify: () => undefined } });
  await runtime.start();
  open.push({ close: () => runtime.stop('test') });
  return { home, policy, locations, runtime };
}

type TraceData = { agent_id: string; card_id: string; verified: boolean; violations: string[]; trace: ApTrace };

async function tracesOf(runtime: Runtime, agentId: string, count: number): Promise<TraceData[]> {
  const dispatch = async <T>(name: string, args: unknown) => ((await runtime.router.dispatch(name, args, { transport: 'ipc', session: 'session-ipc' })) as { ok: true; value: T }).value;
  await expect
    .poll(async () => (await dispatch<{ agents: Array<{ agentId: string; traces: number }> }>('alignment.agents', {})).agents.find((a) => a.agentId === agentId)?.traces, { timeout: 20_000, interval: 200 })
    .toBe(count);
  return runtime.audit
    .tail(5_000)
    .filter((e) => e.event === 'aap.trace')
    .map((e) => e.data as TraceData);
}

describe('alignment knows who called', () => {
  it('judges a proxy started by hand (no --client) on the card derived from the policy it enforces', async () => {
    const { home, policy, runtime } = await setup();
    const proxied = await connectThroughProxy({ home: home.home, policy, server: SERVERS.fileTools, extra: ['--name', 'files'] });
    open.unshift({ close: () => proxied.close() });
    for (let i = 0; i < 3; i += 1) expect(await proxied.client.callTool({ name: 'echo', arguments: { message: `hi ${i}` } })).toMatchObject({ content: [{ type: 'text', text: `hi ${i}` }] });

    const traces = await tracesOf(runtime, 'mcp:files', 3);
    expect(traces.map((t) => [t.agent_id, t.trace.action.name, t.verified, t.violations])).toEqual(Array(3).fill(['mcp:files', 'echo', true, []]));
    expect(runtime.audit.tail(5_000).filter((e) => e.event === 'aap.violation')).toEqual([]);
    const card = (await runtime.router.dispatch('alignment.card', { agentId: 'mcp:files' }, { transport: 'ipc', session: 'session-ipc' })) as { ok: true; value: { source: string; card: Record<string, unknown> } };
    expect(card.value).toMatchObject({ source: 'derived', card: { autonomy_envelope: { bounded_actions: ['echo', 'read_file'], forbidden_actions: ['delete_file'] }, extensions: { silas: { derived_from: 'policy', policy_path: policy } } } });
  }, 60_000);

  it("records Silas's calls through a server Claude Desktop wraps as Silas's, judged on that policy's card", async () => {
    const { home, locations, runtime } = await setup((h, policy) => ({
      command: process.execPath,
      args: [SILAS_BIN, 'proxy', '--name', 'files', '--policy', policy, '--home', h.home, '--no-sandbox', '--client', 'claude-desktop', '--', process.execPath, SERVERS.fileTools],
    }));
    // Silas's toolbox starts the connected servers exactly as the runtime's plan executor does.
    const toolbox = await McpToolbox.open(connectedServers(locations), { env: childEnv({ SILAS_HOME: home.home }), callTimeoutMs: 30_000 });
    open.unshift({ close: () => toolbox.close() });
    expect(toolbox.list().map((t) => t.name)).toContain('mcp__files__echo');
    for (let i = 0; i < 2; i += 1) expect(await toolbox.call('mcp__files__echo', { message: `from silas ${i}` })).toEqual({ ok: true, text: `from silas ${i}`, error: null });

    const traces = await tracesOf(runtime, 'mcp:silas/files', 2);
    expect(traces.map((t) => [t.agent_id, t.trace.action.name, t.verified, t.violations])).toEqual(Array(2).fill(['mcp:silas/files', 'echo', true, []]));
    const decisions = runtime.audit.tail(5_000).filter((e) => e.event === 'aip.decision' && (e.data as { tool?: string }).tool === 'echo');
    expect(decisions.map((e) => (e.data as { client?: string }).client)).toEqual(['silas', 'silas']);
    // Nothing was attributed to the client whose configuration wraps the server.
    expect(traces.some((t) => t.agent_id === 'mcp:claude-desktop/files')).toBe(false);
  }, 60_000);
});
