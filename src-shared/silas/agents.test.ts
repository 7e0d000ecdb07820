import { describe, expect, it } from 'vitest';
import { AgentResponse, ExecutorTurn, InteractionConfig, MemoryOp, MemoryQuery, PlanAction, RouteDecision, ScorerOutput, StructuredOutputEvent, routeDecisionSchema } from './agents.js';
import { ExecutorAgentOutput } from './execution.js';
import { InteractionMode } from './work.js';

const paths = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) => result.error?.issues.map((issue) => issue.path) ?? [];

describe('AgentResponse (§3.2)', () => {
  it('fills the defaults: no queries, no ops, no plan, and needs_approval true', () => {
    expect(AgentResponse.parse({ message: 'hi' })).toEqual({ message: 'hi', memory_queries: [], memory_ops: [], plan_action: null, needs_approval: true });
  });

  it('allows at most 3 memory queries, and fills a query\u2019s defaults', () => {
    const query = { strategy: 'keyword', query: 'profile' };
    expect(MemoryQuery.parse(query)).toEqual({ strategy: 'keyword', query: 'profile', max_results: 5, max_tokens: 2000 });
    expect(AgentResponse.safeParse({ message: 'x', memory_queries: [query, query, query] }).success).toBe(true);
    expect(paths(AgentResponse.safeParse({ message: 'x', memory_queries: [query, query, query, query] }))).toEqual([['memory_queries']]);
  });

  it('refuses fields the spec does not define (no smuggled approval)', () => {
    expect(AgentResponse.safeParse({ message: 'x', approval_token: 'signed' }).error!.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['approval_token'] });
    expect(PlanAction.safeParse({ action: 'propose', approved: true }).success).toBe(false);
  });

  it('checks plan actions: the action enum, a work item id as continuation target, an interaction mode override', () => {
    expect(PlanAction.parse({ action: 'propose' })).toEqual({ action: 'propose', plan_markdown: null, continuation_of: null, interaction_mode_override: null });
    expect(paths(PlanAction.safeParse({ action: 'run' }))).toEqual([['action']]);
    expect(paths(PlanAction.safeParse({ action: 'revise', continuation_of: '../../etc' }))).toEqual([['continuation_of']]);
    expect(paths(PlanAction.safeParse({ action: 'revise', interaction_mode_override: 'yolo' }))).toEqual([['interaction_mode_override']]);
  });
});

describe('MemoryOp (§3.2 operation-specific fields)', () => {
  it.each([
    [{ op: 'store' }, [['content']]],
    [{ op: 'update', content: 'x' }, [['memory_id']]],
    [{ op: 'delete' }, [['memory_id']]],
    [{ op: 'link', memory_id: 'm1' }, [['link_to'], ['link_type']]],
  ])('%j is refused at %j', (op, expected) => {
    expect(paths(MemoryOp.safeParse(op))).toEqual(expected);
  });

  it('accepts complete operations with memory_type defaulting to episode', () => {
    expect(MemoryOp.parse({ op: 'store', content: 'likes tea' })).toMatchObject({ memory_type: 'episode', tags: [], entity_refs: [] });
    expect(MemoryOp.safeParse({ op: 'link', memory_id: 'm1', link_to: 'm2', link_type: 'caused' }).success).toBe(true);
    expect(paths(MemoryOp.safeParse({ op: 'store', content: 'x', memory_type: 'secret' }))).toEqual([['memory_type']]);
  });
});

describe('RouteDecision (§3.2)', () => {
  const direct = { route: 'direct', reason: 'greeting', response: { message: 'hi' }, interaction_register: 'status', interaction_mode: 'default_and_offer', context_profile: 'conversation' };

  it('requires the response on a direct route and forbids it on a planner route', () => {
    expect(RouteDecision.parse(direct)).toMatchObject({ continuation_of: null, response: { needs_approval: true } });
    expect(paths(RouteDecision.safeParse({ ...direct, response: null }))).toEqual([['response']]);
    expect(paths(RouteDecision.safeParse({ ...direct, route: 'planner' }))).toEqual([['response']]);
    expect(RouteDecision.safeParse({ ...direct, route: 'planner', response: null }).success).toBe(true);
  });

  it('requires a non-empty context profile from the configured registry', () => {
    expect(paths(RouteDecision.safeParse({ ...direct, context_profile: '' }))).toEqual([['context_profile']]);
    const schema = routeDecisionSchema(['conversation', 'coding']);
    expect(schema.safeParse(direct).success).toBe(true);
    expect(schema.safeParse({ ...direct, context_profile: 'research' }).error!.issues[0]).toMatchObject({ path: ['context_profile'], message: expect.stringContaining('conversation, coding') });
  });

  it('requires the register and mode, from their enums', () => {
    const { interaction_register: _r, ...noRegister } = direct;
    expect(paths(RouteDecision.safeParse(noRegister))).toEqual([['interaction_register']]);
    expect(paths(RouteDecision.safeParse({ ...direct, interaction_mode: 'auto' }))).toEqual([['interaction_mode']]);
  });
});

describe('executor and scorer outputs', () => {
  it('reuses the §3.7 ExecutorAgentOutput and InteractionMode rather than copies', async () => {
    const agents = await import('./agents.js');
    expect(agents.ExecutorAgentOutput).toBe(ExecutorAgentOutput);
    expect(agents.InteractionMode).toBe(InteractionMode);
  });

  it('accepts exactly one of tool_call, step_done or finish per executor turn', () => {
    expect(ExecutorTurn.parse({ action: 'finish', output: { summary: 'done' } })).toEqual({ action: 'finish', output: { summary: 'done', artifact_refs: [], next_steps: [] } });
    expect(ExecutorTurn.safeParse({ action: 'tool_call', tool: 'shell_exec', args: { command: ['ls'] } }).success).toBe(true);
    expect(paths(ExecutorTurn.safeParse({ action: 'step_done', step: -1, outputs: {} }))).toEqual([['step']]);
    expect(paths(ExecutorTurn.safeParse({ action: 'approve' }))).toEqual([['action']]);
  });

  it('ScorerOutput has keep and evict groups of block ids', () => {
    expect(ScorerOutput.safeParse({ keep_groups: [{ reason: 'r', block_ids: ['a'] }], evict_groups: [] }).success).toBe(true);
    expect(paths(ScorerOutput.safeParse({ keep_groups: [], evict_groups: [{ block_ids: ['a'] }] }))).toEqual([['evict_groups', 0, 'reason']]);
  });

  it('structured output events carry capped summaries only', () => {
    expect(StructuredOutputEvent.safeParse({ kind: 'repaired', agent: 'proxy', first_error: 'x'.repeat(2001) }).success).toBe(false);
    expect(StructuredOutputEvent.safeParse({ kind: 'fallback', agent: 'scorer', reason: 'call_failed', first_error: 'e', repair_error: null, raw_chars: 0, raw_excerpt: '' }).success).toBe(true);
  });
});

describe('InteractionConfig (§11)', () => {
  it('defaults to high_initiative_min 0.65 and the spec mode per register', () => {
    expect(InteractionConfig.parse({})).toEqual({
      high_initiative_min: 0.65,
      default_mode_by_register: { exploration: 'default_and_offer', execution: 'act_and_report', review: 'confirm_only_when_required', status: 'default_and_offer' },
    });
  });
});
