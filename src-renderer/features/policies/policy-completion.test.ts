import { describe, expect, it } from 'vitest';
import { AgentPolicySchema } from '../../../src-shared/policy/schema.js';
import { mappingAt } from '../../../src-shared/policy/schema-kit.js';
import { keyContextAt, policyKeysAt, specKeys } from './policy-completion.js';

/** The context at the `|` in `doc` (the bar itself removed). */
function contextAt(doc: string) {
  const pos = doc.indexOf('|');
  return keyContextAt(doc.slice(0, pos) + doc.slice(pos + 1), pos);
}

const HEAD = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: demo\n';

describe('policy key completion', () => {
  it('offers the keys of spec the schema accepts, each with its description', () => {
    const keys = specKeys();
    expect(keys).toEqual(mappingAt(AgentPolicySchema, ['spec'])!.keys);
    expect(keys).toEqual(expect.arrayContaining(['mode', 'allowed_tools', 'allowed_methods', 'denied_methods', 'protected_paths', 'strict_args_default', 'tool_rules', 'dlp']));
    expect(keys).not.toContain('denied_tools');
    const toolRules = policyKeysAt(['spec']).find((entry) => entry.key === 'tool_rules');
    expect(toolRules?.description).toMatch(/Per-tool rules/);
  });

  it('offers the keys of nested mappings and of sequence items, and nothing under a scalar', () => {
    expect(policyKeysAt([]).map((entry) => entry.key)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(policyKeysAt(['spec', 'tool_rules', 0]).map((entry) => entry.key)).toEqual(expect.arrayContaining(['tool', 'action', 'rate_limit', 'allow_args']));
    expect(policyKeysAt(['spec', 'dlp']).map((entry) => entry.key)).toEqual(expect.arrayContaining(['enabled', 'patterns']));
    expect(policyKeysAt(['spec', 'mode'])).toEqual([]);
    expect(policyKeysAt(['nowhere'])).toEqual([]);
  });

  it('finds the mapping of the key being typed from the indentation above', () => {
    expect(contextAt('|')).toEqual({ path: [], from: 0, prefix: '' });
    expect(contextAt(`${HEAD}spe|`)).toMatchObject({ path: [], prefix: 'spe' });
    expect(contextAt(`${HEAD}spec:\n  mode: enforce\n  allowed_tools:\n    - read_file\n  al|`)).toMatchObject({ path: ['spec'], prefix: 'al' });
    expect(contextAt(`${HEAD}  ver|`)).toMatchObject({ path: ['metadata'], prefix: 'ver' });
    expect(contextAt(`${HEAD}spec:\n  # comment\n\n  |`)).toMatchObject({ path: ['spec'], prefix: '' });
    expect(contextAt(`${HEAD}spec:\n  dlp:\n    enabled: true\n    pat|`)).toMatchObject({ path: ['spec', 'dlp'], prefix: 'pat' });
  });

  it('follows sequence items, indented or not', () => {
    const rules = `${HEAD}spec:\n  tool_rules:\n    - tool: write_file\n      action: ask\n`;
    expect(contextAt(`${rules}      rat|`)).toMatchObject({ path: ['spec', 'tool_rules', 0], prefix: 'rat' });
    expect(contextAt(`${rules}    - to|`)).toMatchObject({ path: ['spec', 'tool_rules', 0], prefix: 'to' });
    expect(contextAt(`${rules}    - tool: a\n      allow_args:\n        path: x\n  dl|`)).toMatchObject({ path: ['spec'], prefix: 'dl' });
    expect(contextAt(`${HEAD}spec:\n  tool_rules:\n  - tool: a\n  - tool: b\n    act|`)).toMatchObject({ path: ['spec', 'tool_rules', 0], prefix: 'act' });
    expect(contextAt(`${HEAD}spec:\n  dlp:\n    patterns:\n      - name: key\n        |`)).toMatchObject({ path: ['spec', 'dlp', 'patterns', 0] });
  });

  it('reports where the typed key starts, and no context inside a value or under a scalar', () => {
    const doc = `${HEAD}spec:\n  allo|`;
    expect(contextAt(doc)?.from).toBe(doc.indexOf('|') - 'allo'.length);
    expect(contextAt(`${HEAD}spec:\n  mode: enf|`)).toBeNull();
    expect(contextAt(`${HEAD}spec:\n  mode: enforce\n    |`)).toBeNull();
  });
});
