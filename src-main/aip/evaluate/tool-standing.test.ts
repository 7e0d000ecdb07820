import { describe, expect, it } from 'vitest';
import { loadPolicyText } from '../policy/load.js';
import type { AgentPolicy } from '../policy/types.js';
import { PolicyEvaluator } from './evaluator.js';
import { toolStanding } from './tool-standing.js';

function policy(spec: string): AgentPolicy {
  const loaded = loadPolicyText(`apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: test\nspec:\n${spec.replace(/^/gm, '  ')}\n`);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
  return loaded.policy;
}

const RULES = [
  'allowed_tools: [read_file, fetch]',
  'tool_rules:',
  '  - tool: delete_file',
  '    action: block',
  '  - tool: write_file',
  '    action: ask',
  '  - tool: fetch',
  '    allow_args:',
  '      url: "^https://"',
  '  - tool: search',
  '    action: allow',
  '    strict_args: true',
  '    allow_args:',
  '      query: "^[a-z ]+$"',
].join('\n');

/** Arguments a caller might send: none, matching, not matching, undeclared. */
const ARGUMENTS: unknown[] = [undefined, {}, { url: 'https://example.com' }, { url: 'file:///etc' }, { query: 'cats' }, { query: 'cats', extra: 1 }, { path: '/tmp/x' }];

describe('toolStanding: what a policy says of a tool before any call', () => {
  it('blocks only what every call refuses, asks what waits for the person, and leaves argument-ruled tools on offer', () => {
    const p = policy(RULES);
    expect(['read_file', 'delete_file', 'write_file', 'fetch', 'search', 'shell'].map((tool) => [tool, toolStanding(p, tool)])).toEqual([
      ['read_file', 'allow'],
      ['delete_file', 'block'],
      ['write_file', 'ask'],
      ['fetch', 'allow'],
      ['search', 'allow'],
      ['shell', 'block'],
    ]);
  });

  it('agrees with the evaluator for every argument: a "block" tool is always refused, an "ask" tool never runs without the person', () => {
    for (const spec of [RULES, `mode: monitor\n${RULES}`, `denied_methods: [tools/call]\n${RULES}`, `mode: monitor\ndenied_methods: [tools/call]\n${RULES}`]) {
      const p = policy(spec);
      const evaluator = new PolicyEvaluator(p);
      for (const tool of ['read_file', 'delete_file', 'write_file', 'fetch', 'search', 'shell']) {
        const decisions = new Set(ARGUMENTS.map((args) => evaluator.evaluate({ method: 'tools/call', tool, args }).decision));
        const standing = toolStanding(p, tool);
        if (standing === 'block') expect([...decisions], `${tool} under ${spec.split('\n')[0]}`).toEqual(['BLOCK']);
        else expect(decisions.has('ALLOW') || decisions.has('ASK'), `${tool} under ${spec.split('\n')[0]}`).toBe(true);
        if (standing === 'ask') expect(decisions.has('ALLOW'), tool).toBe(false);
      }
    }
  });

  it('monitor mode forwards what enforce mode blocks, so nothing is blocked outright; a refused tools/call blocks every tool', () => {
    expect(toolStanding(policy(`mode: monitor\n${RULES}`), 'delete_file')).toBe('allow');
    expect(toolStanding(policy(`mode: monitor\n${RULES}`), 'write_file')).toBe('ask');
    expect(toolStanding(policy(`denied_methods: [tools/call]\n${RULES}`), 'read_file')).toBe('block');
    expect(toolStanding(policy(`allowed_methods: [initialize, tools/list]\n${RULES}`), 'write_file')).toBe('block');
    expect(toolStanding(null, 'read_file')).toBe('block');
  });
});
