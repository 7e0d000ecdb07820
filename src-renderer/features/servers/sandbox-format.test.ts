import { describe, expect, it } from 'vitest';
import { auditEntry } from '../../testing/audit-fixtures.js';
import { denialRow, environmentRows, limitRows, networkView, unsandboxedReason } from './sandbox-format.js';

describe('sandbox format', () => {
  it('says why a server is unsandboxed: the flag as the person\'s choice, another reason as recorded, none as such', () => {
    expect(unsandboxedReason('--no-sandbox')).toBe('started with --no-sandbox');
    expect(unsandboxedReason('bubblewrap (bwrap) is not installed.')).toBe('bubblewrap (bwrap) is not installed');
    expect(unsandboxedReason(null)).toBe('no reason was recorded');
    expect(unsandboxedReason('  ')).toBe('no reason was recorded');
  });

  it('names each network mode, listing hosts only when the server may reach some', () => {
    expect(networkView({ mode: 'none', hosts: [], loopbackPorts: [] })).toEqual({ label: 'No network', hosts: [] });
    expect(networkView({ mode: 'loopback', hosts: [], loopbackPorts: [5432] })).toEqual({ label: "Only these ports of this computer's loopback", hosts: ['127.0.0.1:5432'] });
    expect(networkView({ mode: 'hosts', hosts: ['api.github.com', 'example.org:8443'], loopbackPorts: [] })).toEqual({ label: 'Only these hosts', hosts: ['api.github.com', 'example.org:8443'] });
    expect(networkView({ mode: 'hosts', hosts: ['api.github.com'], loopbackPorts: [11434] })).toEqual({ label: 'Only these hosts', hosts: ['api.github.com', '127.0.0.1:11434'] });
    expect(networkView({ mode: 'hosts', hosts: [], loopbackPorts: [] })).toEqual({ label: 'No host allowed', hosts: [] });
  });

  it('shows each limit with its unit, and "not enforced" for a missing one', () => {
    expect(limitRows({ mechanism: 'cgroup2', max_processes: 64, max_memory_mb: 512 })).toEqual([
      { label: 'Processes', value: '64' },
      { label: 'Memory', value: '512 MB' },
      { label: 'Mechanism', value: 'cgroup v2' },
    ]);
    expect(limitRows({ mechanism: 'cgroup1', max_processes: null, max_memory_mb: 0 }).map((r) => r.value)).toEqual(['not enforced', '0 MB', 'cgroup v1']);
    expect(limitRows({ mechanism: null, max_processes: null, max_memory_mb: null }).map((r) => r.value)).toEqual(['not enforced', 'not enforced', 'not enforced']);
  });

  it('marks the variables filled from the keyring, keeping a keyring name missing from env', () => {
    expect(environmentRows(['PATH', 'GITHUB_TOKEN', 'HOME'], ['GITHUB_TOKEN', 'LINEAR_KEY'])).toEqual([
      { name: 'PATH', fromKeyring: false },
      { name: 'GITHUB_TOKEN', fromKeyring: true },
      { name: 'HOME', fromKeyring: false },
      { name: 'LINEAR_KEY', fromKeyring: true },
    ]);
    expect(environmentRows([], [])).toEqual([]);
  });

  it('reads a denial row from an mcp.sandbox_denied entry, defensively', () => {
    const denied = auditEntry(7, { event: 'mcp.sandbox_denied', data: { server: 'web', kind: 'connect', host: 'evil.example', port: 443, reason: 'host not in network.hosts' } });
    expect(denialRow(denied)).toEqual({ id: 'entry-7', ts: denied.ts, target: 'evil.example:443', reason: 'host not in network.hosts' });
    expect(denialRow(auditEntry(8, { data: { host: '2001:db8::1', port: 80, reason: 'r' } })).target).toBe('[2001:db8::1]:80');
    expect(denialRow(auditEntry(9, { data: { host: 'x.example', port: '443' } }))).toMatchObject({ target: 'x.example', reason: '—' });
    expect(denialRow(auditEntry(10, { data: { port: 22 } })).target).toBe('—:22');
  });
});
