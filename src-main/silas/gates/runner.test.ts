import { describe, expect, it } from 'vitest';
import type { Gate, GateContext } from '../../../src-shared/silas/gates.js';
import { createTestLedger } from '../../testing/ledger.js';
import { useTempDirs } from '../../testing/temp.js';
import { ContentGateProvider } from './content-provider.js';
import { CustomGateProvider } from './custom-provider.js';
import { LlmGateProvider, type QualityJudge } from './llm-provider.js';
import { PredicateGateProvider } from './predicate-provider.js';
import { GateConfigError, type GateCheckProvider, type GateVerdict } from './provider.js';
import { GateRunner } from './runner.js';
import { MemoryAudit } from './testing/gates.js';

/** A provider whose verdict the test chooses, counting how often gates are prepared and run. */
class ScriptedProvider implements GateCheckProvider {
  prepared = 0;
  calls: { gate: string; context: GateContext }[] = [];
  constructor(
    readonly name: Gate['provider'],
    private readonly decide: (gate: Gate, context: GateContext) => GateVerdict | Promise<GateVerdict>,
  ) {}
  prepare(gate: Gate) {
    this.prepared++;
    return (context: GateContext) => {
      this.calls.push({ gate: gate.name, context });
      return this.decide(gate, context);
    };
  }
}

const fixed = (verdicts: Record<string, GateVerdict>) => (gate: Gate) => verdicts[gate.name] ?? { action: 'continue' as const, reason: 'ok' };

function runnerWith(providers: GateCheckProvider[], audit = new MemoryAudit()) {
  return { runner: new GateRunner({ providers, audit }), audit };
}

describe('GateRunner: triggers and the active set', () => {
  it('runs only the gates of the trigger; on_tool_call gates run before dispatch with the tool arguments', async () => {
    const custom = new ScriptedProvider('custom', fixed({}));
    const { runner } = runnerWith([custom]);
    const set = runner.compile({
      workItem: [
        { name: 'in', on: 'every_user_message', provider: 'custom' },
        { name: 'tool', on: 'on_tool_call', provider: 'custom' },
        { name: 'out', on: 'every_agent_response', provider: 'custom' },
      ],
    });
    await runner.checkGates(set, 'on_tool_call', { tool_name: 'shell_exec', tool_args: { command: ['ls'] } });
    expect(custom.calls.map((c) => c.gate)).toEqual(['tool']);
    expect(custom.calls[0]!.context.tool_args).toEqual({ command: ['ls'] });
  });

  it('limits an on_tool_call gate to config.tools, and still runs it when the tool name is missing', async () => {
    const custom = new ScriptedProvider('custom', fixed({}));
    const { runner } = runnerWith([custom]);
    const set = runner.compile({ workItem: [{ name: 'trade_only', on: 'on_tool_call', provider: 'custom', config: { tools: ['place_order'] } }] });
    await runner.checkGates(set, 'on_tool_call', { tool_name: 'shell_exec' });
    expect(custom.calls).toHaveLength(0);
    await runner.checkGates(set, 'on_tool_call', { tool_name: 'place_order' });
    await runner.checkGates(set, 'on_tool_call', {});
    expect(custom.calls).toHaveLength(2);
    expect(() => runner.compile({ workItem: [{ name: 'x', on: 'every_user_message', provider: 'custom', config: { tools: ['a'] } }] })).toThrow(/only an on_tool_call gate/);
  });

  it('matches after_step gates to their step and requires the step', async () => {
    const custom = new ScriptedProvider('custom', fixed({}));
    const { runner } = runnerWith([custom]);
    const set = runner.compile({
      workItem: [
        { name: 's1', on: 'after_step', after_step: 1, provider: 'custom' },
        { name: 's2', on: 'after_step', after_step: 2, provider: 'custom' },
      ],
    });
    await runner.checkGates(set, 'after_step', {}, { step: 2 });
    expect(custom.calls.map((c) => c.gate)).toEqual(['s2']);
    await expect(runner.checkGates(set, 'after_step', {})).rejects.toThrow(/needs options.step/);
  });

  it('precompiles once: the same set serves input, output and tool checks without preparing again', async () => {
    const custom = new ScriptedProvider('custom', fixed({}));
    const { runner } = runnerWith([custom]);
    const gates = [
      { name: 'in', on: 'every_user_message', provider: 'custom' },
      { name: 'out', on: 'every_agent_response', provider: 'custom' },
      { name: 'tool', on: 'on_tool_call', provider: 'custom' },
    ];
    const set = runner.compile({ workItem: gates });
    expect(custom.prepared).toBe(3);
    for (let turn = 0; turn < 5; turn++) {
      await runner.checkGates(set, 'every_user_message', { message: 'hi' });
      await runner.checkGates(set, 'on_tool_call', { tool_name: 't' });
      await runner.checkGates(set, 'every_agent_response', { response: 'hello' });
    }
    expect(custom.prepared).toBe(3);
    expect(custom.calls).toHaveLength(15);
  });

  it('freezes the set: editing the source gates after compiling changes nothing', async () => {
    const { runner } = runnerWith([new PredicateGateProvider()]);
    const source = [{ name: 'market', on: 'on_tool_call', type: 'string_match', extract: 'm', allowed_values: ['weather'] }];
    const set = runner.compile({ workItem: source });
    source[0]!.allowed_values.push('politics');
    expect((await runner.checkGates(set, 'on_tool_call', { m: 'politics' })).decision).toBe('block');
    expect(Object.isFrozen(set.gates)).toBe(true);
    expect(Object.isFrozen(set.gates[0]!.allowed_values)).toBe(true);
    expect(() => (set.gates as Gate[]).push(set.gates[0]!)).toThrow(TypeError);
  });

  it('orders system gates before work-item gates and refuses duplicate names', async () => {
    const custom = new ScriptedProvider('custom', fixed({}));
    const { runner } = runnerWith([custom]);
    const set = runner.compile({
      system: [{ name: 'sys', on: 'every_user_message', provider: 'custom' }],
      workItem: [{ name: 'plan', on: 'every_user_message', provider: 'custom' }],
    });
    await runner.checkGates(set, 'every_user_message', { message: 'x' });
    expect(custom.calls.map((c) => c.gate)).toEqual(['sys', 'plan']);
    expect(() => runner.compile({ system: [{ name: 'a', on: 'on_tool_call', provider: 'custom' }], workItem: [{ name: 'a', on: 'on_tool_call', provider: 'custom' }] })).toThrow(
      /gate "a": name: another active gate already has this name \(gates\[0\]\)/,
    );
  });

  it('refuses an invalid gate at compile time, naming the gate and the field', () => {
    const { runner } = runnerWith([new PredicateGateProvider()]);
    try {
      runner.compile({ workItem: [{ name: 'bad_regex', on: 'on_tool_call', type: 'regex', extract: 'v', config: { pattern: '(?<=x)y' } }] });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(GateConfigError);
      expect((error as GateConfigError).message).toMatch(/^gate "bad_regex": config.pattern: invalid or unsupported RE2 pattern/);
    }
    expect(() => runner.compile({ workItem: [{ name: 'x', on: 'after_step' }] })).toThrow(/gate "x": after_step:/);
  });
});

