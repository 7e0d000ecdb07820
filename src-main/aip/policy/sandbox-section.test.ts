import { describe, expect, it } from 'vitest';
import { loaded, onlyFailure, policyText } from './testing/policy.js';

// spec.x-silas-sandbox (src-shared/policy/schema-sandbox.ts, docs/mcp-sandbox.md): loaded with
// the rest of the policy, each mistake an error at its line that says what to write instead.

const section = (body: string) => policyText(`  x-silas-sandbox:\n${body}`);

describe('spec.x-silas-sandbox', () => {
  it('loads every field, with defaults for what is left out, and is null when absent', () => {
    expect(loaded(policyText('  mode: enforce\n')).sandbox).toBeNull();
    const policy = loaded(
      section(
        '    filesystem:\n      read: ["~/docs"]\n      write: [/srv/out]\n    env:\n      pass: [LANG]\n      set: {LOG_LEVEL: debug}\n      secrets: {GITHUB_TOKEN: github-token}\n    network:\n      mode: hosts\n      hosts: [api.github.com, "*.githubusercontent.com:443"]\n    limits:\n      max_processes: 32\n',
      ),
    );
    expect(policy.sandbox).toMatchObject({
      filesystem: { read: ['~/docs'], write: ['/srv/out'], runtime: [] },
      env: { pass: ['LANG'] },
      network: { mode: 'hosts', hosts: ['api.github.com', '*.githubusercontent.com:443'] },
      limits: { max_processes: 32 },
    });
    expect([...policy.sandbox!.env!.secrets]).toEqual([['GITHUB_TOKEN', 'github-token']]);
    expect([...policy.sandbox!.env!.set]).toEqual([['LOG_LEVEL', 'debug']]);
    expect(loaded(section('    network: {}\n')).sandbox!.network).toEqual({ mode: 'none', hosts: [], loopback_ports: [] });
  });

  it('is part of the policy hash, so a signature covers it', () => {
    expect(loaded(section('    network: {mode: none}\n')).hash).not.toBe(loaded(section('    network: {mode: hosts, hosts: [a.example]}\n')).hash);
  });

  it.each([
    ['    filesystm: {}\n', 'spec.x-silas-sandbox.filesystm', /unknown key "filesystm".*filesystem/],
    ['    network:\n      mode: hosts\n', 'spec.x-silas-sandbox.network.hosts', /mode: hosts needs at least one host/],
    ['    network:\n      hosts: [a.example]\n', 'spec.x-silas-sandbox.network.mode', /set mode: hosts/],
    ['    network:\n      mode: hosts\n      hosts: ["http://a.example/x"]\n', 'spec.x-silas-sandbox.network.hosts[0]', /expected a host such as "api.github.com"/],
    ['    network:\n      mode: everything\n', 'spec.x-silas-sandbox.network.mode', /none.*hosts/],
    ['    network:\n      mode: loopback\n', 'spec.x-silas-sandbox.network.loopback_ports', /mode: loopback needs at least one port/],
    ['    network:\n      loopback_ports: [5432]\n', 'spec.x-silas-sandbox.network.mode', /set mode: loopback/],
    ['    network:\n      mode: loopback\n      loopback_ports: [3128]\n', 'spec.x-silas-sandbox.network.loopback_ports[0]', /egress proxy listens/],
    ['    network:\n      mode: loopback\n      loopback_ports: [5432]\n      hosts: [a.example]\n', 'spec.x-silas-sandbox.network.mode', /mode is loopback; set mode: hosts/],
    // Accepted by the pattern's shape, refused by the egress proxy's parser: refused here, at load.
    ['    network:\n      mode: hosts\n      hosts: ["api.example.com:0"]\n', 'spec.x-silas-sandbox.network.hosts[0]', /network host pattern "api\.example\.com:0"/],
    ['    network:\n      mode: hosts\n      hosts: ["0x7f.1"]\n', 'spec.x-silas-sandbox.network.hosts[0]', /network host pattern "0x7f\.1"/],
    ['    network:\n      mode: hosts\n      hosts: ["*.10.0.0.1"]\n', 'spec.x-silas-sandbox.network.hosts[0]', /a wildcard applies to names/],
    ['    env:\n      pass: ["1BAD"]\n', 'spec.x-silas-sandbox.env.pass[0]', /environment variable name/],
    ['    env:\n      secrets: {TOKEN: "../owner"}\n', 'spec.x-silas-sandbox.env.secrets.TOKEN', /silas secrets set NAME/],
    ['    limits:\n      max_processes: 0\n', 'spec.x-silas-sandbox.limits.max_processes', /./],
    ['    filesystem:\n      read: ["a\\u0000b"]\n', 'spec.x-silas-sandbox.filesystem.read[0]', /control or invisible/],
  ])('refuses %j at its path with the fix', (body, path, message) => {
    const error = onlyFailure(section(body));
    expect(error.path).toBe(path);
    expect(error.message).toMatch(message);
    expect(error.line).toBeGreaterThan(0);
  });
});
