import { describe, expect, it } from 'vitest';
import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { AgentPolicySchema, DEFAULT_ALLOWED_METHODS, policySchemaFor } from './schema.js';
import { descriptionOf, layers, mappingAt, schemaAt } from './schema-kit.js';
import { PolicySource } from './source.js';
import { validatePolicyDocument } from './validate.js';

const minimal = { apiVersion: 'aip.io/v1alpha2', kind: 'AgentPolicy', metadata: { name: 'agent' }, spec: {} };
const withSpec = (spec: Record<string, unknown>) => ({ ...minimal, spec });
const issuesOf = (input: unknown, schema: z.ZodType = AgentPolicySchema) => {
  const result = schema.safeParse(input);
  expect(result.success, 'expected the schema to refuse it').toBe(false);
  return result.error!.issues.map((issue) => ({ path: issue.path, code: issue.code, message: issue.message }));
};

describe('AgentPolicySchema', () => {
  it('parses a valid policy, applying the defaults of §3 and parsing durations, rates and sizes', () => {
    const policy = AgentPolicySchema.parse(
      withSpec({
        tool_rules: [{ tool: 'fetch', rate_limit: '10/minute', schema_hash: `sha256:${'A'.repeat(64)}`, allow_args: { url: '^https://' } }],
        dlp: { max_scan_size: '512KB', patterns: [{ name: 'key', regex: 'AKIA[0-9A-Z]{16}' }] },
        identity: { token_ttl: '10m' },
        server: { timeout: '3s' },
      }),
    );
    expect(policy.spec).toMatchObject({ mode: 'enforce', allowed_tools: [], denied_methods: [], protected_paths: [], strict_args_default: false });
    expect(policy.spec.allowed_methods).toEqual(DEFAULT_ALLOWED_METHODS);
    expect(policy.spec.tool_rules[0]).toMatchObject({ action: 'allow', rate_limit: { count: 10, periodMs: 60_000, source: '10/minute' }, schema_hash: { algorithm: 'sha256', hex: 'a'.repeat(64) } });
    expect([...policy.spec.tool_rules[0]!.allow_args!]).toEqual([['url', '^https://']]);
    expect(policy.spec.dlp).toMatchObject({ enabled: true, scan_requests: false, scan_responses: true, max_scan_size: 524_288, on_request_match: 'block', on_redaction_failure: 'block' });
    expect(policy.spec.dlp!.patterns[0]!.scope).toBe('all');
    expect(policy.spec.identity).toMatchObject({ enabled: false, token_ttl: { ms: 600_000, text: '10m' }, session_binding: 'process', require_token: false });
    expect(policy.spec.server).toMatchObject({ enabled: false, listen: '127.0.0.1:9443', failover_mode: 'fail_closed', timeout: { ms: 3_000, text: '3s' } });
  });

  it('keeps an argument named __proto__ (a record would drop it)', () => {
    const args = JSON.parse('{"__proto__": "^x$", "y": "z"}') as Record<string, string>;
    const policy = AgentPolicySchema.parse(withSpec({ tool_rules: [{ tool: 'a', allow_args: args }] }));
    expect([...policy.spec.tool_rules[0]!.allow_args!.keys()]).toEqual(['__proto__', 'y']);
  });

  it.each([
    ['a bad rate', { tool_rules: [{ tool: 'a', rate_limit: '10/fortnight' }] }, ['spec', 'tool_rules', 0, 'rate_limit'], 'unknown period "fortnight"'],
    ['a string for a list', { allowed_tools: 'read_file' }, ['spec', 'allowed_tools'], 'expected a list of tool names'],
    ['an empty tool name', { allowed_tools: [' '] }, ['spec', 'allowed_tools', 0], 'expected a tool name, got an empty string'],
    ['a zero duration', { identity: { token_ttl: '0s' } }, ['spec', 'identity', 'token_ttl'], 'token_ttl must be greater than zero'],
    ['a bad size', { dlp: { max_scan_size: '1 MB', patterns: [{ name: 'a', regex: 'b' }] } }, ['spec', 'dlp', 'max_scan_size'], 'no space between number and unit'],
    ['an unknown action', { tool_rules: [{ tool: 'a', action: 'deny' }] }, ['spec', 'tool_rules', 0, 'action'], ''],
    ['a missing tool', { tool_rules: [{ action: 'block' }] }, ['spec', 'tool_rules', 0, 'tool'], 'expected the tool name this rule applies to'],
    ['a malformed listen address', { server: { listen: '::1:9443' } }, ['spec', 'server', 'listen'], 'without brackets'],
    ['rotation not below token_ttl', { identity: { token_ttl: '5m', rotation_interval: '6m' } }, ['spec', 'identity', 'rotation_interval'], 'must be less than token_ttl (5m)'],
    ['HS256 with server.enabled', { identity: { keys: { signing_algorithm: 'HS256' } }, server: { enabled: true } }, ['spec', 'identity', 'keys', 'signing_algorithm'], 'MUST NOT be used'],
    ['an audience neither URI nor name', { identity: { audience: 'other agent' } }, ['spec', 'identity', 'audience'], 'or the policy name "agent"'],
    ['DLP enabled without patterns', { dlp: { patterns: [] } }, ['spec', 'dlp', 'patterns'], 'DLP is enabled but has no patterns'],
    ['a listen without TLS', { server: { enabled: true, listen: '0.0.0.0:9443' } }, ['spec', 'server', 'listen'], 'TLS MUST be configured'],
  ])('refuses %s, naming its path', (_label, spec, path, message) => {
    expect(issuesOf(withSpec(spec))).toEqual([expect.objectContaining({ path, message: expect.stringContaining(message) })]);
  });

  it('refuses unknown keys at their mapping, and v1alpha2 fields in a v1alpha1 document', () => {
    expect(issuesOf(withSpec({ denied_tools: ['rm'] }))).toEqual([expect.objectContaining({ code: 'unrecognized_keys', path: ['spec'] })]);
    const v1 = { ...withSpec({ identity: {}, dlp: { scan_requests: true, patterns: [{ name: 'a', regex: 'b' }] } }), apiVersion: 'aip.io/v1alpha1' };
    expect(issuesOf(v1, policySchemaFor('aip.io/v1alpha1')).map((issue) => [issue.path, issue.code])).toEqual([
      [['spec', 'dlp'], 'unrecognized_keys'],
      [['spec'], 'unrecognized_keys'],
    ]);
    expect(AgentPolicySchema.safeParse(v1).success).toBe(true);
  });

  it('describes every field, for the editor’s hover text', () => {
    const undocumented: string[] = [];
    const visit = (schema: z.ZodType, path: string): void => {
      const object = layers(schema).find((layer) => layer._zod.def.type === 'object');
      const array = layers(schema).find((layer) => layer._zod.def.type === 'array');
      if (array) return visit((array._zod.def as unknown as { element: z.ZodType }).element, `${path}[]`);
      if (!object) return;
      for (const [key, field] of Object.entries((object._zod.def as unknown as { shape: Record<string, z.ZodType> }).shape)) {
        if (!descriptionOf(field)) undocumented.push(`${path}.${key}`);
        visit(field, `${path}.${key}`);
      }
    };
    visit(AgentPolicySchema, '');
    expect(undocumented).toEqual([]);
    for (const key of mappingAt(AgentPolicySchema, ['spec'])!.keys) expect(descriptionOf(schemaAt(AgentPolicySchema, ['spec', key])), key).toMatch(/\S{3}/);
    expect(descriptionOf(schemaAt(AgentPolicySchema, ['spec', 'tool_rules', 3, 'rate_limit']))).toContain('"10/minute"');
    expect(schemaAt(AgentPolicySchema, ['spec', 'nonsense'])).toBeNull();
  });
});