describe('GateRunner: policy lane', () => {
  it('blocks on the first block, still runs the remaining gates, and reports every result', async () => {
    const custom = new ScriptedProvider(
      'custom',
      fixed({ a: { action: 'require_approval', reason: 'big' }, b: { action: 'block', reason: 'first' }, c: { action: 'block', reason: 'second' } }),
    );
    const { runner, audit } = runnerWith([custom]);
    const set = runner.compile({ workItem: ['a', 'b', 'c', 'd'].map((name) => ({ name, on: 'on_tool_call', provider: 'custom', on_block: 'abort' })) });
    const outcome = await runner.checkGates(set, 'on_tool_call', {}, { scope: { work_item_id: 'task-1' } });
    expect(outcome.decision).toBe('block');
    expect(outcome.blocking?.gate_name).toBe('b');
    expect(outcome.policy.map((r) => [r.gate_name, r.action])).toEqual([
      ['a', 'require_approval'],
      ['b', 'block'],
      ['c', 'block'],
      ['d', 'continue'],
    ]);
    expect(outcome.approvals.map((r) => r.gate_name)).toEqual(['a']);
    const results = audit.named('gate.result');
    expect(results.map((r) => r.gate)).toEqual(['a', 'b', 'c', 'd']);
    expect(results[1]).toMatchObject({ work_item_id: 'task-1', action: 'block', on_block: 'abort', lane: 'policy', trigger: 'on_tool_call' });
  });

  it('require_approval without a block asks; all continue continues', async () => {
    const custom = new ScriptedProvider('custom', fixed({ a: { action: 'require_approval', reason: 'x' } }));
    const { runner } = runnerWith([custom]);
    const set = runner.compile({ workItem: [{ name: 'a', on: 'on_tool_call', provider: 'custom' }, { name: 'b', on: 'on_tool_call', provider: 'custom' }] });
    expect((await runner.checkGates(set, 'on_tool_call', {})).decision).toBe('require_approval');
    const none = runner.compile({ workItem: [{ name: 'b', on: 'on_tool_call', provider: 'custom' }] });
    expect((await runner.checkGates(none, 'on_tool_call', {})).decision).toBe('continue');
  });

  it('a gate whose provider is not registered blocks with "No provider: <name>"', async () => {
    const { runner } = runnerWith([]);
    const set = runner.compile({ workItem: [{ name: 'judge', on: 'every_agent_response', provider: 'llm' }] });
    const outcome = await runner.checkGates(set, 'every_agent_response', { response: 'x' });
    expect(outcome.policy[0]).toMatchObject({ action: 'block', reason: 'No provider: llm', lane: 'policy' });
    expect(outcome.quality).toEqual([]);
  });

  it('fails closed when a policy provider throws or returns garbage', async () => {
    const custom = new ScriptedProvider('custom', (gate) => {
      if (gate.name === 'throws') throw new Error('database is gone');
      return { action: 'allow' } as unknown as GateVerdict;
    });
    const { runner } = runnerWith([custom]);
    const set = runner.compile({ workItem: [{ name: 'throws', on: 'on_tool_call', provider: 'custom' }, { name: 'garbage', on: 'on_tool_call', provider: 'custom' }] });
    const outcome = await runner.checkGates(set, 'on_tool_call', {});
    expect(outcome.policy.map((r) => r.action)).toEqual(['block', 'block']);
    expect(outcome.policy[0]!.reason).toBe('Gate check failed: database is gone');
    expect(outcome.policy[1]!.reason).toMatch(/^Gate returned an invalid result/);
  });

  it('a provider cannot impersonate another gate or lane', async () => {
    const custom = new ScriptedProvider('custom', () => ({ action: 'continue', reason: 'ok', gate_name: 'identity_verified', lane: 'quality' }) as unknown as GateVerdict);
    const { runner } = runnerWith([custom]);
    const set = runner.compile({ workItem: [{ name: 'mine', on: 'on_tool_call', provider: 'custom' }] });
    const [result] = (await runner.checkGates(set, 'on_tool_call', {})).policy;
    expect(result).toMatchObject({ gate_name: 'mine', lane: 'policy' });
  });

  it('a provider cannot edit the context behind the allowlist (the context it sees is frozen)', async () => {
    const rogue = new ScriptedProvider('custom', (_gate, context) => {
      (context as Record<string, unknown>).approval_token = 'forged';
      return { action: 'continue', reason: 'ok' };
    });
    const { runner } = runnerWith([rogue]);
    const set = runner.compile({ workItem: [{ name: 'rogue', on: 'on_tool_call', provider: 'custom' }] });
    const input = { tool_name: 't', budget: 5 };
    const outcome = await runner.checkGates(set, 'on_tool_call', input);
    expect(outcome.decision).toBe('block');
    expect(outcome.context).not.toHaveProperty('approval_token');
    expect(input).toEqual({ tool_name: 't', budget: 5 });
  });
});

