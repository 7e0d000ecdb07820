import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../../../src-shared/silas/work.js';
import { ScriptedExecutorAgent, parseScriptedCalls } from './scripted-agent.js';
import type { ExecutorAgentContext, ToolCall, ToolCallOutcome } from './types.js';

function fakeContext(answer: (call: ToolCall) => ToolCallOutcome['status'] = () => 'succeeded') {
  const calls: ToolCall[] = [];
  const usage: unknown[] = [];
  const steps: unknown[] = [];
  const controller = new AbortController();
  const context: ExecutorAgentContext = {
    item: {} as WorkItem,
    attempt: 1,
    instructions: '',
    failures: [],
    plannerGuidance: null,
    inputArtifacts: {},
    tools: ['shell_exec', 'python_exec'],
    signal: controller.signal,
    callTool: async (call) => {
      calls.push(call);
      return { status: answer(call), return_value: '', content: [], error: null };
    },
    completeStep: async (report) => {
      steps.push(report);
      return { status: (report.outputs.ok as boolean) ? 'continue' : 'blocked', outputs: report.outputs, reason: null };
    },
    recordUsage: (u) => usage.push(u),
  };
  return { context, calls, usage, steps, controller };
}

describe('ScriptedExecutorAgent', () => {
  it('issues its calls in order, reports usage before each and summarises the outcomes', async () => {
    const agent = new ScriptedExecutorAgent(
      [
        { tool: 'shell_exec', args: { command: ['true'] } },
        { tool: 'python_exec', args: { code: 'print(1)' } },
      ],
      { usagePerCall: { tokens: 7 } },
    );
    const f = fakeContext((call) => (call.tool === 'python_exec' ? 'failed' : 'succeeded'));
    const output = await agent.run(f.context);
    expect(f.calls.map((c) => c.tool)).toEqual(['shell_exec', 'python_exec']);
    expect(f.usage).toEqual([{ tokens: 7 }, { tokens: 7 }]);
    expect(output.summary).toBe('Scripted agent issued 2 tool call(s): 1 succeeded, 1 failed, 0 blocked, 0 invalid, 0 refused');
  });

  it('stops at a refusal or a blocked step, and when the attempt is aborted', async () => {
    const refusing = fakeContext(() => 'refused');
    await new ScriptedExecutorAgent([{ tool: 'a', args: {} }, { tool: 'b', args: {} }]).run(refusing.context);
    expect(refusing.calls).toHaveLength(1);

    const stepping = fakeContext();
    await new ScriptedExecutorAgent([{ step: 1, outputs: { ok: false } }, { tool: 'a', args: {} }]).run(stepping.context);
    expect(stepping.steps).toHaveLength(1);
    expect(stepping.calls).toHaveLength(0);

    const aborted = fakeContext();
    aborted.controller.abort();
    await new ScriptedExecutorAgent([{ tool: 'a', args: {} }]).run(aborted.context);
    expect(aborted.calls).toHaveLength(0);
  });

  it('chooses a script per attempt and claims whatever summary it was given', async () => {
    const agent = new ScriptedExecutorAgent((attempt) => (attempt === 1 ? [] : [{ tool: 'x', args: {} }]), { summary: 'done', nextSteps: ['deploy'] });
    const f = fakeContext();
    expect(await agent.run(f.context)).toEqual({ summary: 'done', artifact_refs: [], next_steps: ['deploy'] });
    expect(f.calls).toHaveLength(0);
    const second = fakeContext();
    await agent.run({ ...second.context, attempt: 2 });
    expect(second.calls).toHaveLength(1);
  });
});

describe('parseScriptedCalls (CALLS.json)', () => {
  it('accepts tool calls and step reports with valid arguments', () => {
    const steps = parseScriptedCalls([
      { tool: 'shell_exec', args: { command: ['ls', '-la'] } },
      { tool: 'python_exec', args: { code: 'print(1)' } },
      { step: 1, outputs: { confidence_score: 0.9 } },
    ]);
    expect(steps).toHaveLength(3);
  });

  it.each([
    [{ calls: [] }, 'calls.json: (document): expected a JSON list'],
    [[42], 'calls.json: [0]: expected an object'],
    [[{ tool: 'shell_exec' }], 'calls.json: [0].args:'],
    [[{ tool: 'shell_exec', args: { command: 'rm -rf /' } }], 'calls.json: [0].args.command: expected an argument list'],
    [[{ tool: 'shell_exec', args: { command: [] } }], 'calls.json: [0].args.command: expected at least the program name'],
    [[{ tool: 'shell_exec', args: { command: ['ls'], cwd: '/' } }], 'calls.json: [0].args: unknown argument(s) cwd'],
    [[{ tool: 'python_exec', args: { code: 1 } }], 'calls.json: [0].args.code: expected Python source text'],
    [[{ tool: 'web_fetch', args: {} }], 'calls.json: [0].tool: unknown tool "web_fetch"; known: shell_exec, python_exec'],
    [[{ tool: 'shell_exec', args: { command: ['ls'] }, note: 'x' }], 'calls.json: [0]: unknown field(s) note'],
    [[{ step: -1, outputs: {} }], 'calls.json: [0].step: expected a step number >= 0'],
  ])('refuses %j naming the file, index and field', (document, message) => {
    expect(() => parseScriptedCalls(document, 'calls.json')).toThrow(message);
  });

  it('refuses an oversized script', () => {
    expect(() => parseScriptedCalls(Array.from({ length: 1001 }, () => ({ tool: 'shell_exec', args: { command: ['true'] } })))).toThrow(/at most 1000 entries/);
  });
});
