import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent, StreamOpenResult } from '../../../src-shared/schemas/stream.js';
import { openaiReply } from '../../llm/testing/scripted-openai-server.js';
import { configLocation, type LocationContext } from '../../mcp/clients/locations.js';
import { SERVERS, createTestHome, writePolicy } from '../../mcp/testing/proxy-harness.js';
import { SILAS_BIN } from '../../testing/cli.js';
import { useTempDirs } from '../../testing/temp.js';
import { GREETING_PLAN, directRoute, planCards, startStreamHarness, streamedJson, until, type StreamHarness } from './testing/stream.js';

// Silas uses the MCP servers the person connected, through `silas proxy`, so the server's AIP
// policy governs Silas exactly as it governs any other agent. Real processes: the runtime, the
// proxy child (unsandboxed, as the relay tests run it), the SDK file-tools server.
const tempDir = useTempDirs('silas-stream-mcp-');
let harness: StreamHarness | null = null;

afterEach(async () => {
  await harness?.close();
  harness = null;
});

const ofType = <T extends StreamEvent['type']>(events: StreamEvent[], type: T) => events.filter((event): event is Extract<StreamEvent, { type: T }> => event.type === type);
const turn = (value: unknown) => openaiReply.object(value, { prompt_tokens: 300, completion_tokens: 20 });

/** A person's Claude Desktop configuration with one server wrapped by `silas clients wrap`, and the Stream over it. */
async function streamWithFilesServer(dir: string, policySpec: string) {
  const home = createTestHome(join(dir, 'home'));
  const policy = writePolicy(dir, policySpec);
  const ctx: LocationContext = { platform: 'linux', env: {}, home: join(dir, 'user') };
  const config = configLocation('claude-desktop', ctx);
  mkdirSync(dirname(config), { recursive: true });
  const args = [SILAS_BIN, 'proxy', '--no-sandbox', '--policy', policy, '--home', home.home, '--name', 'files', '--', process.execPath, SERVERS.fileTools];
  writeFileSync(config, JSON.stringify({ mcpServers: { files: { command: process.execPath, args } } }, null, 2));
  const h = (harness = await startStreamHarness(home.home, { store: home.secretStore, overrides: { clientLocations: ctx } }));
  const owner = h.connect('session-a');
  const { scope } = await owner.ok<StreamOpenResult>('stream.open', {});
  return { h, owner, scope };
}

/** Sends the person's request, approves the plan Silas proposes, and waits for the work to end done. */
async function approveAndRun({ h, owner, scope }: Awaited<ReturnType<typeof streamWithFilesServer>>): Promise<void> {
  await owner.turn((await owner.ok<{ turn_id: string }>('stream.send', { scope, text: 'write the greeting, and say hi to the files server' })).turn_id);
  const card = await until(() => planCards(h).find((c) => c.kind === 'plan'), 'the plan card');
  expect((await h.runtime.router.dispatch('review.decide', { id: card.id, choice: 'approve' }, { transport: 'ipc' })).ok).toBe(true);
  await until(() => ofType(owner.events, 'work').find((w) => w.status === 'done' || w.status === 'failed' || w.status === 'blocked'), 'the work to end', 60_000);
  expect(ofType(owner.events, 'work').at(-1)).toMatchObject({ status: 'done' });
}

describe('Silas calls connected MCP servers through their proxies', () => {
  it('an allowed tool answers the executor; a tool the policy forbids is refused by the proxy and audited', async () => {
    // The full list is offered here, so the model can try the forbidden tool and the proxy is seen refusing it
    // (by default the proxy does not offer it at all: the next test, docs/mcp-proxy.md "What tools/list offers").
    const dir = tempDir();
    const run = await streamWithFilesServer(dir, '  allowed_tools: [echo, read_file]\n  x-silas-tools-list:\n    blocked: list\n');
    const { h } = run;
    h.server.http.enqueue(
      streamedJson(directRoute('Plan attached.', { plan_action: { action: 'propose', plan_markdown: GREETING_PLAN }, needs_approval: true })),
      turn({ action: 'tool_call', tool: 'mcp__files__echo', args: { message: 'ping from silas' } }),
      turn({ action: 'tool_call', tool: 'mcp__files__delete_file', args: { path: join(dir, 'policy.yaml') } }),
      turn({ action: 'tool_call', tool: 'shell_exec', args: { command: ['sh', '-c', 'printf hello > hello.txt'] } }),
      turn({ action: 'finish', output: { summary: 'echoed through the proxy and wrote hello.txt', artifact_refs: ['hello.txt'], next_steps: [] } }),
    );
    await approveAndRun(run);

    // The echo's answer reached the executor model; the forbidden call came back as the proxy's refusal.
    const bodies = h.server.http.requests.map((r) => r.body);
    expect(bodies[2]).toContain('ping from silas');
    expect(bodies[3]).toMatch(/delete_file/);
    expect(bodies[3]).toMatch(/not allowed|denied|blocked|policy/i);
    // Both decisions are the proxy's own, in the same ledger, as for any agent.
    const decisions = h.runtime.audit.tail(500).filter((e) => e.event === 'aip.decision').map((e) => e.data as { tool: string; decision: string; server?: string });
    expect(decisions).toEqual(expect.arrayContaining([expect.objectContaining({ tool: 'echo', decision: 'ALLOW' }), expect.objectContaining({ tool: 'delete_file', decision: 'BLOCK' })]));
    const calls = h.runtime.audit.tail(500).filter((e) => e.event === 'silas.executor.tool_call').map((e) => (e.data as { tool: string }).tool);
    expect(calls).toEqual(['mcp__files__echo', 'mcp__files__delete_file', 'shell_exec']);
  });

  it('offers Silas only the tools the policy lets run: a forbidden tool never reaches the executor model', async () => {
    const run = await streamWithFilesServer(tempDir(), '  allowed_tools: [echo, read_file]\n');
    const { h } = run;
    h.server.http.enqueue(
      streamedJson(directRoute('Plan attached.', { plan_action: { action: 'propose', plan_markdown: GREETING_PLAN }, needs_approval: true })),
      turn({ action: 'tool_call', tool: 'mcp__files__echo', args: { message: 'ping from silas' } }),
      turn({ action: 'tool_call', tool: 'shell_exec', args: { command: ['sh', '-c', 'printf hello > hello.txt'] } }),
      turn({ action: 'finish', output: { summary: 'echoed through the proxy and wrote hello.txt', artifact_refs: ['hello.txt'], next_steps: [] } }),
    );
    await approveAndRun(run);

    // What the executor model was offered: the allowed tool, never the one the policy blocks outright.
    const executorAsk = h.server.http.requests.map((r) => r.body)[1]!;
    expect(executorAsk).toContain('mcp__files__echo');
    expect(executorAsk).not.toContain('delete_file');
  });
});
