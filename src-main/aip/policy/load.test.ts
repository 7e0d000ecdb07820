import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-shared/canonical.js';
import { AgentPolicySchema, policySchemaFor, type ApiVersion } from '../../../src-shared/policy/schema.js';
import { formatPolicyPath } from '../../../src-shared/policy/source.js';
import { useTempDirs } from '../../testing/temp.js';
import { DEFAULT_ALLOWED_METHODS, loadPolicyFile, loadPolicyText, MAX_POLICY_BYTES, parseListen, parsePolicyYaml, readPolicySignature } from './load.js';
import { failures, loaded, onlyFailure, policyText, vectorPolicies, warningsOf } from './testing/policy.js';

const tempDir = useTempDirs('silas-policy-');

describe('upstream conformance vectors', () => {
  const required = vectorPolicies(['basic', 'full']);
  const later = vectorPolicies(['identity', 'server']);

  it('finds the policies of every basic and full vector', () => {
    expect(required.length).toBeGreaterThanOrEqual(60);
    expect(later.length).toBeGreaterThanOrEqual(40);
  });

  it.each(required.map((v) => [`${v.file}#${v.id}`, v.text]))('%s loads', (_id, text) => {
    loaded(text);
  });

  it.each(later.map((v) => [`${v.file}#${v.id}`, v.text]))('%s (identity/server level) loads too', (_id, text) => {
    loaded(text);
  });
});

