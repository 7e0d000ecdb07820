import { describe, expect, it } from 'vitest';
import { AgentPolicySchema } from '../../../src-shared/policy/schema.js';
import { descriptionOf, mappingAt, schemaAt } from '../../../src-shared/policy/schema-kit.js';
import { policyFieldAt, readablePath, valueContextAt } from './policy-hover.js';

const DOC = [
  'apiVersion: aip.io/v1alpha2',
  'kind: AgentPolicy',
  'metadata:',
  '  name: demo # a comment: with a colon',
  'spec:',
  '  mode: enforce',
  '  tool_rules:',
  '    - tool: write_file',
  '      action: ask',
  '      allow_args:',
  '        path: ^/tmp/',
  '  dlp:',
  '    "scan_requests": true',
  '    patterns:',
  '      - name: token',
  '        regex: tok_[a-z]+',
  '',
].join('\n');

/** The documentation at the first occurrence of `needle` in DOC, `offset` characters into it. */
const at = (needle: string, offset = 1) => policyFieldAt(DOC, DOC.indexOf(needle) + offset);

describe('policy hover documentation', () => {
  it('documents a key with its path, the schema description, its values and default', () => {
    const mode = at('mode:');
    expect(mode).toMatchObject({ key: 'mode', path: 'spec.mode', values: ['enforce', 'monitor'], defaultValue: 'enforce' });
    expect(mode?.description).toBe(descriptionOf(schemaAt(AgentPolicySchema, ['spec', 'mode'])));
    expect(mode?.description).toMatch(/monitor only logs/);
    expect(DOC.slice(mode!.from, mode!.to)).toBe('mode');
  });

  it('follows sequence items and nested mappings, including quoted keys', () => {
    expect(at('- tool:', 3)).toMatchObject({ key: 'tool', path: 'spec.tool_rules[].tool' });
    expect(at('action: ask')).toMatchObject({ path: 'spec.tool_rules[].action', values: ['allow', 'block', 'ask'], defaultValue: 'allow' });
    expect(at('"scan_requests"', 2)).toMatchObject({ key: 'scan_requests', path: 'spec.dlp.scan_requests', values: ['true', 'false'], defaultValue: 'false' });
    expect(at('regex:')).toMatchObject({ path: 'spec.dlp.patterns[].regex' });
    expect(at('regex:')?.description).toMatch(/RE2/);
  });

  it('documents every key the schema accepts in spec, each with a description', () => {
    for (const key of mappingAt(AgentPolicySchema, ['spec'])!.keys) {
      const doc = `apiVersion: aip.io/v1alpha2\nspec:\n  ${key}: x\n`;
      const field = policyFieldAt(doc, doc.indexOf(key) + 1);
      expect(field?.path, key).toBe(`spec.${key}`);
      expect(field?.description, key).not.toBe('');
    }
  });

  it('shows nothing for values, comments and unknown keys; describes a free argument name by its mapping', () => {
    expect(at('enforce')).toBeNull();
    expect(at('# a comment', 3)).toBeNull();
    expect(at('with a colon', 3)).toBeNull();
    expect(policyFieldAt('spec:\n  alowed_tools: []\n', 9)).toBeNull();
    // allow_args maps free argument names to patterns: `path` is documented by that mapping.
    expect(at('path: ^/tmp/')).toMatchObject({ path: 'spec.tool_rules[].allow_args.path' });
    expect(at('path: ^/tmp/')?.description).toMatch(/^An entry of spec.tool_rules\[\].allow_args: Argument name → RE2/);
  });

  it('writes paths as a person reads them', () => {
    expect(readablePath(['spec', 'tool_rules', 0, 'allow_args'])).toBe('spec.tool_rules[].allow_args');
    expect(readablePath([])).toBe('');
  });
});

describe('policy value completion', () => {
  const ctx = (doc: string) => {
    const pos = doc.indexOf('|');
    return valueContextAt(doc.slice(0, pos) + doc.slice(pos + 1), pos);
  };

  it('offers the values an enumerated field accepts, from where the value starts', () => {
    expect(ctx('spec:\n  mode: mon|')).toEqual({ from: 'spec:\n  mode: '.length, values: ['enforce', 'monitor'] });
    expect(ctx('spec:\n  tool_rules:\n    - tool: a\n      action: |')?.values).toEqual(['allow', 'block', 'ask']);
    expect(ctx('spec:\n  dlp:\n    on_request_match: re|')?.values).toEqual(['block', 'redact', 'warn']);
  });

  it('offers nothing for free-form fields or where no value is being typed', () => {
    expect(ctx('spec:\n  tool_rules:\n    - tool: wri|')).toBeNull();
    expect(ctx('spec:\n  mode|')).toBeNull();
    expect(ctx('spec:\n  nothing: a|')).toBeNull();
  });
});