describe('validatePolicyDocument', () => {
  const validate = (text: string) => {
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { lineCounter, version: '1.2', schema: 'core' });
    return validatePolicyDocument(new PolicySource(doc, lineCounter), doc.toJS() as Record<string, unknown>);
  };
  const policy = (spec: string) => `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: agent\nspec:\n${spec}`;

  it('locates each error at its YAML line and column, in the words of the loader', () => {
    const result = validate(policy('  mode: Enforce\n  tool_rules:\n    - tool: a\n      rate_limt: 1/s\n  strict_args_default: yes\n'));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { path: 'spec.mode', line: 6, column: 9, message: 'expected one of "enforce", "monitor", got "Enforce" (did you mean "enforce"?)' },
      {
        path: 'spec.tool_rules[0].rate_limt',
        line: 9,
        column: 7,
        message: 'unknown key "rate_limt" in spec.tool_rules[0] (did you mean "rate_limit"?); expected one of: tool, action, rate_limit, strict_args, schema_hash, allow_args',
      },
      { path: 'spec.strict_args_default', line: 10, column: 24, message: 'expected true or false, got the string "yes" (YAML 1.2: write true or false, unquoted)' },
    ]);
  });

  it('gives the document with its defaults, and the warnings of a valid policy', () => {
    const result = validate(policy('  mode: monitor\n  server:\n    failover_mode: fail_open\n'));
    expect(result.ok && result.document.spec.server).toMatchObject({ enabled: false, failover_mode: 'fail_open' });
    expect(result.ok && result.warnings.map((w) => `${w.line}:${w.column} ${w.path}`)).toEqual(['6:9 spec.mode', '8:20 spec.server.failover_mode']);
  });
});