describe('a loaded policy', () => {
  it('applies the defaults of §3 and Appendix A', () => {
    const policy = loaded(policyText('  allowed_tools: [read_file]\n'));
    expect(policy).toMatchObject({
      apiVersion: 'aip.io/v1alpha2',
      name: 'test-policy',
      version: null,
      owner: null,
      signature: null,
      mode: 'enforce',
      strictArgsDefault: false,
      dlp: null,
      identity: null,
      server: null,
      sourcePath: null,
    });
    expect([...policy.allowedMethods]).toEqual(DEFAULT_ALLOWED_METHODS);
    expect(policy.allowedMethods.size).toBe(14);
    expect(policy.deniedMethods.size).toBe(0);
    expect(policy.toolRules.size).toBe(0);
    expect(policy.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('normalises tool and method names (§4.1) and keys rules by the normalised name', () => {
    const policy = loaded(
      policyText(
        [
          '  allowed_tools: ["ＲＥＡＤ_File", "ﬁle_write", "list\u200Bdir"]',
          '  allowed_methods: ["Tools/Call", "*"]',
          '  denied_methods: ["Resources/READ"]',
          '  tool_rules:',
          '    - tool: " Fetch_URL "',
          '      action: ask',
          '',
        ].join('\n'),
      ),
    );
    expect([...policy.allowedTools]).toEqual(['read_file', 'file_write', 'listdir']);
    expect([...policy.allowedMethods]).toEqual(['tools/call', '*']);
    expect([...policy.deniedMethods]).toEqual(['resources/read']);
    expect(policy.toolRules.get('fetch_url')).toMatchObject({ tool: 'fetch_url', rawTool: ' Fetch_URL ', action: 'ask', rateLimit: null, strictArgs: null, schemaHash: null, allowArgs: [] });
  });

  it('parses tool rules: rate limits, strict_args, schema_hash and RE2-compiled allow_args', () => {
    const hex = 'A3C7F2E8D9B4F1E2C8A7D6F3E9B2C4F1A8E7D3C2B5F4E9A7C3D8F2B6E1A9C4F7';
    const policy = loaded(
      policyText(
        [
          '  strict_args_default: true',
          '  tool_rules:',
          '    - tool: fetch',
          '      rate_limit: 10/minute',
          '      strict_args: false',
          `      schema_hash: "sha256:${hex}"`,
          '      allow_args:',
          '        url: "^https://github\\\\.com/.*"',
          '        "odd.name": "(?i)^select\\\\s"',
          '        __proto__: "^x$"',
          '',
        ].join('\n'),
      ),
    );
    expect(policy.strictArgsDefault).toBe(true);
    const rule = policy.toolRules.get('fetch')!;
    expect(rule.rateLimit).toEqual({ count: 10, periodMs: 60_000, source: '10/minute' });
    expect(rule.strictArgs).toBe(false);
    expect(rule.schemaHash).toEqual({ algorithm: 'sha256', hex: hex.toLowerCase(), source: `sha256:${hex}` });
    expect(rule.allowArgs.map((a) => [a.name, a.pattern])).toEqual([
      ['url', '^https://github\\.com/.*'],
      ['odd.name', '(?i)^select\\s'],
      ['__proto__', '^x$'],
    ]);
    expect(rule.allowArgs[0]!.regex.test('https://github.com/x')).toBe(true);
    expect(rule.allowArgs[0]!.regex.test('https://gitlab.com/x')).toBe(false);
    expect(rule.allowArgs[1]!.regex.test('SELECT 1')).toBe(true);
    // Not global: test() is stateless.
    expect(rule.allowArgs[0]!.regex.global).toBe(false);
    expect(rule.allowArgs[0]!.regex.test('https://github.com/x')).toBe(true);
  });

  it('keeps protected_paths as written and records the source path', () => {
    const policy = loaded(policyText('  protected_paths: ["~/.ssh", ".env", "$HOME/.aws/credentials"]\n'), { sourcePath: '/etc/silas/policy.yaml' });
    expect(policy.protectedPaths).toEqual(['~/.ssh', '.env', '$HOME/.aws/credentials']);
    expect(policy.sourcePath).toBe('/etc/silas/policy.yaml');
  });

  it('applies the DLP defaults of §3.6 when a dlp block is present', () => {
    const policy = loaded(policyText('  dlp:\n    patterns:\n      - name: AWS Key\n        regex: "AKIA[0-9A-Z]{16}"\n'));
    expect(policy.dlp).toMatchObject({
      enabled: true,
      scanRequests: false,
      scanResponses: true,
      detectEncoding: false,
      filterStderr: false,
      maxScanSize: 1_048_576,
      onRequestMatch: 'block',
      onRedactionFailure: 'block',
      logOriginalOnFailure: false,
    });
    expect(policy.dlp!.patterns).toHaveLength(1);
    expect(policy.dlp!.patterns[0]).toMatchObject({ name: 'AWS Key', pattern: 'AKIA[0-9A-Z]{16}', scope: 'all' });
    expect(policy.dlp!.patterns[0]!.regex.test('key AKIAIOSFODNN7EXAMPLE')).toBe(true);
  });

  it('reads every v1alpha2 DLP field', () => {
    const policy = loaded(
      policyText(
        [
          '  dlp:',
          '    enabled: true',
          '    scan_requests: true',
          '    scan_responses: false',
          '    detect_encoding: true',
          '    filter_stderr: true',
          '    max_scan_size: 512KB',
          '    on_request_match: redact',
          '    on_redaction_failure: reject',
          '    log_original_on_failure: false',
          '    patterns:',
          '      - name: SQL Injection',
          '        regex: "(?i)(DROP|DELETE|TRUNCATE)\\\\s+TABLE"',
          '        scope: request',
          '',
        ].join('\n'),
      ),
    );
    expect(policy.dlp).toMatchObject({ scanRequests: true, scanResponses: false, detectEncoding: true, filterStderr: true, maxScanSize: 524_288, onRequestMatch: 'redact', onRedactionFailure: 'reject' });
    expect(policy.dlp!.patterns[0]!.scope).toBe('request');
    expect(policy.dlp!.patterns[0]!.regex.test('drop table users')).toBe(true);
  });

  it('applies the identity defaults of §3.7', () => {
    const policy = loaded(policyText('  identity:\n    enabled: true\n'));
    expect(policy.identity).toMatchObject({
      enabled: true,
      tokenTtlMs: 300_000,
      rotationIntervalMs: 240_000,
      requireToken: false,
      sessionBinding: 'process',
      nonceWindowMs: 300_000,
      policyTransitionGraceMs: 0,
      audience: 'test-policy',
      raw: { enabled: true },
    });
  });

  it('derives a default rotation_interval of 4/5 of a token_ttl shorter than 4m', () => {
    expect(loaded(policyText('  identity:\n    token_ttl: 1s\n')).identity).toMatchObject({ tokenTtlMs: 1_000, rotationIntervalMs: 800, nonceWindowMs: 1_000 });
    expect(loaded(policyText('  identity:\n    token_ttl: 1m\n')).identity).toMatchObject({ rotationIntervalMs: 48_000 });
    expect(loaded(policyText('  identity:\n    token_ttl: 1h\n')).identity).toMatchObject({ rotationIntervalMs: 240_000 });
  });

  it('reads the whole identity section, keeping it as raw JSON', () => {
    const policy = loaded(
      policyText(
        [
          '  identity:',
          '    enabled: true',
          '    token_ttl: "10m"',
          '    rotation_interval: "2m"',
          '    require_token: true',
          '    session_binding: strict',
          '    nonce_window: "20m"',
          '    policy_transition_grace: "30s"',
          '    audience: "https://mcp.example.com/api"',
          '    nonce_storage:',
          '      type: redis',
          '      address: "redis://redis-cluster:6379"',
          '      key_prefix: "prod:aip:nonce:"',
          '      clock_skew_tolerance: "30s"',
          '    keys:',
          '      signing_algorithm: EdDSA',
          '      key_source: file',
          '      key_path: /etc/aip/signing-key.pem',
          '      rotation_period: 7d',
          '      grace_period: 1h',
          '      jwks_endpoint: /v1/jwks',
          '',
        ].join('\n'),
      ),
    );
    expect(policy.identity).toMatchObject({
      tokenTtlMs: 600_000,
      rotationIntervalMs: 120_000,
      requireToken: true,
      sessionBinding: 'strict',
      nonceWindowMs: 1_200_000,
      policyTransitionGraceMs: 30_000,
      audience: 'https://mcp.example.com/api',
    });
    expect(policy.identity!.raw).toMatchObject({ nonce_storage: { type: 'redis' }, keys: { signing_algorithm: 'EdDSA', rotation_period: '7d' } });
  });

  it('applies the server defaults of §3.8 and reads TLS', () => {
    expect(loaded(policyText('  server:\n    enabled: true\n')).server).toEqual({
      enabled: true,
      listen: '127.0.0.1:9443',
      failoverMode: 'fail_closed',
      timeoutMs: 5_000,
      tls: null,
      raw: { enabled: true },
    });
    const policy = loaded(
      policyText(
        [
          '  server:',
          '    enabled: true',
          '    listen: "0.0.0.0:9443"',
          '    timeout: 3s',
          '    failover_mode: local_policy',
          '    tls:',
          '      cert: /path/to/cert.pem',
          '      key: /path/to/key.pem',
          '    endpoints:',
          '      validate: /v1/validate',
          '      revoke: /v1/revoke',
          '      jwks: /v1/jwks',
          '      health: /health',
          '      metrics: /metrics',
          '',
        ].join('\n'),
      ),
    );
    expect(policy.server).toMatchObject({ listen: '0.0.0.0:9443', timeoutMs: 3_000, failoverMode: 'local_policy', tls: { cert: '/path/to/cert.pem', key: '/path/to/key.pem' } });
  });

  it('accepts fail_open with its constraints', () => {
    const policy = loaded(
      policyText(
        [
          '  server:',
          '    failover_mode: "fail_open"',
          '    fail_open_constraints:',
          '      allowed_tools: [read_file, list_directory]',
          '      max_duration: "5m"',
          '      max_requests: 100',
          '      alert_webhook: "https://alerts.example.com/aip-failover"',
          '      require_local_policy: true',
          '',
        ].join('\n'),
      ),
    );
    expect(policy.server!.failoverMode).toBe('fail_open');
  });

  it('accepts v1alpha1 documents with the v1alpha1 fields', () => {
    const policy = loaded(policyText('  mode: monitor\n  allowed_tools: [a]\n  dlp:\n    detect_encoding: true\n    patterns: [{name: x, regex: "y"}]\n', { apiVersion: 'aip.io/v1alpha1' }));
    expect(policy.apiVersion).toBe('aip.io/v1alpha1');
    expect(policy.dlp!.scanResponses).toBe(true);
  });

  it('accepts an empty spec, YAML anchors and aliases, and a byte order mark', () => {
    expect(loaded(policyText('  {}\n')).allowedTools.size).toBe(0);
    const withAlias = loaded(policyText('  allowed_tools: &tools [a, b]\n  server:\n    fail_open_constraints:\n      allowed_tools: *tools\n    failover_mode: fail_open\n'));
    expect(withAlias.server!.raw).toMatchObject({ fail_open_constraints: { allowed_tools: ['a', 'b'] } });
    expect(loaded(`\uFEFF${policyText('  allowed_tools: [a]\n')}`).allowedTools.has('a')).toBe(true);
  });
});

describe('errors name the YAML path, line and column and what was expected', () => {
  it('a misspelt key is an error, with a suggestion', () => {
    const error = onlyFailure(policyText('  tool_rules:\n    - tool: fetch\n      alow_args:\n        url: "^https://"\n'));
    expect(error).toMatchObject({ path: 'spec.tool_rules[0].alow_args', line: 8, column: 7 });
    expect(error.message).toContain('unknown key "alow_args"');
    expect(error.message).toContain('did you mean "allow_args"?');
    expect(error.message).toContain('expected one of: tool, action, rate_limit, strict_args, schema_hash, allow_args');
  });

  it.each([
    ['top level', 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata: {name: t}\nspec: {}\nspecs: {}\n', 'specs', 5, 1],
    ['metadata', 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: t\n  labels: {}\nspec: {}\n', 'metadata.labels', 5, 3],
    ['spec', policyText('  allowed_tool: [a]\n'), 'spec.allowed_tool', 6, 3],
    ['dlp', policyText('  dlp:\n    scan_request: true\n    patterns: [{name: a, regex: b}]\n'), 'spec.dlp.scan_request', 7, 5],
    ['dlp pattern', policyText('  dlp:\n    patterns:\n      - {name: a, regex: b, scop: all}\n'), 'spec.dlp.patterns[0].scop', 8, 29],
    ['identity', policyText('  identity:\n    token_tll: 5m\n'), 'spec.identity.token_tll', 7, 5],
    ['nonce storage', policyText('  identity:\n    nonce_storage:\n      kind: memory\n'), 'spec.identity.nonce_storage.kind', 8, 7],
    ['keys', policyText('  identity:\n    keys:\n      algorithm: ES256\n'), 'spec.identity.keys.algorithm', 8, 7],
    ['server', policyText('  server:\n    port: 9443\n'), 'spec.server.port', 7, 5],
    ['tls', policyText('  server:\n    tls: {cert: a, key: b, ca: c}\n'), 'spec.server.tls.ca', 7, 28],
    ['endpoints', policyText('  server:\n    endpoints:\n      validation: /v\n'), 'spec.server.endpoints.validation', 8, 7],
    ['fail_open_constraints', policyText('  server:\n    failover_mode: fail_open\n    fail_open_constraints:\n      max_request: 5\n'), 'spec.server.fail_open_constraints.max_request', 9, 7],
  ])('unknown key in %s', (_where, text, path, line, column) => {
    expect(onlyFailure(text)).toMatchObject({ path, line, column, message: expect.stringContaining('unknown key') });
  });

  it('denied_tools is refused with a pointer to action: block', () => {
    expect(onlyFailure(policyText('  denied_tools: [rm]\n'))).toMatchObject({ path: 'spec.denied_tools', message: expect.stringContaining('action: block') });
  });

  it.each([
    ['a string for a list', policyText('  allowed_tools: read_file\n'), 'spec.allowed_tools', 6, 18, 'expected a list of tool names, got the string "read_file"'],
    ['an empty value for a list', policyText('  allowed_tools:\n'), 'spec.allowed_tools', 6, 17, 'write [] for an empty list'],
    ['a number for a tool name', policyText('  allowed_tools: [1]\n'), 'spec.allowed_tools[0]', 6, 19, 'expected a tool name, got the number 1'],
    ['a string for a boolean', policyText('  strict_args_default: "true"\n'), 'spec.strict_args_default', 6, 24, 'expected true or false'],
    ['yes for a boolean', policyText('  strict_args_default: yes\n'), 'spec.strict_args_default', 6, 24, 'YAML 1.2: write true or false'],
    ['an unknown mode', policyText('  mode: Enforce\n'), 'spec.mode', 6, 9, 'expected one of "enforce", "monitor", got "Enforce" (did you mean "enforce"?)'],
    ['an unknown action', policyText('  tool_rules:\n    - tool: a\n      action: deny\n'), 'spec.tool_rules[0].action', 8, 15, 'expected one of "allow", "block", "ask"'],
    ['a list for tool_rules item', policyText('  tool_rules:\n    - [a]\n'), 'spec.tool_rules[0]', 7, 7, 'expected a mapping, got a list'],
    ['a missing tool name', policyText('  tool_rules:\n    - action: block\n'), 'spec.tool_rules[0].tool', 7, 7, 'required key "tool" is missing'],
    ['a number as version', policyText('  {}\n', { metadata: '  version: 1.0\n' }), 'metadata.version', 5, 12, 'write it in quotes: "1.0"'],
    ['a mapping for a regex', policyText('  tool_rules:\n    - tool: a\n      allow_args:\n        url: {x: 1}\n'), 'spec.tool_rules[0].allow_args.url', 9, 14, 'expected a regular expression (RE2 syntax) for argument "url", got a mapping'],
    ['a number key in allow_args', policyText('  tool_rules:\n    - tool: a\n      allow_args:\n        1: "x"\n'), 'spec.tool_rules[0].allow_args', 9, 9, 'expected a string key, got the number 1 (quote it)'],
    ['a name that normalises to nothing', policyText('  allowed_tools: ["\\u200B\\u200C"]\n'), 'spec.allowed_tools[0]', 6, 19, '"\\u200b\\u200c" is empty after normalisation'],
    ['an empty allowed_methods', policyText('  allowed_methods: []\n'), 'spec.allowed_methods', 6, 20, 'would deny every method, including initialize'],
    ['dlp without patterns', policyText('  dlp:\n    enabled: true\n'), 'spec.dlp.patterns', 7, 5, 'required key "patterns" is missing'],
    ['dlp with no patterns', policyText('  dlp:\n    patterns: []\n'), 'spec.dlp.patterns', 7, 15, 'DLP is enabled but has no patterns'],
    ['an empty DLP regex', policyText('  dlp:\n    patterns: [{name: a, regex: ""}]\n'), 'spec.dlp.patterns[0].regex', 7, 33, 'got an empty string'],
    ['a DLP pattern without a name', policyText('  dlp:\n    patterns: [{regex: "x"}]\n'), 'spec.dlp.patterns[0].name', 7, 16, 'required key "name" is missing'],
    ['a bad DLP scope', policyText('  dlp:\n    patterns: [{name: a, regex: x, scope: requests}]\n'), 'spec.dlp.patterns[0].scope', 7, 43, 'did you mean "request"?'],
  ])('%s', (_label, text, path, line, column, message) => {
    expect(onlyFailure(text)).toMatchObject({ path, line, column, message: expect.stringContaining(message) });
  });

  it('an unknown apiVersion is rejected before anything else (§9.3)', () => {
    const error = onlyFailure('apiVersion: aip.io/v1beta1\nkind: AgentPolicy\nmetadata:\n  name: t\n  bogus: 1\nspec: {}\n');
    expect(error).toMatchObject({ path: 'apiVersion', line: 1, column: 13 });
    expect(error.message).toContain('unknown apiVersion "aip.io/v1beta1"; expected aip.io/v1alpha2 or aip.io/v1alpha1');
    expect(onlyFailure('kind: AgentPolicy\nmetadata: {name: t}\nspec: {}\n')).toMatchObject({ path: 'apiVersion', line: 1, column: 1, message: expect.stringContaining('required key "apiVersion" is missing') });
    expect(onlyFailure('apiVersion: 2\nkind: AgentPolicy\n')).toMatchObject({ message: expect.stringContaining('unknown apiVersion the number 2') });
  });

  it('a missing apiVersion is reported together with every other error, each located', () => {
    // `silas policy validate` promises all errors at once; a missing apiVersion must not hide the rest.
    const errors = failures('kind: AgentPolicy\nmetadata:\n  name: t\n  bogus: 1\nspec:\n  mode: enforcing\n');
    expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['apiVersion', 1, 1],
      ['metadata.bogus', 4, 3],
      ['spec.mode', 6, 9],
    ]);
    expect(errors[0]!.message).toContain('required key "apiVersion" is missing; expected aip.io/v1alpha2 or aip.io/v1alpha1');
    expect(errors[1]!.message).toContain('unknown key "bogus" in metadata');
    expect(errors[2]!.message).toContain('expected one of "enforce", "monitor", got "enforcing"');
  });

  it('a wrong kind and missing sections are reported together', () => {
    const errors = failures('apiVersion: aip.io/v1alpha2\nkind: Policy\n');
    expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
      ['metadata', 1, 1],
      ['spec', 1, 1],
      ['kind', 2, 7],
    ]);
    expect(errors[2]!.message).toBe('unknown kind "Policy"; expected "AgentPolicy"');
    expect(onlyFailure('apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata: {version: "1.0.0"}\nspec: {}\n')).toMatchObject({ path: 'metadata.name', line: 3, column: 11 });
  });

  it('reports every error of a policy, sorted by position', () => {
    const errors = failures(policyText('  mode: strict\n  allowed_tools: [1, 2]\n  tool_rules:\n    - tool: a\n      rate_limit: fast\n'));
    expect(errors.map((e) => e.path)).toEqual(['spec.mode', 'spec.allowed_tools[0]', 'spec.allowed_tools[1]', 'spec.tool_rules[0].rate_limit']);
  });

  it('v1alpha2 fields are refused in v1alpha1 documents', () => {
    const errors = failures(
      policyText(
        [
          '  identity: {enabled: true}',
          '  server: {enabled: false}',
          '  tool_rules:',
          '    - tool: a',
          `      schema_hash: "sha256:${'0'.repeat(64)}"`,
          '  dlp:',
          '    scan_requests: true',
          '    patterns: [{name: a, regex: b, scope: all}]',
          '',
        ].join('\n'),
        { apiVersion: 'aip.io/v1alpha1', metadata: '  signature: "ed25519:AAAA"\n' },
      ),
    );
    expect(errors.map((e) => e.path)).toEqual([
      'metadata.signature',
      'spec.identity',
      'spec.server',
      'spec.tool_rules[0].schema_hash',
      'spec.dlp.scan_requests',
      'spec.dlp.patterns[0].scope',
    ]);
    for (const error of errors) expect(error.message).toContain('is an aip.io/v1alpha2 field, but this document declares apiVersion aip.io/v1alpha1');
    expect(errors.some((e) => e.code === -32010)).toBe(false);
  });
});

describe('regular expressions are compiled with RE2', () => {
  it.each([
    ['(a', 'missing )'],
    ['(?=x)', 'invalid perl operator: (?='],
    ['(?!x)', 'invalid perl operator'],
    ['(?<=x)y', 'invalid perl operator'],
    ['(a)\\\\1', 'invalid escape sequence: \\1'],
    ['a{1000}{1000}', 'bad repetition operator'],
    ['[z-a]', 'invalid character class range'],
  ])('allow_args %s is an error at its path', (pattern, reason) => {
    const error = onlyFailure(policyText(`  tool_rules:\n    - tool: a\n      allow_args:\n        x: "${pattern}"\n`));
    expect(error).toMatchObject({ path: 'spec.tool_rules[0].allow_args.x', line: 9, column: 12 });
    expect(error.message).toContain('invalid regular expression for argument "x"');
    expect(error.message).toContain(reason);
    expect(error.message).toContain('RE2 syntax');
  });

  it('a DLP pattern regex is checked the same way', () => {
    const error = onlyFailure(policyText('  dlp:\n    patterns:\n      - name: Bad\n        regex: "(?=AKIA)"\n'));
    expect(error).toMatchObject({ path: 'spec.dlp.patterns[0].regex', line: 9, column: 16, message: expect.stringContaining('invalid regular expression for DLP pattern "Bad"') });
  });

  it('a pathological pattern compiles and matches in linear time (§10.2)', () => {
    const policy = loaded(policyText('  tool_rules:\n    - tool: a\n      allow_args:\n        x: "^(a+)+$"\n'));
    const regex = policy.toolRules.get('a')!.allowArgs[0]!.regex;
    expect(regex.test(`${'a'.repeat(100_000)}!`)).toBe(false);
  });
});

describe('rates, durations and sizes', () => {
  it.each([
    ['0/minute', 'at least 1'],
    ['10/fortnight', 'unknown period "fortnight"'],
    ['-1/s', 'without a sign'],
    ['1.5/m', 'whole number, got 1.5'],
    ['99999999999999/s', 'larger than the maximum of 1000000'],
    ['1e9/second', 'without an exponent'],
  ])('rate_limit %j', (rate, message) => {
    expect(onlyFailure(policyText(`  tool_rules:\n    - tool: a\n      rate_limit: "${rate}"\n`))).toMatchObject({
      path: 'spec.tool_rules[0].rate_limit',
      line: 8,
      column: 19,
      message: expect.stringContaining(message),
    });
  });

  it('a number where a rate is expected says to quote it', () => {
    expect(onlyFailure(policyText('  tool_rules:\n    - tool: a\n      rate_limit: 10\n')).message).toContain('got the number 10');
  });

  it.each([
    ['token_ttl', '"0s"', 'must be greater than zero'],
    ['token_ttl', '5', 'got the number 5'],
    ['token_ttl', '"5"', 'has no unit'],
    ['token_ttl', '"1.5h"', 'fractions are not accepted'],
    ['token_ttl', '"-5m"', 'cannot have a sign'],
    ['token_ttl', '"400d"', 'maximum of 365d'],
    ['rotation_interval', '"4 m"', 'is not a duration'],
    ['nonce_window', '"0s"', 'must be greater than zero'],
    ['policy_transition_grace', '"soon"', 'is not a duration'],
  ])('identity.%s: %s', (key, value, message) => {
    expect(onlyFailure(policyText(`  identity:\n    ${key}: ${value}\n`))).toMatchObject({ path: `spec.identity.${key}`, line: 7, message: expect.stringContaining(message) });
  });

  it.each([
    ['"0MB"', 'greater than zero'],
    ['"1.5MB"', 'fractions are not accepted'],
    ['"1 MB"', 'no space'],
    ['"1mb"', 'case-sensitive'],
    ['1048576', 'got the number 1048576'],
    ['"100MB"', 'larger than the maximum of 64MB'],
  ])('dlp.max_scan_size: %s', (value, message) => {
    expect(onlyFailure(policyText(`  dlp:\n    max_scan_size: ${value}\n    patterns: [{name: a, regex: b}]\n`))).toMatchObject({
      path: 'spec.dlp.max_scan_size',
      line: 7,
      column: 20,
      message: expect.stringContaining(message),
    });
  });

  it('server.timeout and keys.rotation_period are durations too', () => {
    expect(onlyFailure(policyText('  server:\n    timeout: "0s"\n')).path).toBe('spec.server.timeout');
    expect(onlyFailure(policyText('  identity:\n    keys:\n      rotation_period: "a week"\n')).path).toBe('spec.identity.keys.rotation_period');
  });
});

describe('schema_hash (§3.5.4)', () => {
  it.each([
    ['sha384', 96],
    ['sha512', 128],
  ])('accepts %s with %d hex characters', (algorithm, length) => {
    const rule = loaded(policyText(`  tool_rules:\n    - tool: a\n      schema_hash: "${algorithm}:${'ab'.repeat(length / 2)}"\n`)).toolRules.get('a')!;
    expect(rule.schemaHash).toMatchObject({ algorithm, hex: 'ab'.repeat(length / 2) });
  });

  it.each([
    ['md5:abcd', 'unsupported schema hash algorithm "md5"'],
    ['sha256:abcd', 'a sha256 digest has 64 hex characters, got 4'],
    [`sha512:${'a'.repeat(64)}`, 'a sha512 digest has 128 hex characters, got 64'],
    [`sha256:${'g'.repeat(64)}`, 'must be hexadecimal'],
    [`SHA256:${'a'.repeat(64)}`, 'unsupported schema hash algorithm "SHA256"'],
    ['a3c7f2e8', 'is not a schema hash'],
  ])('rejects %j', (value, message) => {
    expect(onlyFailure(policyText(`  tool_rules:\n    - tool: a\n      schema_hash: "${value}"\n`))).toMatchObject({ path: 'spec.tool_rules[0].schema_hash', line: 8, message: expect.stringContaining(message) });
  });
});

describe('cross-field rules', () => {
  it('rotation_interval must be less than token_ttl (§3.7.3)', () => {
    const error = onlyFailure(policyText('  identity:\n    enabled: true\n    token_ttl: "5m"\n    rotation_interval: "6m"\n'));
    expect(error).toEqual({ path: 'spec.identity.rotation_interval', line: 9, column: 24, message: 'rotation_interval (6m) must be less than token_ttl (5m) (§3.7.3); use "0s" to disable rotation' });
    expect(onlyFailure(policyText('  identity:\n    token_ttl: "5m"\n    rotation_interval: "300s"\n')).message).toContain('rotation_interval (300s) must be less than token_ttl (5m)');
    expect(onlyFailure(policyText('  identity:\n    rotation_interval: "5m"\n')).message).toContain('must be less than token_ttl (5m)');
  });

  it('rotation_interval "0s" disables rotation, with a warning', () => {
    const text = policyText('  identity:\n    token_ttl: "5m"\n    rotation_interval: "0s"\n');
    expect(loaded(text).identity!.rotationIntervalMs).toBe(0);
    expect(warningsOf(text).join('\n')).toContain('disables automatic token rotation');
  });

  it('rotation_interval above 90% of token_ttl is allowed with a warning', () => {
    expect(warningsOf(policyText('  identity:\n    token_ttl: "5m"\n    rotation_interval: "290s"\n'))).toEqual([
      '8:24 spec.identity.rotation_interval: rotation_interval (290s) is very close to token_ttl (5m); consider reducing it to leave a grace period for in-flight requests (§3.7.3)',
    ]);
  });

  it('nonce_window must be at least token_ttl (§3.7.6)', () => {
    expect(onlyFailure(policyText('  identity:\n    token_ttl: "5m"\n    nonce_window: "4m"\n'))).toMatchObject({
      path: 'spec.identity.nonce_window',
      line: 8,
      message: expect.stringContaining('nonce_window (4m) must be greater than or equal to token_ttl (5m)'),
    });
    expect(loaded(policyText('  identity:\n    token_ttl: "5m"\n    nonce_window: "5m"\n')).identity!.nonceWindowMs).toBe(300_000);
  });

  it('policy_transition_grace not below token_ttl is a warning (§3.7.7)', () => {
    expect(warningsOf(policyText('  identity:\n    token_ttl: "5m"\n    policy_transition_grace: "5m"\n')).join('\n')).toContain('should be less than token_ttl');
  });

  it('HS256 is refused with server.enabled, accepted without (§5.8.2)', () => {
    const hs256 = (enabled: boolean) => policyText(`  identity:\n    keys:\n      signing_algorithm: HS256\n  server:\n    enabled: ${enabled}\n`);
    expect(onlyFailure(hs256(true))).toMatchObject({ path: 'spec.identity.keys.signing_algorithm', line: 8, column: 26, message: expect.stringContaining('MUST NOT be used when server.enabled is true') });
    expect(loaded(hs256(false)).server!.enabled).toBe(false);
  });

  it.each([['0.0.0.0:9443'], [':9443'], ['*:9443'], ['10.0.0.5:9443'], ['aip.example.com:9443'], ['[::]:9443']])('server.listen %s needs TLS when enabled (§3.8.5)', (listen) => {
    const text = policyText(`  server:\n    enabled: true\n    listen: "${listen}"\n`);
    expect(onlyFailure(text)).toMatchObject({ path: 'spec.server.listen', line: 8, column: 13, message: expect.stringContaining('TLS MUST be configured') });
    expect(loaded(policyText(`  server:\n    enabled: true\n    listen: "${listen}"\n    tls: {cert: c.pem, key: k.pem}\n`)).server!.tls).toEqual({ cert: 'c.pem', key: 'k.pem' });
    expect(loaded(policyText(`  server:\n    enabled: false\n    listen: "${listen}"\n`)).server!.enabled).toBe(false);
  });

  it.each([['127.0.0.1:9443'], ['localhost:8080'], ['[::1]:9443']])('server.listen %s is loopback: no TLS needed', (listen) => {
    expect(loaded(policyText(`  server:\n    enabled: true\n    listen: "${listen}"\n`)).server!.listen).toBe(listen);
  });

  it.each([
    ['::1:9443', 'without brackets'],
    ['127.0.0.1', 'is not a listen address'],
    ['127.0.0.1:0', 'out of range'],
    ['127.0.0.1:70000', 'out of range'],
    ['http://127.0.0.1:9443', 'is not a listen address'],
  ])('server.listen %j is malformed', (listen, message) => {
    expect(onlyFailure(policyText(`  server:\n    listen: "${listen}"\n`))).toMatchObject({ path: 'spec.server.listen', message: expect.stringContaining(message) });
  });

  it('parseListen splits host and port', () => {
    expect(parseListen('127.0.0.1:9443')).toEqual({ host: '127.0.0.1', port: 9443 });
    expect(parseListen(':9443')).toEqual({ host: '', port: 9443 });
    expect(parseListen('[::1]:1')).toEqual({ host: '::1', port: 1 });
  });

  it('TLS needs both cert and key; require_client_cert needs client_ca', () => {
    expect(onlyFailure(policyText('  server:\n    tls: {cert: c.pem}\n'))).toMatchObject({ path: 'spec.server.tls.key', message: expect.stringContaining('required key "key" is missing') });
    expect(onlyFailure(policyText('  server:\n    tls: {cert: c.pem, key: k.pem, require_client_cert: true}\n')).message).toContain('needs client_ca');
    loaded(policyText('  server:\n    tls: {cert: c.pem, key: k.pem, client_ca: ca.pem, require_client_cert: true}\n'));
  });

  it('endpoint paths must be paths and distinct', () => {
    expect(onlyFailure(policyText('  server:\n    endpoints: {validate: v1/validate}\n')).message).toContain('starting with "/"');
    expect(onlyFailure(policyText('  server:\n    endpoints: {health: /x, metrics: /x}\n'))).toMatchObject({ path: 'spec.server.endpoints.metrics', message: expect.stringContaining('already used by endpoints.health') });
  });

  it('audience must be a URI or metadata.name, never empty or a wildcard (§3.7.8)', () => {
    expect(loaded(policyText('  identity:\n    audience: test-policy\n')).identity!.audience).toBe('test-policy');
    expect(loaded(policyText('  identity:\n    audience: "urn:aip:mcp"\n')).identity!.audience).toBe('urn:aip:mcp');
    expect(onlyFailure(policyText('  identity:\n    audience: ""\n')).message).toContain('an empty audience is not valid');
    expect(onlyFailure(policyText('  identity:\n    audience: "https://*.example.com"\n')).message).toContain('wildcards are not permitted');
    expect(onlyFailure(policyText('  identity:\n    audience: "other agent"\n')).message).toContain('expected a URI');
  });

  it('nonce_storage and key sources need their companions', () => {
    expect(onlyFailure(policyText('  identity:\n    nonce_storage: {type: redis}\n'))).toMatchObject({ path: 'spec.identity.nonce_storage.address', message: expect.stringContaining('needs a connection string') });
    expect(onlyFailure(policyText('  identity:\n    nonce_storage: {type: postgres, address: "redis://x:1"}\n')).message).toContain('postgres connection URL');
    expect(onlyFailure(policyText('  identity:\n    keys: {key_source: file}\n'))).toMatchObject({ path: 'spec.identity.keys.key_path' });
    expect(onlyFailure(policyText('  identity:\n    keys: {key_source: external}\n'))).toMatchObject({ path: 'spec.identity.keys.external' });
    loaded(policyText('  identity:\n    keys:\n      key_source: external\n      external: {type: vault, address: "https://vault.example.com", key_name: aip-signing-key}\n'));
    expect(onlyFailure(policyText('  server:\n    failover_mode: fail_open\n    fail_open_constraints: {max_requests: 0}\n')).message).toContain('from 1 to 1000000000');
    expect(onlyFailure(policyText('  server:\n    failover_mode: fail_open\n    fail_open_constraints: {alert_webhook: "ftp://x"}\n')).message).toContain('http(s) URL');
  });

  it('duplicate tool rules for one normalised name are an error naming both lines', () => {
    const error = onlyFailure(policyText('  tool_rules:\n    - tool: read_file\n      action: allow\n    - tool: READ_FILE\n      action: block\n'));
    expect(error).toMatchObject({ path: 'spec.tool_rules[1].tool', line: 9, column: 13 });
    expect(error.message).toBe(
      'duplicate rule for tool "read_file": the first rule is at line 7, this one at line 9 ("read_file" and "READ_FILE" are the same name after normalisation, §4.1); merge them into one rule',
    );
    expect(onlyFailure(policyText('  tool_rules:\n    - tool: ｒｍ\n    - tool: rm\n')).message).toContain('the first rule is at line 7, this one at line 8');
  });
});

describe('warnings (SHOULD-level findings)', () => {
  it('monitor mode, fail_open without constraints, sensitive DLP logging, unused DLP settings', () => {
    const warnings = warningsOf(
      policyText(
        [
          '  mode: monitor',
          '  allowed_tools: [a, A]',
          '  tool_rules:',
          '    - tool: x',
          '      action: block',
          '      rate_limit: 1/s',
          '  dlp:',
          '    on_request_match: redact',
          '    log_original_on_failure: true',
          '    patterns: [{name: k, regex: "x", scope: request}]',
          '  server:',
          '    failover_mode: fail_open',
          '',
        ].join('\n'),
      ),
    );
    const text = warnings.join('\n');
    expect(warnings[0]).toMatch(/^6:9 spec\.mode: monitor mode/);
    expect(text).toContain('repeats tool "a"');
    expect(text).toContain('blocked unconditionally, so rate_limit has no effect');
    expect(text).toContain('on_request_match has no effect while scan_requests is false');
    expect(text).toContain('only applies to requests, but scan_requests is false');
    expect(text).toContain('log_original_on_failure writes the sensitive data');
    expect(text).toContain('add fail_open_constraints');
  });

  it('a clean policy has no warnings', () => {
    expect(warningsOf(policyText('  allowed_tools: [read_file]\n'))).toEqual([]);
  });
});

describe('YAML parsing and resource limits', () => {
  it('syntax errors carry line and column', () => {
    expect(onlyFailure(policyText('  allowed_tools: [a, b\n'))).toMatchObject({ path: '', line: 7, column: 1, message: expect.stringContaining('YAML syntax error') });
    expect(onlyFailure(policyText('  mode: enforce\n  mode: monitor\n'))).toMatchObject({ line: 7, column: 3, message: 'YAML syntax error: duplicate key "mode": each key may appear only once in a mapping' });
    expect(onlyFailure(policyText('\tmode: enforce\n'))).toMatchObject({ line: 6, message: expect.stringContaining('YAML syntax error') });
  });

  it('unresolved tags are errors', () => {
    expect(onlyFailure(policyText('  mode: !custom enforce\n'))).toMatchObject({ line: 6, column: 9, message: expect.stringContaining('Unresolved tag: !custom') });
  });

  it('refuses empty input, several documents, a non-mapping root and a YAML 1.1 directive', () => {
    expect(onlyFailure('')).toMatchObject({ line: 1, column: 1, message: expect.stringContaining('the policy is empty') });
    expect(onlyFailure('# nothing\n')).toMatchObject({ message: expect.stringContaining('the policy is empty') });
    expect(onlyFailure(`${policyText('  {}\n')}---\n${policyText('  {}\n')}`)).toMatchObject({ line: 7, column: 1, message: expect.stringContaining('expected a single YAML document, found 2') });
    expect(onlyFailure('- a\n- b\n')).toMatchObject({ line: 1, column: 1, message: expect.stringContaining('got a list') });
    expect(onlyFailure(`%YAML 1.1\n---\n${policyText('  strict_args_default: yes\n')}`).message).toContain('read as YAML 1.2');
  });

  it('YAML 1.2 core schema: yes/no/on/off are strings, not booleans', () => {
    expect(loaded(policyText('  allowed_tools: [yes, no, on, off]\n')).allowedTools).toEqual(new Set(['yes', 'no', 'on', 'off']));
  });

  it('refuses a policy over 256 KiB before parsing it, naming its size, the cap and the fix', () => {
    const big = policyText(`  allowed_tools:\n${'    - a_tool_name_that_is_long_enough_to_fill_the_file\n'.repeat(6_000)}`);
    expect(Buffer.byteLength(big)).toBeGreaterThan(MAX_POLICY_BYTES);
    expect(onlyFailure(big)).toEqual({ path: '', line: 1, column: 1, message: expect.stringMatching(new RegExp(`^the policy is ${Buffer.byteLength(big)} bytes; the cap is 262144 bytes \\(256 KiB\\): .*remove what it does not use`)) });
    const multibyte = policyText(`  allowed_tools: ["${'é'.repeat(135_000)}"]\n`);
    expect(multibyte.length).toBeLessThan(MAX_POLICY_BYTES);
    expect(onlyFailure(multibyte).message).toContain('the cap is 262144 bytes');
  });

  it('refuses an alias bomb (billion laughs) at its first alias', () => {
    const levels = ['  a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const previous = String.fromCharCode(96 + i);
      levels.push(`  ${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const text = `apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: t\nlol:\n${levels.join('\n')}\nspec: {}\n`;
    // Without the guard, expanding the aliases would build 9^9 nodes and never return in the test's time.
    const error = onlyFailure(text);
    expect(error).toMatchObject({ line: 7, column: 10, message: expect.stringContaining('billion-laughs guard') });
  });

  it('refuses deep nesting with a precise error, and absurd nesting without crashing', () => {
    const deep = policyText(`  allowed_tools: ${'['.repeat(40)}${']'.repeat(40)}\n`);
    expect(onlyFailure(deep)).toEqual({ path: '', line: 6, column: 50, message: 'the YAML is nested deeper than 32 levels; a policy needs far fewer' });
    const absurd = policyText(`  allowed_tools: ${'['.repeat(200_000)}\n`);
    expect(onlyFailure(absurd)).toMatchObject({ line: 6, column: 50 });
    // Brackets inside strings are not nesting.
    loaded(policyText(`  allowed_tools: ["${'['.repeat(100)}", '${'{'.repeat(100)}']\n`));
    // Block nesting is measured on the node tree.
    let block = '  identity:\n';
    for (let i = 0; i < 40; i++) block += `${' '.repeat(4 + 2 * i)}k${i}:\n`;
    expect(failures(policyText(block))[0]!.message).toContain('nested deeper than 32 levels');
  });

  it('refuses a string with an unpaired surrogate escape', () => {
    expect(onlyFailure(policyText('  allowed_tools: ["a\\uD800"]\n')).message).toContain('unpaired UTF-16 surrogate');
  });
});

describe('policy hash (§5.2)', () => {
  const plain = policyText('  allowed_tools: [read_file, list_dir]\n  tool_rules:\n    - tool: fetch\n      allow_args:\n        url: "^https://"\n');
  const reformatted = [
    '# the same policy, written differently',
    'spec: {tool_rules: [{allow_args: {url: ^https://}, tool: fetch}], allowed_tools: ["read_file", \'list_dir\']}',
    "kind: 'AgentPolicy'",
    'metadata: {name: "test-policy"}',
    'apiVersion: aip.io/v1alpha2',
    '',
  ].join('\n');

  it('is sha256 over RFC 8785 JSON of the parsed document', () => {
    const expected = createHash('sha256')
      .update(
        canonicalJson({
          apiVersion: 'aip.io/v1alpha2',
          kind: 'AgentPolicy',
          metadata: { name: 'test-policy' },
          spec: { allowed_tools: ['read_file', 'list_dir'], tool_rules: [{ tool: 'fetch', allow_args: { url: '^https://' } }] },
        }),
      )
      .digest('hex');
    expect(loaded(plain).hash).toBe(expected);
  });

  it('does not change with formatting, comments, quoting or key order', () => {
    expect(loaded(reformatted).hash).toBe(loaded(plain).hash);
    expect(loaded(plain.replace(/\n/g, '\r\n')).hash).toBe(loaded(plain).hash);
  });

  it('ignores metadata.signature and changes with any content change', () => {
    const signed = plain.replace('  name: test-policy\n', '  name: test-policy\n  signature: "ed25519:AAAA"\n');
    const result = loadPolicyText(signed);
    expect(result.ok).toBe(false); // an unverifiable signature still fails the load
    const parsedDocHash = loaded(plain).hash;
    expect(loaded(plain.replace('list_dir', 'list_dirs')).hash).not.toBe(parsedDocHash);
    expect(loaded(plain.replace('  name: test-policy\n', '  name: test-policy\n  version: "1.0.0"\n')).hash).not.toBe(parsedDocHash);
  });

  it('keeps the parsed document, including the signature, for signing and display', () => {
    expect(loaded(plain).document).toEqual({
      apiVersion: 'aip.io/v1alpha2',
      kind: 'AgentPolicy',
      metadata: { name: 'test-policy' },
      spec: { allowed_tools: ['read_file', 'list_dir'], tool_rules: [{ tool: 'fetch', allow_args: { url: '^https://' } }] },
    });
  });

  it('identity vector identity-040: deterministic, 64 hex characters', () => {
    const text = 'apiVersion: aip.io/v1alpha2\nkind: AgentPolicy\nmetadata:\n  name: hash-test\nspec:\n  allowed_tools:\n    - tool_a\n    - tool_b\n  identity:\n    enabled: true\n';
    expect(loaded(text).hash).toBe(loaded(text).hash);
    expect(loaded(text).hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('loadPolicyFile', () => {
  it('loads a file and records its absolute path', () => {
    const dir = tempDir();
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, policyText('  allowed_tools: [a]\n'));
    const result = loadPolicyFile(file);
    expect(result.ok && result.policy.sourcePath).toBe(file);
  });

  it('reports unreadable, oversized and non-UTF-8 files', () => {
    const dir = tempDir();
    expect(loadPolicyFile(join(dir, 'missing.yaml'))).toMatchObject({ ok: false, errors: [{ line: 0, column: 0, message: expect.stringContaining('cannot read the policy') }] });
    expect(loadPolicyFile(dir)).toMatchObject({ ok: false, errors: [{ message: expect.stringContaining('is not a regular file') }] });
    const big = join(dir, 'big.yaml');
    writeFileSync(big, Buffer.alloc(MAX_POLICY_BYTES + 1, 0x20));
    expect(loadPolicyFile(big)).toMatchObject({ ok: false, errors: [{ line: 0, message: expect.stringContaining('the cap is 262144 bytes') }] });
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(latin1, Buffer.concat([Buffer.from(policyText('  allowed_tools: ["caf')), Buffer.from([0xe9]), Buffer.from('"]\n')]));
    expect(loadPolicyFile(latin1)).toMatchObject({ ok: false, errors: [{ line: 6, column: 23, message: 'the policy is not valid UTF-8 text' }] });
  });
});

describe('readPolicySignature', () => {
  it('returns the signature as written, or null', () => {
    expect(readPolicySignature(policyText('  {}\n', { metadata: '  signature: "ed25519:abc"\n' }))).toBe('ed25519:abc');
    expect(readPolicySignature(policyText('  {}\n'))).toBeNull();
    expect(readPolicySignature(': bad yaml [')).toBeNull();
  });
});

describe('robustness', () => {
  const full = [
    'apiVersion: aip.io/v1alpha2',
    'kind: AgentPolicy',
    'metadata:',
    '  name: fuzz',
    '  version: "1.0.0"',
    'spec:',
    '  mode: enforce',
    '  allowed_tools: [read_file, "list_dir"]',
    '  allowed_methods: [tools/call, initialize]',
    '  denied_methods: [resources/read]',
    '  protected_paths: [~/.ssh]',
    '  strict_args_default: false',
    '  tool_rules:',
    '    - tool: fetch',
    '      action: allow',
    '      rate_limit: 10/minute',
    '      allow_args:',
    '        url: "^https://.*"',
    '  dlp:',
    '    max_scan_size: 1MB',
    '    patterns: [{name: k, regex: "AKIA[0-9A-Z]{16}", scope: all}]',
    '  identity: {enabled: true, token_ttl: 5m, rotation_interval: 4m, audience: fuzz}',
    '  server: {enabled: true, listen: "127.0.0.1:9443", timeout: 5s}',
    '',
  ].join('\n');

  it('never throws and always locates its errors inside the text, whatever the input', () => {
    expect(loadPolicyText(full).ok).toBe(true);
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const junk = ['[', ']', '{', '}', ':', '-', ' ', '\n', '"', "'", '&a', '*a', '!', '#', '0', 'x', '\t', '|', '>', '\u200B', '\\', '?', ',', '%'];
    for (let i = 0; i < 1000; i++) {
      let text = full;
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(text.length);
        const kind = random(3);
        if (kind === 0) text = text.slice(0, at) + text.slice(at + 1 + random(4));
        else if (kind === 1) text = text.slice(0, at) + junk[random(junk.length)]! + text.slice(at);
        else text = text.slice(0, at) + junk[random(junk.length)]! + text.slice(at + 1);
      }
      const result = loadPolicyText(text);
      if (result.ok) continue;
      expect(result.errors.length, text).toBeGreaterThan(0);
      for (const error of result.errors) {
        expect(error.line, `${text}\n${JSON.stringify(error)}`).toBeGreaterThanOrEqual(1);
        expect(error.column).toBeGreaterThanOrEqual(1);
        expect(error.message.length).toBeGreaterThan(10);
      }
    }
  });
});

describe('DLP patterns that match nothing', () => {
  it('refuses a DLP pattern that matches the empty string, naming the line', async () => {
    const { loadPolicyText } = await import('./load.js');
    const result = loadPolicyText('apiVersion: aip.io/v1alpha1\nkind: AgentPolicy\nmetadata:\n  name: t\nspec:\n  dlp:\n    patterns:\n      - name: "Lazy"\n        regex: "x*"\n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toMatchObject({ line: 9, message: expect.stringContaining('matches the empty string') });
  });
});

describe('the loader and the shared schema (src-shared/policy) agree', () => {
  /** The schema's verdict on the document the loader parsed, or null when the YAML itself is refused. */
  const schemaVerdict = (text: string) => {
    const parsed = parsePolicyYaml(text);
    if (!parsed.ok) return null;
    const version = parsed.json.apiVersion;
    return policySchemaFor(version === 'aip.io/v1alpha1' ? version : ('aip.io/v1alpha2' as ApiVersion)).safeParse(parsed.json);
  };

  it('accepts every upstream vector policy', () => {
    for (const vector of vectorPolicies(['basic', 'full', 'identity', 'server'])) expect(schemaVerdict(vector.text)?.success, `${vector.file}#${vector.id}`).toBe(true);
  });

  it.each([
    ['a misspelt key', policyText('  tool_rules:\n    - tool: fetch\n      alow_args: {}\n')],
    ['a bad rate', policyText('  tool_rules:\n    - tool: a\n      rate_limit: "1.5/m"\n')],
    ['a number for a tool name', policyText('  allowed_tools: [1]\n')],
    ['an empty DLP regex', policyText('  dlp:\n    patterns: [{name: a, regex: ""}]\n')],
    ['rotation not below token_ttl', policyText('  identity:\n    token_ttl: 5m\n    rotation_interval: 6m\n')],
    ['a public listen without TLS', policyText('  server:\n    enabled: true\n    listen: "0.0.0.0:9443"\n')],
    ['a v1alpha2 field in v1alpha1', policyText('  identity: {}\n', { apiVersion: 'aip.io/v1alpha1' })],
    ['a wrong kind', 'apiVersion: aip.io/v1alpha2\nkind: Policy\nmetadata: {name: t}\nspec: {}\n'],
  ])('the loader refuses what the schema refuses, at the same path: %s', (_label, text) => {
    const verdict = schemaVerdict(text)!;
    expect(verdict.success).toBe(false);
    const paths = failures(text).map((error) => error.path);
    for (const issue of verdict.error!.issues) {
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
      expect(paths).toContain(formatPolicyPath(path as PropertyKey[]));
    }
  });

  it('loads a policy with the defaults the schema declares', () => {
    const text = policyText('  dlp:\n    patterns: [{name: a, regex: b}]\n  server: {}\n  tool_rules: [{tool: a}]\n');
    const parsed = parsePolicyYaml(text);
    if (!parsed.ok) throw new Error('expected the YAML to parse');
    const document = AgentPolicySchema.parse(parsed.json);
    const policy = loaded(text);
    expect(policy.mode).toBe(document.spec.mode);
    expect([...policy.allowedMethods]).toEqual(document.spec.allowed_methods);
    expect(policy.dlp).toMatchObject({ enabled: document.spec.dlp!.enabled, maxScanSize: document.spec.dlp!.max_scan_size, onRequestMatch: document.spec.dlp!.on_request_match });
    expect(policy.server).toMatchObject({ listen: document.spec.server!.listen, failoverMode: document.spec.server!.failover_mode });
    expect(policy.toolRules.get('a')!.action).toBe(document.spec.tool_rules[0]!.action);
  });

  it('RE2 and §4.1 normalisation are the loader\'s own checks, on top of the schema', () => {
    const lookahead = policyText('  tool_rules:\n    - tool: a\n      allow_args:\n        x: "(?=x)"\n');
    expect(schemaVerdict(lookahead)!.success).toBe(true);
    expect(onlyFailure(lookahead).message).toContain('invalid regular expression');
    const invisible = policyText('  allowed_tools: ["\\u200B"]\n');
    expect(schemaVerdict(invisible)!.success).toBe(true);
    expect(onlyFailure(invisible).message).toContain('empty after normalisation');
  });

  it('never accepts what the schema refuses, nor refuses for the schema what it accepts', () => {
    const base = policyText(
      [
        '  mode: enforce',
        '  allowed_tools: [read_file]',
        '  tool_rules:',
        '    - {tool: fetch, action: ask, rate_limit: 10/minute, allow_args: {url: "^https://"}}',
        '  dlp: {scan_requests: true, max_scan_size: 1MB, patterns: [{name: k, regex: "AKIA[0-9A-Z]{16}", scope: request}]}',
        '  identity: {enabled: true, token_ttl: 5m, rotation_interval: 4m, nonce_window: 5m, audience: test-policy}',
        '  server: {enabled: true, listen: "127.0.0.1:9443", timeout: 5s, failover_mode: local_policy}',
        '',
      ].join('\n'),
    );
    const values = ['', '[]', '{}', 'null', '1', '"x"', 'true', 'yes', '0s', '6m', '1/s', '0/s', '"0.0.0.0:1"', 'HS256', 'redact', 'all', 'fail_open', '"(?=x)"', '"x*"'];
    let seed = 5;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 400; i++) {
      const lines = base.split('\n');
      const line = 5 + random(lines.length - 6);
      lines[line] = lines[line]!.replace(/(\w+): [^\s,{}[\]][^,}\]]*/g, (match, key: string) => (random(3) === 0 ? `${key}: ${values[random(values.length)]}` : match));
      const text = lines.join('\n');
      const verdict = schemaVerdict(text);
      const result = loadPolicyText(text);
      if (verdict && !verdict.success) expect(result.ok, text).toBe(false);
      if (!result.ok && verdict?.success) expect(result.errors.every((error) => /regular expression|matches the empty string|normalisation|duplicate rule/.test(error.message)), text).toBe(true);
    }
  });
});
