import type { ServerSandboxSummary } from '../server-sandbox.js';

/** A bubblewrap sandbox as `silas proxy` records it: a few grants, one host, cgroup limits, one keyring secret. */
export function sandboxSummary(overrides: Partial<ServerSandboxSummary> = {}): ServerSandboxSummary {
  return {
    backend: 'bubblewrap',
    unsandboxedReason: null,
    read: ['/home/ada/docs'],
    write: ['/home/ada/scratch'],
    runtime: ['/usr/bin/node', '/home/ada/servers/files.js'],
    masked: ['/home/ada/docs/.ssh'],
    env: ['PATH', 'GITHUB_TOKEN'],
    secrets: ['GITHUB_TOKEN'],
    network: { mode: 'hosts', hosts: ['api.github.com'], loopbackPorts: [] },
    limits: { mechanism: 'cgroup2', max_processes: 64, max_memory_mb: 512 },
    ...overrides,
  };
}