describe('GateRunner: ALLOWED_MUTATIONS', () => {
  it('merges allowed mutations left to right, shallow-merging tool_args, and drops and logs everything else', async () => {
    const custom = new ScriptedProvider(
      'custom',
      fixed({
        clamp: { action: 'continue', reason: 'clamped', modified_context: { tool_args: { position_usd: 25 } } },
        rewrite: {
          action: 'continue',
          reason: 'rewrite',
          modified_context: { tool_args: { command: 'npm test --no-coverage' }, approval_token: 'forged', budget: { max_cost_usd: 1e9 }, access_level: 'admin' },
        },
      }),
    );
    const { runner, audit } = runnerWith([custom]);
    const set = runner.compile({ workItem: [{ name: 'clamp', on: 'on_tool_call', provider: 'custom' }, { name: 'rewrite', on: 'on_tool_call', provider: 'custom' }, { name: 'observer', on: 'on_tool_call', provider: 'custom' }] });
    const context = { tool_name: 'trade', tool_args: { position_usd: 80, market: 'weather', command: 'npm test' }, approval_token: 'real', budget: { max_cost_usd: 2 } };
    const outcome = await runner.checkGates(set, 'on_tool_call', context, { scope: { work_item_id: 'w1' } });

    expect(outcome.context).toEqual({
      tool_name: 'trade',
      tool_args: { position_usd: 25, market: 'weather', command: 'npm test --no-coverage' },
      approval_token: 'real',
      budget: { max_cost_usd: 2 },
    });
    // The gate after the mutations saw the merged context.
    expect(custom.calls[2]!.context.tool_args).toEqual({ position_usd: 25, market: 'weather', command: 'npm test --no-coverage' });
    expect(outcome.policy[1]!.modified_context).toEqual({ tool_args: { command: 'npm test --no-coverage' } });
    expect(audit.named('gate.rejected_mutation')).toEqual([
      { work_item_id: 'w1', gate: 'rewrite', key: 'approval_token', reason: 'not_allowed', lane: 'policy' },
      { work_item_id: 'w1', gate: 'rewrite', key: 'budget', reason: 'not_allowed', lane: 'policy' },
      { work_item_id: 'w1', gate: 'rewrite', key: 'access_level', reason: 'not_allowed', lane: 'policy' },
    ]);
    expect(audit.named('gate.mutation')).toEqual([
      { work_item_id: 'w1', gate: 'clamp', key: 'tool_args', original: { position_usd: 80 }, modified: { position_usd: 25 } },
      { work_item_id: 'w1', gate: 'rewrite', key: 'tool_args', original: { command: 'npm test' }, modified: { command: 'npm test --no-coverage' } },
    ]);
    expect(context.tool_args.position_usd).toBe(80);
  });

  it('rejects allowed keys of the wrong type and prototype keys inside tool_args', async () => {
    const custom = new ScriptedProvider(
      'custom',
      fixed({
        a: { action: 'continue', reason: '', modified_context: { response: { html: '<b>' }, tool_args: ['x'], message: 'fine' } },
        b: { action: 'continue', reason: '', modified_context: JSON.parse('{"tool_args": {"constructor": {"prototype": {"polluted": true}}}}') },
      }),
    );
    const { runner, audit } = runnerWith([custom]);
    const set = runner.compile({ workItem: [{ name: 'a', on: 'every_user_message', provider: 'custom' }, { name: 'b', on: 'every_user_message', provider: 'custom' }] });
    const outcome = await runner.checkGates(set, 'every_user_message', { message: 'orig', response: 'r' });
    expect(outcome.context).toEqual({ message: 'fine', response: 'r' });
    expect(audit.named('gate.rejected_mutation').map((e) => [e.key, e.reason])).toEqual([
      ['response', 'wrong_type'],
      ['tool_args', 'wrong_type'],
      ['tool_args.constructor', 'unsafe_key'],
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('records rejected mutations in the real audit chain, and the chain still verifies', async () => {
    const dir = useTempDirs('silas-gate-audit-')();
    const ledger = createTestLedger(dir);
    const custom = new ScriptedProvider('custom', fixed({ g: { action: 'continue', reason: '', modified_context: { status: 'done' } } }));
    const runner = new GateRunner({ providers: [custom], audit: ledger.audit });
    await runner.checkGates(runner.compile({ workItem: [{ name: 'g', on: 'on_tool_call', provider: 'custom' }] }), 'on_tool_call', {});
    const events = ledger.audit.tail(10).map((e) => [e.event, e.data.key ?? e.data.action]);
    expect(events).toEqual([
      ['gate.rejected_mutation', 'status'],
      ['gate.result', 'continue'],
    ]);
    expect(ledger.audit.verifyChain().valid).toBe(true);
    ledger.db.close();
  });

  it('records mutations without the sensitive text they removed', async () => {
    const { runner, audit } = runnerWith([new ContentGateProvider()]);
    const set = runner.compile({ workItem: [{ name: 'pii_out', on: 'every_agent_response', provider: 'guardrails_ai', check: 'pii', config: { on_fail: 'fix' } }] });
    const outcome = await runner.checkGates(set, 'every_agent_response', { response: 'Card 4111 1111 1111 1111 is on file.' });
    expect(outcome.context.response).toBe('Card [REDACTED:CREDIT_CARD] is on file.');
    const [mutation] = audit.named('gate.mutation');
    expect(JSON.stringify(audit.events)).not.toContain('4111');
    expect(mutation).toMatchObject({ key: 'response', original: 'Card [REDACTED:CREDIT_CARD] is on file.' });
  });
});

describe('GateRunner: two lanes', () => {
  const judge: QualityJudge = async (request) => (request.mode === 'quality' ? { score: 0.4, flags: ['off_topic'], reason: 'drifts' } : { action: 'block', reason: 'medical advice' });

  it('policy gates decide; quality gates only score and flag, after the policy lane, on the mutated context', async () => {
    const seen: string[] = [];
    const recording: QualityJudge = async (request) => {
      seen.push(String(request.value));
      return judge(request);
    };
    const { runner } = runnerWith([new LlmGateProvider(recording), new ContentGateProvider()]);
    const set = runner.compile({
      workItem: [
        { name: 'quality', on: 'every_agent_response', provider: 'llm', check: 'Does this answer the question?' },
        { name: 'pii_out', on: 'every_agent_response', provider: 'guardrails_ai', check: 'pii', config: { on_fail: 'fix' } },
      ],
    });
    const outcome = await runner.checkGates(set, 'every_agent_response', { response: 'mail me at a.b@example.com' });
    expect(outcome.decision).toBe('continue');
    expect(outcome.policy.map((r) => r.gate_name)).toEqual(['pii_out']);
    expect(outcome.quality).toEqual([
      { gate_name: 'quality', lane: 'quality', action: 'continue', reason: 'drifts', value: 'mail me at [REDACTED:EMAIL_ADDRESS]', score: 0.4, flags: ['off_topic'], modified_context: null },
    ]);
    expect(seen).toEqual(['mail me at [REDACTED:EMAIL_ADDRESS]']);
  });

  it('a promoted LLM gate runs in the policy lane and its block is enforced', async () => {
    const { runner } = runnerWith([new LlmGateProvider(judge)]);
    const set = runner.compile({ workItem: [{ name: 'medical', on: 'every_agent_response', provider: 'llm', promote_to_policy: true, check: 'Does this contain medical advice?' }] });
    const outcome = await runner.checkGates(set, 'every_agent_response', { response: 'take 2 pills' });
    expect(outcome.decision).toBe('block');
    expect(outcome.policy[0]).toMatchObject({ lane: 'policy', action: 'block', reason: 'medical advice' });
    expect(outcome.quality).toEqual([]);
  });

  it('ignores and logs a block or require_approval from the quality lane, and drops its mutations', async () => {
    const misbehaving = new ScriptedProvider('llm', (gate) =>
      gate.name === 'q1' ? { action: 'block', reason: 'I say no', score: 0.1 } : { action: 'require_approval', reason: 'ask', modified_context: { response: 'rewritten' } },
    );
    const { runner, audit } = runnerWith([misbehaving]);
    const set = runner.compile({ workItem: [{ name: 'q1', on: 'every_agent_response', provider: 'llm' }, { name: 'q2', on: 'every_agent_response', provider: 'llm' }] });
    const outcome = await runner.checkGates(set, 'every_agent_response', { response: 'original' });
    expect(outcome.decision).toBe('continue');
    expect(outcome.context.response).toBe('original');
    expect(outcome.quality.map((r) => [r.action, r.flags, r.modified_context])).toEqual([
      ['continue', ['quality_lane_violation'], null],
      ['continue', ['quality_lane_violation'], null],
    ]);
    expect(audit.named('gate.quality_lane_violation').map((e) => [e.gate, e.action])).toEqual([
      ['q1', 'block'],
      ['q2', 'require_approval'],
    ]);
    expect(audit.named('gate.rejected_mutation')).toEqual([{ gate: 'q2', key: 'response', reason: 'quality_lane', lane: 'quality' }]);
  });

  it('a throwing quality provider fails open with a flag', async () => {
    const broken = new ScriptedProvider('llm', () => {
      throw new Error('model down');
    });
    const { runner } = runnerWith([broken]);
    const set = runner.compile({ workItem: [{ name: 'q', on: 'every_agent_response', provider: 'llm' }] });
    const outcome = await runner.checkGates(set, 'every_agent_response', { response: 'x' });
    expect(outcome.decision).toBe('continue');
    expect(outcome.quality[0]).toMatchObject({ action: 'continue', flags: ['gate_error'] });
  });
});

describe('GateRunner.checkGate', () => {
  it('evaluates one gate and filters its mutation through the allowlist', async () => {
    const custom = new CustomGateProvider({ normalise: () => ({ action: 'continue', reason: 'trimmed', modified_context: { message: 'hi', secrets: 'x' } }) });
    const { runner, audit } = runnerWith([custom]);
    const result = await runner.checkGate({ name: 'n', on: 'every_user_message', provider: 'custom', check: 'normalise' }, { message: '  hi  ' });
    expect(result.modified_context).toEqual({ message: 'hi' });
    expect(audit.named('gate.rejected_mutation')).toEqual([{ gate: 'n', key: 'secrets', reason: 'not_allowed', lane: 'policy' }]);
  });

  it('refuses an unregistered custom check at compile time', () => {
    const { runner } = runnerWith([new CustomGateProvider({})]);
    expect(() => runner.compile({ workItem: [{ name: 'n', on: 'on_tool_call', provider: 'custom', check: 'eval' }] })).toThrow(/unknown custom check "eval"/);
  });
});
