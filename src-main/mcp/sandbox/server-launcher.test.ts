import { describe, expect, it } from 'vitest';
import { loaded, policyText } from '../../aip/policy/testing/policy.js';
import type { RunLimiter } from '../../sandbox/run-limits.js';
import { sandboxedLauncher, unsandboxedLauncher } from './server-launcher.js';

// How `silas proxy` starts its server: never unsandboxed without the person's word
// (docs/mcp-sandbox.md "`--no-sandbox` and a missing backend").

const noCgroups: RunLimiter = { mechanism: null, unavailableReason: 'none', create: () => { throw new Error('unavailable'); } };
const events = { connection: () => undefined };
const options = (available: boolean) => ({
  command: '/usr/bin/node',
  args: ['-e', '1'],
  policyFile: '/nonexistent/policy.yaml',
  homeDir: '/nonexistent/home',
  dataHome: '/nonexistent/home/.local/share/silas',
  cwd: '/',
  environment: { PATH: '/usr/bin:/bin' },
  availability: () => Promise.resolve({ available, bwrapPath: '/usr/bin/bwrap', prlimitPath: null, reason: available ? null : 'bubblewrap was not found at /usr/bin/bwrap' }),
  limiter: () => noCgroups,
  secrets: () => ({}),
});

describe('server launchers', () => {
  it('refuse to start a server without a sandbox backend, saying how to install bubblewrap and that --no-sandbox is the conscious way out', async () => {
    const policy = loaded(policyText('  mode: enforce\n'));
    await expect(sandboxedLauncher(options(false))(policy, events)).rejects.toThrow(
      /cannot sandbox the MCP server: bubblewrap was not found at \/usr\/bin\/bwrap\. To fix, install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap\), or run it unsandboxed with --no-sandbox/,
    );
  });

  it('start a sandboxed server through bubblewrap, and an unsandboxed one as given, with the reason recorded', async () => {
    const policy = loaded(policyText('  mode: enforce\n'));
    const sandboxed = await sandboxedLauncher(options(true))(policy, events);
    expect(sandboxed).toMatchObject({ file: '/usr/bin/bwrap', summary: { backend: 'bubblewrap', network: { mode: 'none' } } });
    expect(await sandboxed.finish()).toBeNull();
    const direct = await unsandboxedLauncher('/usr/bin/node', ['-e', '1'], { A: '1' }, 'started with --no-sandbox')(policy, events);
    expect(direct).toMatchObject({ file: '/usr/bin/node', args: ['-e', '1'], env: { A: '1' }, summary: { backend: 'none', unsandboxedReason: 'started with --no-sandbox' } });
  });
});
